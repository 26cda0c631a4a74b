"""Play UNO or the trick game against the lab's agents, or keep a real table's score.

    python play.py --game uno --players 4 --opponents heuristic,agent,random   # terminal
    python play.py --game tricks --opponents heuristic                       # partner is an agent too
    python play.py --web                                                     # http://127.0.0.1:8000
    python play.py --score                                                   # Score Buddy in the terminal

Opponents are policy names (random, greedy, heuristic, rlcard_rule for UNO), ``agent``
(the shipped trained agent for the game and table size; classic UNO ships agents for 2 and 4
players and plays the 4-player one elsewhere, with a note) or ``agent:path/to/model.pt``;
one name plays every other seat. Rules options follow as ``key=value`` (e.g.
``stacking=true uno_penalty=4``). The web page serves both games and Score Buddy.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from envs.atomic import check_file_writable
from envs.config import int_in, seed_arg
from envs.games import GAMES
from tabletop.moves import MoveError
from tabletop.scorebuddy import DEFAULT_STORE, DEFAULT_TARGET


def _check_port(host: str, port: int, parser: argparse.ArgumentParser) -> None:
    """Refuse a host and port the server could not listen on, before announcing its address."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((host, port))
    except OSError as err:
        parser.error(f"cannot listen on {host} port {port}: {err.strerror or err} (try another --port)")


def _rules_options(items: Sequence[str], parser: argparse.ArgumentParser) -> dict:
    """Rules options as every command reads them (``envs.config.rules_options``)."""
    from envs.config import rules_options

    try:
        return rules_options(items)
    except ValueError as err:
        parser.error(str(err))


#: What applies where: a flag given for another mode is refused, not ignored.
GAME_FLAGS = ("game", "players", "opponents", "seat", "target", "seed", "record", "rules")
WEB_FLAGS = ("host", "allow_host", "port", "store")


def _refuse_flags(args: argparse.Namespace, parser: argparse.ArgumentParser, mode: str, allowed: Sequence[str]) -> None:
    given = [
        name
        for name in (*GAME_FLAGS, *WEB_FLAGS)
        if name not in allowed and getattr(args, name) not in (parser.get_default(name), [])
    ]
    if given:
        shown = ", ".join("key=value rules" if n == "rules" else "--" + n.replace("_", "-") for n in given)
        verb, it = ("does", "it") if len(given) == 1 else ("do", "them")
        parser.error(f"{shown} {verb} not apply to {mode}: leave {it} out")


def session_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict:
    return _rules_options(args.rules, parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="uno")
    parser.add_argument("--players", type=int, default=None, help="classic UNO: 2-10 (default 2); the trick game: 4")
    parser.add_argument(
        "--opponents", help="comma-separated policies for the other seats (default: the game's, heuristic)"
    )
    parser.add_argument(
        "--seat",
        type=int,
        default=0,
        help="your seat (UNO: seat 0 starts a match unless the first card says otherwise; tricks: a drawn leader)",
    )
    parser.add_argument(
        "--target",
        type=int,
        default=None,
        help=f"classic UNO: the match's target score (default {DEFAULT_TARGET}; 200, 300, ...)",
    )
    parser.add_argument("--seed", type=seed_arg, default=None, help="deal seed (default: a new one each time)")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="save each finished game's record: FILE, then FILE-2, FILE-3... for the next games",
    )
    parser.add_argument("--web", action="store_true", help="serve the web page instead of the terminal game")
    parser.add_argument("--host", default="127.0.0.1", help="the address the web server listens on")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name the web page is reached by (repeatable); the server answers only to "
        "localhost, 127.0.0.1, --host and these",
    )
    parser.add_argument("--port", type=int_in(1, 65535), default=8000)
    parser.add_argument("--score", action="store_true", help="Score Buddy in the terminal")
    parser.add_argument("--store", type=Path, default=Path(DEFAULT_STORE), help="Score Buddy's score file")
    parser.add_argument("rules", nargs="*", metavar="key=value", help="rules options, e.g. stacking=true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.score:
        _refuse_flags(args, parser, "--score (Score Buddy in the terminal)", ("store",))
        from tabletop.scorebuddy_cli import run_terminal

        try:
            run_terminal(args.store)
        except ValueError as err:  # a damaged score book: which file and why
            parser.error(str(err))
        return 0
    if args.web:
        _refuse_flags(args, parser, "--web (the page chooses the game, table and opponents)", WEB_FLAGS)
        import uvicorn

        from tabletop.guard import LOCAL_HOSTS
        from tabletop.web import create_app

        shown_host = f"[{args.host}]" if ":" in args.host else args.host  # an IPv6 address, as URLs write it
        hosts = [*LOCAL_HOSTS, shown_host, *args.allow_host]
        app = create_app(store_path=args.store, allowed_hosts=hosts)
        _check_port(args.host, args.port, parser)
        print(f"unolab table on http://{shown_host}:{args.port}/  (Score Buddy: /score/)")
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
        return 0

    from tabletop.session import TableSession
    from tabletop.terminal import TerminalGame

    _refuse_flags(args, parser, "the terminal game", GAME_FLAGS)
    rules = session_options(args, parser)
    try:
        if args.record is not None:
            check_file_writable(args.record, "--record")
        session = TableSession(
            game=args.game,
            num_players=args.players,
            opponents=None if args.opponents is None else [o for o in args.opponents.split(",") if o.strip()],
            seat=args.seat,
            rules=rules,
            target=args.target,
            seed=args.seed,  # None: a fresh deal, and later ones no record foretells
        )
    except (ValueError, MoveError) as err:
        parser.error(str(err).replace("target is the target", "--target is the target"))
    for note in session.notes:
        print(f"note: {note}")
    if getattr(session.rules, "match", False) and "match" not in rules:
        print(f"A match to {session.rules.target_score} points (--target; match=false plays single hands).")
    TerminalGame(session, record_path=args.record).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
