"""A policy against each of a training config's evaluation opponents, on duplicate deals: the
figure ``train.py`` logs as ``eval/win_rate_vs_<opponent>`` and writes into a run's records,
and the one the studies (ablations, best responses) report for their rows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from envs.games import game as game_info
from tournament.config import TournamentConfig

#: The deals every training evaluation plays (so a run's curve, its final figure and the
#: studies' "for scale" rows are measured on the same games).
EVAL_SEED = 12345


def evaluate_policy(
    cfg: Any,
    player: Any,
    seed: int = EVAL_SEED,
    games: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """``player`` (a policy spec) against each of ``cfg.eval_opponents`` in every seating: head
    to head at two seats, one ``player`` and n-1 copies of the opponent at bigger tables, team
    against team in the trick game (``games``: at least that many, default ``eval_games``).
    Any policy spec may take the agent's place (a scale for the studies' figures: what
    ``heuristic`` scores against a best response's target). ``progress(done, total)`` hears
    of the games as they finish, all opponents' together."""
    from tournament.runner import run_tournament
    from tournament.schedule import build_schedule
    from tournament.stats import summarise

    rows, done = [], 0
    for spec, other in zip(cfg.eval_opponents, opponent_labels(cfg.eval_opponents), strict=True):
        config = _tournament(cfg, player, spec, other, seed, games)
        schedule = build_schedule(config)
        total = len(cfg.eval_opponents) * schedule.num_games  # every opponent's tournament has the same games

        def finished(n: int, total: int = total) -> None:
            nonlocal done
            done += n
            if progress is not None:
                progress(done, total)

        summary = summarise(config, schedule, run_tournament(config, schedule, on_games=finished))
        row = next(r for r in summary["entrants"] if r["entrant"] == "agent")
        rows.append({"opponent": other, **{k: row[k] for k in ("games", "win_rate", "ci_low", "ci_high")}})
    return rows


def _tournament(cfg: Any, player: Any, spec: Any, other: str, seed: int, games: int | None) -> TournamentConfig:
    """The tournament of ``player`` (labelled ``agent``) against one evaluation opponent."""
    from agents.registry import spec_mapping

    teams = game_info(cfg.game).teams
    lineup = ["agent", other] if teams else ["agent"] + [other] * (cfg.players - 1)
    games = games or cfg.eval_games
    return TournamentConfig.from_mapping(
        {
            "game": cfg.game,
            "players": cfg.players,
            "rules": cfg.rules,
            "policies": [{**spec_mapping(player), "label": "agent"}, {**spec_mapping(spec), "label": other}],
            "lineups": None if teams else [lineup],
            "seating": "rotations",
            "games": games,
            "batch": min(4096, games),
            "seed": seed,
            "ratings": "none",
        }
    )


def opponent_labels(specs: list[Any]) -> list[str]:
    """Each evaluation opponent's label (``eval/win_rate_vs_<label>``, the curve's lines), one
    per opponent: two that shared one (two runs' ``agent.pt``, a policy named twice) would
    overwrite each other's points. A label is the spec's own (``opponent`` for one that says
    ``agent``, the evaluated player's); where several share it, an agent's gets its checkpoint's
    folder in front (``run_a/agent``), and a label still taken then gets ``_2``, ``_3``, ... in
    list order (an opponent's own ``label`` gets no folder, only a number if another has it)."""
    from agents.registry import spec_label

    labels = [spec_label(spec) for spec in specs]
    labels = ["opponent" if label == "agent" else label for label in labels]
    shared = [labels.count(label) > 1 for label in labels]
    labels = [
        (_in_folder(s) or label) if twice else label for s, label, twice in zip(specs, labels, shared, strict=True)
    ]
    taken, unique = {"agent"}, []
    for label in labels:
        n, name = 1, label
        while name in taken:
            n += 1
            name = f"{label}_{n}"
        taken.add(name)
        unique.append(name)
    return unique


def _in_folder(spec: Any) -> str:
    """An agent's label with its checkpoint's folder in front (``run_a/agent``); "" for another
    policy, or an agent that names its own label."""
    from agents.registry import AGENT, spec_label, split_spec

    name, params = split_spec(spec)
    if name != AGENT or "label" in params or not isinstance(params.get("checkpoint"), str):
        return ""
    folder = Path(params["checkpoint"]).parent.name
    return f"{folder}/{spec_label(spec)}" if folder else ""
