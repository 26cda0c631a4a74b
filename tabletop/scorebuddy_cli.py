"""Score Buddy in a terminal: type each hand's points, see the standings after every hand.

The book is the same JSON file the web page uses: read again before every command and
saved after every change, so the terminal and the page can take turns on one table.
Commands::

    anna 37              standard scoring: Anna closed the hand and scores 37
    anna +20 +20 +50 7   quick tokens add up (97); card names count too: anna W GS R7
    anna 12, bo 0, cy W  reverse scoring: every player's own hand, separated by commas
    hand                 reverse scoring: asks each player's hand in turn
    calc R7 GS W         the value of some cards (77)
    undo | new | setup | csv FILE | help | quit

Bad input prints what was wrong and asks again; the book is unchanged.

Command line::

    python -m tabletop.scorebuddy_cli --store scores.json
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from envs.atomic import check_file_writable, write_atomically
from envs.cards import card_type
from tabletop.scorebuddy import (
    DEFAULT_STORE,
    DEFAULT_TARGET,
    TARGET_PRESETS,
    VARIANTS,
    ScoreBook,
    check_players,
    hand_value,
)

HELP = __doc__.split("\n\n")[2]  # the commands block of the docstring above
#: The command words: a player of that name could not be scored here (``csv 20`` writes a file).
COMMANDS = ("calc", "csv", "hand", "help", "new", "quit", "setup", "undo")


def _commands_named(players: Sequence[str]) -> list[str]:
    return [name for name in players if name.lower() in COMMANDS]


class _Quit(Exception):
    """The person typed quit (or the input ended)."""


def points_of(tokens: Sequence[str]) -> int:
    """Sum of quick tokens: numbers (``+20``, ``7``) and card names (``W``, ``GS``) by their value."""
    if not tokens:
        raise ValueError("give the points: numbers such as +20 +50 7, or card names such as R7 GS W")
    total, cards = 0, []
    for token in tokens:
        if re.fullmatch(r"\+?\d+", token):
            total += int(token)
        else:
            try:
                card_type(token)
            except ValueError:
                raise ValueError(
                    f"{token!r} is neither a number (7, +20) nor a card (R7, GS, BR, Y+2, W, W+4)"
                ) from None
            cards.append(token)
    return total + (hand_value(cards) if cards else 0)  # the cards together: no more copies than the deck has


def _split_name(book: ScoreBook, text: str) -> tuple[str, str]:
    """``(player, rest)`` from ``"anna +20 7"``: a whole name (names may hold spaces), or a
    unique start of one (``an``), case ignored."""
    text = text.strip()
    low = text.casefold()
    whole = [p for p in book.players if low == p.casefold() or low.startswith(p.casefold() + " ")]
    if whole:
        name = max(whole, key=len)
        return name, text[len(name) :]
    word, _, rest = text.partition(" ")
    starts = [p for p in book.players if p.casefold().startswith(word.casefold())]
    if len(starts) == 1:
        return starts[0], rest
    if len(starts) > 1:
        raise ValueError(f"{word!r} could be {' or '.join(starts)}: type more of the name")
    raise ValueError(f"no player called {word!r}; the players are {', '.join(book.players)} (type help for commands)")


def standings_table(book: ScoreBook) -> Table:
    """The leaderboard as a rich table, best first."""
    needed = "room left" if book.variant == "reverse" else "to target"
    played = f"{len(book.hands)} hand{'s' * (len(book.hands) != 1)} played"
    table = Table(title=f"target {book.target} · {book.variant}", caption=played)
    table.add_column("#", justify="right")
    table.add_column("player")
    table.add_column("total", justify="right")
    table.add_column(needed, justify="right")
    for row in book.standings():
        name = Text(row.name + (" ★" if row.leader else ""))  # a name is text, never markup: "[/b]" is a name
        table.add_row(str(row.rank), name, str(row.total), str(row.needed), style="bold yellow" if row.leader else None)
    return table


def _ask_setup(ask: Callable[[str], str], console: Console) -> ScoreBook:
    """Ask the players, target and variant until they make a valid table."""
    while True:
        try:
            answer = ask("players (comma separated): ").strip()
            if answer.lower() in ("help", "?"):  # a command, not a table of one player called help
                console.print("name the players, separated by commas (e.g. ann, bo, cy); quit to leave", markup=False)
                continue
            players = check_players([n for n in re.split(r"\s*,\s*", answer) if n])  # before the next question
            if _commands_named(players):
                raise ValueError(
                    f"{', '.join(_commands_named(players))}: a command here ({', '.join(COMMANDS)}), so its "
                    "points could not be typed; give the player another name"
                )
            presets = "/".join(map(str, TARGET_PRESETS))
            target_text = ask(f"target [{DEFAULT_TARGET}] ({presets} or any number): ").strip()
            if target_text and not target_text.isdecimal():
                raise ValueError(f"the target is a positive whole number such as {presets}, got {target_text!r}")
            variant = ask(f"scoring [{VARIANTS[0]}] ({'/'.join(VARIANTS)}): ").strip().lower() or VARIANTS[0]
            return ScoreBook(players, int(target_text or DEFAULT_TARGET), variant)
        except ValueError as err:
            _error(console, err)


def _reverse_hand(book: ScoreBook, text: str) -> None:
    """``anna 12, bo 0, cy W GS``: every player's own hand; the one with 0 points (if just one) closed."""
    points: dict[str, int] = {}
    for part in (p for p in text.split(",") if p.strip()):
        name, rest = _split_name(book, part)
        if name in points:
            raise ValueError(f"{name} is listed twice")
        points[name] = points_of(rest.split())
    _record_reverse(book, points)


