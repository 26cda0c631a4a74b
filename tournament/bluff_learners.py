"""The bluffing study's chapter on learned play (issue 16).

Two parts, both computed by the bluff study's own command:

1. **The shipped agents** (``agents``): each plays the base strategy on every other seat;
   :func:`tournament.learned_bluffing.survey` records every bluff it could make and every
   challenge it could answer, with the situation, and what they earned it in cards.
2. **Learners that best-respond** (``learners``): a fresh PPO learner trained against one
   target held fixed (``train.py`` with ``target:``, the exploitability study's recipe and a
   smaller budget), either as the *bluffer* against a challenging rule (the learned agent among
   them) or as the *challenger* against a bluffer of a given rate. The learner is a whole
   player; what it settles on is read from its play against its target: its bluff and challenge
   rates, and its gain over the fair share (``best_response.json``).

A learner whose run directory holds a finished ``best_response.json`` of the same config is
reused; one with no run here whose config is the one the study's data was made of is taken from
that data (``runs/`` is not committed): a fresh clone regenerates the chapter without training.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape

from tournament.learned_bluffing import summarise, survey

ROLES = ("bluffer", "challenger")


def check_learners(learners: list[Any]) -> None:
    names = []
    for row in learners:
        if not isinstance(row, dict) or set(row) - {"name", "label", "role", "target"} or "target" not in row:
            raise ValueError(f"a learner is {{name, label, role, target}}, got {row!r}")
        if row.get("role") not in ROLES:
            raise ValueError(f"learner {row.get('name')!r}: role must be one of {', '.join(ROLES)}")
        names.append(row["name"])
    if len(set(names)) != len(names):
        raise ValueError(f"every learner needs its own name (it names the run), got {names}")


def learner_config(config: Any, row: dict[str, Any]) -> Any:
    """The learner's training config: the study's best-response recipe, its budget, the target."""
    from train import load_training_config

    target = json.dumps(row["target"])  # YAML reads JSON
    args = [*config.learner_overrides, f"target={target}", f"run_name=bluff_{row['name']}"]
    return load_training_config(Path(config.learner_config), [*args, f"log_dir={config.learner_runs}"]), args


def survey_setting(config: Any) -> dict[str, Any]:
    """What a learner's rates were read from: a row of the data stands for today's only if equal."""
    # "per slot": the same number of whole games in every slot (tournament.learned_bluffing.survey;
    # rates read before 2026-12-07 also counted games cut short, so they stand for none of today's)
    return {"games": config.survey_games, "seed": config.seed, "rules": dict(config.rules), "counts": "per slot"}


def survey_agents(config: Any, console: Console) -> list[dict[str, Any]]:
    """Part 1: each shipped agent's Wild Draw Four decisions against the base strategy."""
    out = []
    for row in config.agents:
        console.print(f"learned play: {row['label']} at {row['players']} players, {config.survey_games:,} games")
        events = survey(row["policy"], config.base, row["players"], config.rules, config.survey_games, config.seed)
        out.append(
            {
                "label": row["label"],
                "policy": row["policy"],
                "players": row["players"],
                **summarise(events),
                "habits": habit_values(config, row, console),
            }
        )
    return out


#: The habits part 1 takes away, one at a time, to see what each earns: ``restrained``
#: (agents.uno_policies.RestrainedPolicy) with these parameters over the agent.
HABITS = {"challenges": {"challenge": "never"}, "bluffs": {"bluff": "never"}}


def without(policy: Any, habit: str) -> dict[str, Any]:
    """``policy`` with one of its :data:`HABITS` taken away (``restrained``, agents/uno_policies.py)."""
    return {"name": "restrained", "base": policy, **HABITS[habit]}


