"""A policy against each of a training config's evaluation opponents, on duplicate deals: the
figure ``train.py`` logs as ``eval/win_rate_vs_<opponent>`` and writes into a run's records,
and the one the studies (ablations, best responses) report for their rows."""

from __future__ import annotations

from typing import Any

from envs.games import game as game_info
from tournament.config import TournamentConfig

#: The deals every training evaluation plays (so a run's curve, its final figure and the
#: studies' "for scale" rows are measured on the same games).
EVAL_SEED = 12345


def evaluate_policy(cfg: Any, player: Any, seed: int = EVAL_SEED, games: int | None = None) -> list[dict[str, Any]]:
    """``player`` (a policy spec) against each of ``cfg.eval_opponents`` in every seating: head
    to head at two seats, one ``player`` and n-1 copies of the opponent at bigger tables, team
    against team in the trick game (``games``: at least that many, default ``eval_games``).
    Any policy spec may take the agent's place (a scale for the studies' figures: what
    ``heuristic`` scores against a best response's target)."""
    from agents.registry import spec_label, spec_mapping
    from tournament.runner import run_tournament
    from tournament.schedule import build_schedule
    from tournament.stats import summarise

    games = games or cfg.eval_games
    rows = []
    for spec in cfg.eval_opponents:
        label = spec_label(spec)
        other = label if label != "agent" else "opponent"
        opponent = {**spec_mapping(spec), "label": other}
        players = cfg.players
        teams = game_info(cfg.game).teams
        lineup = ["agent", other] if teams else ["agent"] + [other] * (players - 1)
        config = TournamentConfig.from_mapping(
            {
                "game": cfg.game,
                "players": players,
                "rules": cfg.rules,
                "policies": [{**spec_mapping(player), "label": "agent"}, opponent],
                "lineups": None if teams else [lineup],
                "seating": "rotations",
                "games": games,
                "batch": min(4096, games),
                "seed": seed,
                "ratings": "none",
            }
        )
        schedule = build_schedule(config)
        summary = summarise(config, schedule, run_tournament(config, schedule))
        row = next(r for r in summary["entrants"] if r["entrant"] == "agent")
        rows.append({"opponent": other, **{k: row[k] for k in ("games", "win_rate", "ci_low", "ci_high")}})
    return rows