def _ask_reverse_hand(book: ScoreBook, ask: Callable[[str], str], console: Console) -> dict[str, int]:
    """Ask each player's remaining cards in turn (Enter = 0); a bad entry asks that player again.
    The points by player, to record in the book as it is once all are given."""
    book.check_open()
    points: dict[str, int] = {}
    for name in book.players:
        while name not in points:
            try:
                text = ask(f"  {name} (points or cards, Enter = 0): ").strip()
                points[name] = points_of(text.split()) if text else 0
            except ValueError as err:
                _error(console, err)
    return points


def _record_reverse(book: ScoreBook, points: dict[str, int]) -> None:
    """Record every player's own hand; the one with 0 points (if just one) closed it."""
    zeros = [name for name, pts in points.items() if pts == 0]
    book.record_reverse_hand(points, zeros[0] if len(zeros) == 1 else None)


def _error(console: Console, err: object) -> None:
    """Bad input's message, as text (it may quote what was typed: "[/b]" is no markup)."""
    console.print(str(err), style="red", markup=False, highlight=False)


def _show(book: ScoreBook, console: Console) -> None:
    console.print(standings_table(book))
    if book.match_over:
        winners = book.winners()
        verb = "share the win" if len(winners) > 1 else "wins the match"
        console.print(Text(f"★ {' & '.join(winners)} {verb}!", style="bold green"), "(new: next match)")


def _confirm_erase(book: ScoreBook, ask: Callable[[str], str], what: str, again: bool = False) -> bool:
    """Ask before ``new`` or ``setup`` throws away recorded hands (the page asks too); ``again``:
    the book changed while the person answered, so the count they agreed to is not the count now."""
    if not book.hands:
        return True
    count = f"{len(book.hands)} hand{'s' * (len(book.hands) != 1)}"
    meanwhile = "the book changed meanwhile: " if again else ""
    return ask(f"{meanwhile}{what} erases the {count} recorded; go on? [y/N] ").strip().lower() in ("y", "yes")