def habit_values(config: Any, row: dict[str, Any], console: Console) -> dict[str, Any]:
    """What an agent's challenges and bluffs earn it in games: its win rate against the base
    strategy as it is and with each habit taken away (it accepts every Wild Draw Four; it plays
    its next choice where it would bluff), every version on the same deals with a random stream
    per game (``streams: game``), so that a game in which the habit never shows is the same game
    in every version and each difference is paired game by game (its interval clustered by deal)."""
    from agents.registry import spec_mapping
    from tournament.bluff_study import paired, play_scored, win_rate

    def play(policy: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
        console.print(f"  {row['label']} {what}: {config.habit_games:,} games")
        agent, others = {**spec_mapping(policy), "label": "agent"}, {**spec_mapping(config.base), "label": "others"}
        cell = config.one_against_the_rest(row["players"], agent, others, config.habit_games)
        _, _, score, deal = play_scored(cell, console)
        return score, deal

    as_is, deal = play(row["policy"], "as it is")
    out: dict[str, Any] = {"as_is": win_rate(as_is, deal)}
    for habit, params in HABITS.items():
        score, _ = play(without(row["policy"], habit), f"without its {habit}")
        diff, low, high = paired(as_is, score, deal)
        out[habit] = {**win_rate(score, deal), "params": params, "earns": diff, "earns_low": low, "earns_high": high}
    return out


def run_learners(config: Any, console: Console, earlier: dict[tuple[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """Part 2: train (or reuse, or take from the data) every learner, then read off its play."""
    from agents.best_response import config_digest, read_result
    from train import main as train_main

    out = []
    surveyed = survey_setting(config)
    plans = []
    for row in config.learners:  # first what each learner needs, said before any training
        cfg, args = learner_config(config, row)
        run_dir = Path(cfg.log_dir) / cfg.run_name
        digest = config_digest(cfg)
        done = read_result(run_dir)
        done = done if done and done.get("config_sha256") == digest and Path(done["agent"]).is_file() else None
        data = earlier.get((row["name"], digest))
        plans.append((row, args, run_dir, digest, done, data, cfg))
    todo = [p for p in plans if p[4] is None and not (p[5] is not None and p[5].get("survey") == surveyed)]
    if todo:
        steps = max(p[6].total_steps for p in todo)
        what = (
            f"train, each a best response of up to {steps:,} decisions (minutes each; train_learners: false "
            "leaves them out)"
            if config.train_learners
            else "leave out (train_learners: false)"
        )
        console.print(f"learners: {len(plans) - len(todo)} finished or in the study's data, {len(todo)} to {what}")
    for row, args, run_dir, digest, done, data, cfg in plans:  # each learner's own config
        if done is None and data is not None and data.get("survey") == surveyed:
            console.print(f"learner {row['name']}: taken from the study's data (same config, same survey)")
            out.append({**data, "reused": "data"})
            continue
        if done is None:
            if not config.train_learners:
                console.print(f"learner {row['name']}: no finished run and train_learners false: left out")
                out.append({"name": row["name"], "role": row["role"], "target": row["target"], "missing": True})
                continue
            command = ["--config", config.learner_config, *args, f"log_dir={config.learner_runs}", "--overwrite"]
            console.print("[bold]training[/] " + escape(f"learner {row['name']}: python train.py {' '.join(command)}"))
            code = train_main(command)
            done = read_result(run_dir)
            if code != 0 or done is None or done.get("config_sha256") != digest:
                raise RuntimeError(f"training learner {row['name']} did not finish (exit code {code})")
        console.print(f"learner {row['name']}: its play against its target, {config.survey_games:,} games")
        events = survey(
            {"name": "agent", "checkpoint": done["agent"]},
            row["target"],
            cfg.players,
            config.rules,
            config.survey_games,
            config.seed,
        )
        out.append(
            {
                "name": row["name"],
                "label": row.get("label") or row["name"],
                "role": row["role"],
                "target": row["target"],
                "config_sha256": digest,
                "survey": surveyed,
                "players": cfg.players,
                "imitation_teacher": cfg.imitation_teacher,
                "decisions": done["decisions"],
                "imitation_steps": done["imitation_steps"],
                "minutes": done["minutes"],
                "start": done["start"],
                **{k: done[k] for k in ("games", "win_rate", "ci_low", "ci_high", "gain", "gain_low", "gain_high")},
                "play": summarise(events),
                "reused": "run",
            }
        )
    return out


def _rate(r: dict[str, Any] | None) -> str:
    if not r or r["rate"] is None:
        return "none of 0"
    return f"{100 * r['rate']:.1f}% [{100 * r['low']:.1f}, {100 * r['high']:.1f}] of {r['n']:,}"


def _short(r: dict[str, Any] | None) -> str:
    if not r or r["rate"] is None:
        return "-"
    return f"{100 * r['rate']:.1f}% ({r['n']:,})"


def _cards(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def _spec(spec: Any) -> str:
    from agents.registry import spec_label

    return spec_label(spec)


def chapter(
    config: Any, agents: list[dict[str, Any]], learners: list[dict[str, Any]], cells: list[dict[str, Any]] | None = None
) -> list[str]:
    """The chapter's markdown: tables and sentences computed from the numbers."""
    out = [
        "## Learned play",
        "",
        f"Computed by the same command. **Part 1**: each shipped agent plays `{config.base}` on every other "
        f"seat for {config.survey_games:,} games or a few more (each of the games played side by side plays the "
        f"same number of whole games, so short games are not favoured; seed {config.seed}), its seat turning "
        "with the deal. A *bluff "
        "chance* is a decision where the agent may play a Wild Draw Four while holding the colour in force; a "
        "*challenge decision* is one where it faces a Wild Draw Four. The rates carry 95% Wilson intervals. What "
        "a decision earns is counted in cards: against playing another card, a bluff moves 4 cards onto the "
        "target when it is not challenged and 4 onto the bluffer when it is; against accepting, a challenge "
        "moves +8 cards in the challenger's favour when the card was a bluff and costs it 2 when it was not "
        "(6 drawn instead of 4).",
        "",
        "| agent | players | bluff chances | bluffed | caught | cards per bluff | challenge decisions | challenged "
        "| of which bluffs | cards per challenge |",
        "|---|---:|---:|---|---|---:|---:|---|---|---:|",
    ]
    for a in agents:
        out.append(
            f"| {a['label']} | {a['players']} | {a['bluff']['n']:,} | {_short(a['bluff'])} | {_short(a['caught'])} | "
            f"{_cards(a['bluff_card_swing'])} | {a['challenge']['n']:,} | {_short(a['challenge'])} | "
            f"{_short(a['challenge_success'])} | {_cards(a['challenge_card_swing'])} |"
        )
    out += ["", "By situation (share of the bluff chances taken; share of the challenge decisions challenged):", ""]
    for a in agents:
        bins = [b["bin"] for b in a["bluff_by_target_size"]]
        out += [
            f"{a['label']}, {a['players']} players:",
            "",
            "| hand size | " + " | ".join(bins) + " |",
            "|---|" + "---|" * len(bins),
            "| bluffs, by the target's hand | " + " | ".join(_short(b) for b in a["bluff_by_target_size"]) + " |",
            "| bluffs, by its own hand | " + " | ".join(_short(b) for b in a["bluff_by_own_size"]) + " |",
            "| challenges, by the bluffer's hand | "
            + " | ".join(_short(b) for b in a["challenge_by_bluffer_size"])
            + " |",
            "",
            "| cards of the colour in force held | " + " | ".join(b["bin"] for b in a["bluff_by_colour_cards"]) + " |",
            "|---|" + "---|" * len(a["bluff_by_colour_cards"]),
            "| bluffs | " + " | ".join(_short(b) for b in a["bluff_by_colour_cards"]) + " |",
            "",
        ]
    out += _agent_findings(agents)
    out += habits_table(config, agents)
    missing = [r for r in learners if r.get("missing")]
    learners = [r for r in learners if not r.get("missing")]
    if missing:
        out += [
            "",
            "**Not every learner is here** (no finished run, `train_learners: false`): "
            + ", ".join(f"{r['name']} ({r['role']} against `{_spec(r['target'])}`)" for r in missing)
            + ".",
        ]
    if learners:
        first = learners[0]
        teacher = first.get("imitation_teacher", "heuristic")
        warm = (
            f"after a {first['imitation_steps'] / 1e6:.0f}M-decision warm start imitating `{teacher}`"
            if first["imitation_steps"]
            else "from scratch"
        )
        out += [
            "",
            "### Learners that best-respond",
            "",
            f"Each row trains a fresh learner against one target held fixed (`{config.learner_config}` with "
            f"`{' '.join(config.learner_overrides)}`: {first['decisions'] / 1e6:.1f}M decisions {warm}). "
            "The *bluffer* rows ask what bluffing rate a learner settles on "
            "against each challenging rule; the *challenger* rows what challenging rate it settles on against "
            "bluffers of each rate. Gain: its win rate against the target minus the fair share, on the "
            "best-response evaluation's duplicate deals; its rates are read from "
            f"{config.survey_games:,} games against the target.",
            "",
            "| role | target | gain, points [95% CI] | bluffed (of its chances) | caught | challenged (of W+4 faced) "
            "| of which bluffs | minutes |",
            "|---|---|---|---|---|---|---|---:|",
        ]
        for r in learners:
            p = r["play"]
            out.append(
                f"| {r['role']} | `{_spec(r['target'])}` | {100 * r['gain']:+.1f} [{100 * r['gain_low']:+.1f}, "
                f"{100 * r['gain_high']:+.1f}] | {_short(p['bluff'])} | {_short(p['caught'])} | "
                f"{_short(p['challenge'])} | {_short(p['challenge_success'])} | {r['minutes']:.0f} |"
            )
        out += ["", *_learner_findings(learners)]
        comparisons = scripted_comparisons(learners, cells or [], config.base, config.bluffer_challenge)
        compared = against_scripted(learners, comparisons)
        answer = learned_answer(agents, learners, comparisons, cells, config.base)
        out += ["", "### In short", "", *answer]
        if compared:
            out += [
                "",
                "Against the scripted chapter: each learner's win rate against its target next to the best "
                "scripted player in the same seat against the same opponents (the scripted bluffer at its best "
                "p, or the best challenging rule), 2 players. The two were measured on different deals, so the "
                "difference's interval combines both standard errors; the best scripted player is the best of "
                "several noisy estimates, which tilts the comparison a little towards it. A learner is a whole "
                "player: a difference says what learned play is worth against that opponent, of which bluffing or "
                "challenging is a part.",
                "",
                *compared,
            ]
    return out


def _scripted_target(row: dict[str, Any], base: str, bluffer_challenge: str) -> tuple[str, Any] | None:
    """('challenge', rule) for a bluffer row against a scripted challenger, ('bluff', p) for a
    challenger row against a scripted bluffer; None where the scripted chapter has no counterpart
    (another policy than the chapter's ``base``, another table than 2 players)."""
    import inspect

    from agents.registry import policy_class

    target = row["target"]
    if not isinstance(target, dict) or target.get("name") != base or row.get("players", 2) != 2:
        return None
    rule = target.get("challenge", inspect.signature(policy_class("uno", base)).parameters["challenge"].default)
    if row["role"] == "bluffer" and float(target.get("bluff", 0.0)) == 0.0:
        return ("challenge", rule)
    if row["role"] == "challenger" and rule == bluffer_challenge and "bluff" in target:
        return ("bluff", float(target["bluff"]))
    return None


def scripted_comparisons(
    learners: list[dict[str, Any]],
    cells: list[dict[str, Any]],
    base: str = "heuristic",
    bluffer_challenge: str = "smart",
) -> list[dict[str, Any]]:
    """Each learner with a counterpart in the scripted chapter, next to the best scripted player
    in its seat: the learner's rate, both win rates, the difference and its 95% interval, and
    the verdict (``better``, ``worse`` or ``same``)."""
    import math

    from tournament.stats import Z95, interval_se

    out = []
    for r in learners:
        kind = _scripted_target(r, base, bluffer_challenge)
        same = [c for c in cells if c["players"] == 2 and kind and c[kind[0]] == kind[1]]
        if not same:
            continue
        if kind[0] == "challenge":  # the learner sits where the scripted bluffer sat
            best = max(same, key=lambda c: c["win_rate"])
            scripted, who = best["win_rate"], f"the scripted bluffer at p={best['bluff']:g}"
            what = f"bluffs in {_rate(r['play']['bluff'])} of its chances"
        else:  # the learner sits where the challengers sat: their share is what the bluffer does not win
            best = min(same, key=lambda c: c["win_rate"])
            scripted, who = 1 - best["win_rate"], f"the `{best['challenge']}` rule"
            what = f"challenges {_rate(r['play']['challenge'])} of the Wild Draw Fours it faces"
        se = math.hypot(
            interval_se(best),  # the cell's clustered interval, as its table shows it
            math.sqrt(r["win_rate"] * (1 - r["win_rate"]) / r["games"]),
        )
        d = r["win_rate"] - scripted
        lo, hi = d - Z95 * se, d + Z95 * se
        verdict = "better" if lo > 0 else "worse" if hi < 0 else "same"
        out.append(
            {
                "learner": r,
                "scripted": scripted,
                "who": who,
                "what": what,
                "d": d,
                "lo": lo,
                "hi": hi,
                "verdict": verdict,
            }
        )
    return out


def against_scripted(learners: list[dict[str, Any]], comparisons: list[dict[str, Any]]) -> list[str]:
    """Each learner next to the scripted chapter's best player in its seat (``comparisons``,
    :func:`scripted_comparisons`), in words."""
    compared = {id(c["learner"]): c for c in comparisons}
    words = {
        "better": "learned play does **better**",
        "worse": "learned play does **worse**",
        "same": "no measurable difference",
    }
    lines = []
    for r in learners:
        c = compared.get(id(r))
        if c is None:
            habit = "bluffs in" if r["role"] == "bluffer" else "challenges"
            key = "bluff" if r["role"] == "bluffer" else "challenge"
            lines.append(
                f"- As the {r['role']} against `{_spec(r['target'])}`: the scripted chapter has no counterpart; "
                f"the learner {habit} {_rate(r['play'][key])} of its chances and its gain is "
                f"{100 * r['gain']:+.1f} [{100 * r['gain_low']:+.1f}, {100 * r['gain_high']:+.1f}] points."
            )
            continue
        lines.append(
            f"- As the {r['role']} against `{_spec(r['target'])}`: the learner {c['what']} and wins "
            f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]; {c['who']}, the best scripted choice "
            f"there, wins {c['scripted']:.3f}: {100 * c['d']:+.1f} [{100 * c['lo']:+.1f}, {100 * c['hi']:+.1f}] "
            f"points, {words[c['verdict']]}."
        )
    return lines


def _measured(r: dict[str, Any], key: str) -> bool:
    """Whether a learner's rate ``key`` was measured (it met such decisions at all)."""
    return r["play"][key]["rate"] is not None


def _gain_text(r: dict[str, Any]) -> str:
    return f"{100 * r['gain']:+.1f} [{100 * r['gain_low']:+.1f}, {100 * r['gain_high']:+.1f}] points"


def learned_answer(
    agents: list[dict[str, Any]],
    learners: list[dict[str, Any]],
    comparisons: list[dict[str, Any]],
    cells: list[dict[str, Any]] | None = None,
    base: str = "heuristic",
) -> list[str]:
    """The chapter's answer in plain words, computed from its numbers: does bluffing pay for
    learned play, what do learners settle on, and where that differs from the scripted chapter
    (``cells``: its 2-player cells, whose gains say whether scripted bluffing paid; ``base``:
    whom the agents played)."""
    lines = []
    verdicts = habit_verdicts(agents)
    for a in agents:
        if a["bluff"]["rate"] is None:
            continue
        bluffs = "seldom bluffs" if a["bluff"]["high"] < SETTLED else "bluffs"
        challenge = a["challenge"]
        if not challenge or challenge["rate"] is None or challenge["high"] < SETTLED:
            challenges = "seldom challenges"
        elif challenge["low"] > 0.5:
            challenges = "challenges more often than not"
        else:
            challenges = "challenges at times"
        habits = a.get("habits")
        earned = (
            f" In win rate against `{base}` on the same deals, its bluffs earn it "
            + _earns(habits["bluffs"])
            + " points and its challenges "
            + _earns(habits["challenges"])
            + " points."
            if habits
            else ""
        )
        lines.append(
            f"- The shipped {a['label']} {bluffs} and {challenges}: it bluffs in {_rate(a['bluff'])} of its "
            f"chances and challenges {_rate(a['challenge'])} Wild Draw Fours.{earned}"
        )
    scripted_pays = any(c["players"] == 2 and c["bluff"] > 0 and c.get("gain_low", 0) > 0 for c in cells or [])
    bluffers = [r for r in learners if r["role"] == "bluffer" and _measured(r, "bluff")]
    if bluffers:
        top = max(bluffers, key=lambda r: r["play"]["bluff"]["rate"])
        where = (
            f"against `{_spec(top['target'])}`, {_rate(top['play']['bluff'])} of its chances, gain {_gain_text(top)}"
        )
        rate = top["play"]["bluff"]
        if rate["high"] < SETTLED:
            either = " either" if cells and not scripted_pays else ""
            paying = [a for a in agents if a.get("habits") and verdicts[a["label"], "bluffs"][1]]
            seldom = "".join(
                f" Seldom is not never: the shipped {a['label']}'s own bluffs, {_rate(a['bluff'])} of its chances, "
                f"earn it {_earns(a['habits']['bluffs'])} points of win rate against `{base}`."
                for a in paying
            )
            lines.append(
                f"- **Bluffing does not pay for learned play{either}.** No learner trained as the bluffer settles "
                f"on bluffing in more than {100 * SETTLED:.0f}% of its chances (the highest rate: {where}): "
                f"trained to win as the bluffer, each learned to bluff seldom.{seldom}"
            )
        elif rate["low"] < SETTLED:
            lines.append(
                f"- A learner bluffs near {100 * SETTLED:.0f}% of its chances, and these games cannot tell whether "
                f"it settles above or below that: {where}."
            )
        elif top["gain_low"] > 0:
            lines.append(f"- **A learner settles on bluffing, and it pays**: {where}.")
        else:
            lines.append(f"- A learner settles on bluffing, with no measurable gain: {where}.")
    lines += _challenger_trend(learners)
    if comparisons:
        counts = {v: sum(c["verdict"] == v for c in comparisons) for v in ("better", "same", "worse")}
        widest = max(comparisons, key=lambda c: abs(c["d"]))
        lines.append(
            f"- Against the scripted chapter's best choice in the same seat: {counts['better']} of "
            f"{len(comparisons)} learners do measurably better, {counts['same']} no differently, "
            f"{counts['worse']} worse (the largest difference: {100 * widest['d']:+.1f} "
            f"[{100 * widest['lo']:+.1f}, {100 * widest['hi']:+.1f}] points, as the {widest['learner']['role']} "
            f"against `{_spec(widest['learner']['target'])}`). "
            + (
                "The scripted chapter's answer stands for learned play."
                if not counts["better"]
                else "Where a learner does better, learned play finds more than the scripted rules."
            )
        )
    return lines


def _earns(r: dict[str, Any]) -> str:
    """What a habit earns (:func:`habit_values`), in points of win rate with its interval."""
    return _points(r["earns"], r["earns_low"], r["earns_high"])


#: A rate whose interval lies below this is "not settled on" (bluffing, challenging).
SETTLED = 0.05


def _challenger_trend(learners: list[dict[str, Any]]) -> list[str]:
    """How the challengers' rates move with the bluffer's rate, for each scripted bluffer's
    base policy with at least two rates (a trend is claimed only where the intervals separate)."""
    by_base: dict[str, list[dict[str, Any]]] = {}
    for r in learners:
        target = r["target"]
        if r["role"] == "challenger" and isinstance(target, dict) and "bluff" in target and _measured(r, "challenge"):
            by_base.setdefault(_spec({k: v for k, v in target.items() if k != "bluff"}), []).append(r)
    lines = []
    for base, rows in by_base.items():
        if len(rows) < 2:
            continue
        rows.sort(key=lambda r: float(r["target"]["bluff"]))
        rates = [r["play"]["challenge"] for r in rows]
        per_game = sum(x["n"] for x in rates) / sum(r["play"]["games"] for r in rows)  # the games surveyed
        listed = ", ".join(
            f"{100 * x['rate']:.0f}% at p={float(r['target']['bluff']):g}" for x, r in zip(rates, rows, strict=True)
        )
        if all(x["high"] < SETTLED for x in rates):
            how = ": hardly ever, whatever the bluffer's rate."
        elif rates[0]["high"] < rates[-1]["low"] and all(b["rate"] >= a["rate"] for a, b in itertools.pairwise(rates)):
            how = ": more often as the bluffer bluffs more, as the scripted chapter's best rules do."
        else:
            how = (
                ": not rising with the bluffer's rate, so at this budget they have not settled on a rule "
                f"(a learner meets {per_game:.2f} challenge decisions per game, few next to its other decisions)."
            )
        lines.append(
            f"- Learned challengers against `{base}` bluffers challenge {listed} of the Wild Draw Fours they face{how}"
        )
    return lines


def _agent_findings(agents: list[dict[str, Any]]) -> list[str]:
    lines = []
    for a in agents:
        b, c = a["bluff"], a["challenge"]
        lines.append(
            f"- {a['label']} ({a['players']} players) bluffed in {_rate(b)} bluff chances"
            + (
                f"; {_rate(a['caught'])} of its bluffs were challenged "
                f"({_cards(a['bluff_card_swing'])} cards per bluff)"
                if a["bluffs"]
                else ""
            )
            + f". It challenged {_rate(c)} Wild Draw Fours"
            + (
                f"; {_rate(a['challenge_success'])} of its challenges caught a bluff "
                f"({_cards(a['challenge_card_swing'])} cards per challenge)"
                if c["n"] and c["rate"]
                else ""
            )
            + f"; {a['bluffs_faced']:,} of the Wild Draw Fours it faced were bluffs."
        )
    return lines


def _points(diff: float, low: float, high: float) -> str:
    """Points of win rate with the interval: two decimals, three where the interval is narrower
    than a hundredth of a point (a habit that shows in a handful of games)."""
    digits = 3 if max(abs(low), abs(high)) < 1e-4 else 2
    return f"{100 * diff:+.{digits}f} [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def habit_verdicts(agents: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[str, bool]]:
    """Per (agent label, habit): what the habit does to the win rate in words, and whether it
    measurably earns games once the table's tests are corrected for (Holm, over every agent's
    every habit): 'they earn it games' only then, as the study's other answers are judged."""
    from tournament.stats import holm, p_from_interval

    found = [(a["label"], habit, a["habits"][habit]) for a in agents if a.get("habits") for habit in HABITS]
    raw = [p_from_interval(r["earns"], r["earns_low"], r["earns_high"]) for _, _, r in found]
    out = {}
    for (label, habit, r), p, q in zip(found, raw, holm(raw), strict=True):
        holds = q < 0.05 or p >= 0.05
        if r["earns_low"] <= 0 <= r["earns_high"]:
            out[label, habit] = ("no difference these games can tell", False)
            continue
        sign = "earn it games" if r["earns_low"] > 0 else "cost it games"
        if holds:
            out[label, habit] = (f"they {sign}", r["earns_low"] > 0)
        else:
            out[label, habit] = (
                f"they {sign} by their own interval, not once the table's {len(found)} tests are corrected "
                f"for (Holm: p = {q:.2g})",
                False,
            )
    return out


def _win(r: dict[str, Any]) -> str:
    return f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"


def habits_table(config: Any, agents: list[dict[str, Any]]) -> list[str]:
    """What each agent's challenges and bluffs earn it in games won (:func:`habit_values`)."""
    agents = [a for a in agents if a.get("habits")]
    if not agents:
        return []
    out = [
        "",
        "**What the habits earn, in games.** Cards are not games: a challenge also shows the challenger the "
        "bluffer's hand (`revealed_hand` in the observation, docs/uno.md), and a card not played now is "
        f"played later. So each agent also plays `{config.base}` on the same deals with one habit taken away "
        "(`{name: restrained, base: <agent>, challenge: never}`: it accepts every Wild Draw Four; "
        "`bluff: never`: where it would bluff it plays its next choice; `agents/uno_policies.py`), "
        f"{config.habit_games:,} games each. Every version plays with a random stream per game "
        "(`streams: game`), so a game in which the habit never shows is the same game in each. What a habit "
        "earns is the agent's win rate as it is minus its win rate without the habit, paired game by game "
        "(points of win rate; 95% interval, normal approximation, clustered by deal; a verdict holds once "
        "the table's tests are corrected for, Holm).",
        "",
        "| agent | players | win rate as it is | without its challenges | challenges earn, points "
        "| without its bluffs | bluffs earn, points |",
        "|---|---:|---|---|---|---|---|",
    ]
    lines = []
    verdicts = habit_verdicts(agents)
    for a in agents:
        h = a["habits"]
        c, b = h["challenges"], h["bluffs"]
        out.append(
            f"| {a['label']} | {a['players']} | {_win(h['as_is'])} | {_win(c)} | "
            f"{_earns(c)} | {_win(b)} | {_earns(b)} |"
        )
        for habit, what, cards in (
            ("challenges", "challenges", a["challenge_card_swing"]),
            ("bluffs", "bluffs", a["bluff_card_swing"]),
        ):
            r = h[habit]
            verdict, earns = verdicts[a["label"], habit]
            why = ""
            if habit == "challenges" and earns and cards is not None and cards < 0:
                why = (
                    f", although each costs {-cards:.2f} cards on average: a challenge also shows it the "
                    "bluffer's hand, which these games say is worth more to it than the cards"
                )
            lines.append(
                f"- {a['label']} ({a['players']} players), its {what}: "
                f"{_earns(r)} points of win rate "
                f"({_win(h['as_is'])} as it is, {_win(r)} without): {verdict}{why}."
            )
    return [*out, "", *lines]


def _learner_findings(learners: list[dict[str, Any]]) -> list[str]:
    lines = []
    for r in learners:
        p = r["play"]
        rate = p["bluff"] if r["role"] == "bluffer" else p["challenge"]
        what = "bluffs in" if r["role"] == "bluffer" else "challenges"
        of = "of its bluff chances" if r["role"] == "bluffer" else "of the Wild Draw Fours it faces"
        gain = f"{100 * r['gain']:+.1f} points [{100 * r['gain_low']:+.1f}, {100 * r['gain_high']:+.1f}]"
        lines.append(f"- As the {r['role']} against `{_spec(r['target'])}`: it {what} {_rate(rate)} {of}; gain {gain}.")
    return lines


def earlier_learners(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The learners of the study's earlier data (``cells.json``), by (name, config digest)."""
    from tournament.bluff_study import CELLS_JSON

    try:
        rows = json.loads((folder / CELLS_JSON).read_text())["learners"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {(r["name"], r["config_sha256"]): r for r in rows if isinstance(r, dict) and "config_sha256" in r}