def run_terminal(
    store_path: str | Path, input_fn: Callable[[str], str] = input, console: Console | None = None
) -> None:
    """Keep score at the terminal, saving the book to ``store_path`` after every change."""
    store_path = Path(store_path)
    check_file_writable(store_path, "--store")
    console = console or Console()

    def ask(prompt: str) -> str:
        try:
            text = input_fn(prompt)
        except EOFError:
            raise _Quit from None
        if text.strip().lower() in ("quit", "exit"):
            raise _Quit
        return text

    def read_again(book: ScoreBook) -> ScoreBook:
        """The book as the store holds it now (the page may have changed it: never write over its hands)."""
        if not store_path.exists():
            return book
        current = ScoreBook.load(store_path)
        if current.to_dict() != book.to_dict():
            console.print(f"(read {store_path} again: it changed since)", style="dim", markup=False)
        return current

    try:
        if store_path.exists():
            book = ScoreBook.load(store_path)
            console.print(f"Score Buddy: resuming {store_path} ({', '.join(book.players)})", markup=False)
            if _commands_named(book.players):  # named on the page, where no word is a command
                console.print(
                    f"note: {', '.join(_commands_named(book.players))} is a command here: score that player "
                    "on the page",
                    markup=False,
                )
        else:
            console.print("Score Buddy: a new table")
            book = _ask_setup(ask, console)
            book.save(store_path)
        console.print("[dim]type help for the commands[/dim]")
        _show(book, console)
        shown = len(book.hands)  # the hands the person last saw in the standings
        while True:
            line = ask("score> ").strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            command = word.lower()
            try:
                book = read_again(book)
                if command == "help":
                    console.print(HELP, markup=False)
                    continue
                if command == "calc":
                    if not rest.strip():
                        raise ValueError("calc needs the cards: calc R7 GS W")
                    console.print(f"{rest.strip()} = {hand_value(rest)} points", markup=False)
                    continue
                if command == "csv":
                    if not rest.strip():
                        raise ValueError("csv needs a file name: csv scores.csv")
                    out = Path(rest.strip())
                    if out.resolve() == store_path.resolve():
                        raise ValueError(f"{out} is the score book itself; give the CSV another name")
                    check_file_writable(out, "csv")
                    write_atomically(out, book.to_csv())
                    console.print(f"wrote {len(book.hands)} hand{'s' * (len(book.hands) != 1)} to {out}", markup=False)
                    continue
                if command == "undo" and not rest:
                    if len(book.hands) != shown:  # the page changed it: show what is there, undo nothing unseen
                        _show(book, console)
                        was, shown = shown, len(book.hands)
                        raise ValueError(
                            f"the table has {shown} hand(s), not the {was} shown here before (changed from another "
                            "page): nothing undone; undo again removes the last hand shown above"
                        )
                    book.undo(shown=shown)
                elif command == "new" and not rest:
                    if not _confirm_erase(book, ask, "a new match"):
                        continue
                    confirmed = len(book.hands)
                    book = read_again(book)  # the answer took a while: the page may have added a hand
                    if len(book.hands) > confirmed and not _confirm_erase(book, ask, "a new match", again=True):
                        continue
                    book.new_match()
                elif command == "setup" and not rest:
                    if not _confirm_erase(book, ask, "a new table"):
                        continue
                    new_book = _ask_setup(ask, console)
                    confirmed = len(book.hands)
                    book = read_again(book)
                    if len(book.hands) > confirmed and not _confirm_erase(book, ask, "a new table", again=True):
                        continue
                    book = new_book
                elif command == "hand" and not rest and book.variant == "reverse":
                    points = _ask_reverse_hand(book, ask, console)
                    book = read_again(book)  # recorded in the book as it is now
                    _record_reverse(book, points)
                elif book.variant == "reverse":
                    _reverse_hand(book, line)
                else:
                    name, points = _split_name(book, line)
                    book.record_hand(name, points_of(points.split()))
            except (ValueError, OSError) as err:
                _error(console, err)
                continue
            book.save(store_path)
            _show(book, console)
            shown = len(book.hands)
    except (_Quit, KeyboardInterrupt):  # Ctrl-C leaves as quit does: the book is saved already
        kept = f"the scores are kept in {store_path}" if store_path.exists() else "no table was set up, nothing saved"
        console.print(f"\nbye: {kept}", markup=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop.scorebuddy_cli", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=DEFAULT_STORE, help="the JSON score book (created if missing)")
    args = parser.parse_args(argv)
    try:
        run_terminal(args.store)
    except ValueError as err:  # a damaged book: say which file and why
        parser.error(str(err))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
