"""Score Buddy's logic: standard and reverse scoring, match end, undo, errors, storage, CSV,
and the terminal version driven by scripted input."""

from __future__ import annotations

import copy
import csv
import io
import json

import pytest
from rich.console import Console

from envs.cards import TYPE_VALUE, card_type
from tabletop.scorebuddy import DECK_POINTS, ScoreBook, hand_value
from tabletop.scorebuddy_cli import main, points_of, run_terminal


def book3(target: int = 200, variant: str = "standard") -> ScoreBook:
    return ScoreBook(["Anna", "Bo", "Cy"], target, variant)


def state(book: ScoreBook) -> dict:
    return copy.deepcopy(book.to_dict())


# ------------------------------------------------------------------ hand values
@pytest.mark.parametrize(
    ("cards", "value"),
    [
        ("R7 GS W+4", 77),
        (["R7", "GS", "W+4"], 77),
        ("y0", 0),
        ("BR Y+2 RR", 60),
        ("W, W+4, B9", 109),
        ("", 0),
    ],
)
def test_hand_value_known_hands(cards, value):
    assert hand_value(cards) == value


def test_hand_value_agrees_with_the_deck_table():
    for name in ("R1", "G9", "BS", "YR", "R+2", "W", "W+4"):
        assert hand_value(name) == int(TYPE_VALUE[card_type(name)])
    assert DECK_POINTS == 1240


def test_hand_value_explains_bad_cards():
    with pytest.raises(ValueError, match=r"unknown card 'X9'.*colour letter.*W\+4"):
        hand_value("R7 X9")
    with pytest.raises(ValueError, match="more copies than the 108-card deck"):
        hand_value("W+4 " * 5)
    with pytest.raises(ValueError, match="W x32768"):  # counted in int16, it wrapped to -1,638,400 points
        hand_value("W " * 32768)


# ------------------------------------------------------------------ set-up
@pytest.mark.parametrize(
    ("players", "target", "variant", "message"),
    [
        (["Anna"], 500, "standard", "2-10 players"),
        ([f"P{i}" for i in range(11)], 500, "standard", "2-10 players"),
        (["Anna", "anna"], 500, "standard", "two players are called"),
        (["Anna", "  "], 500, "standard", "non-empty name"),
        (["Anna", "+Bo"], 500, "standard", "may not be a number"),
        (["Anna", "42"], 500, "standard", "may not be a number"),
        (["Anna", "x" * 30], 500, "standard", "too long"),
        ("Anna,Bo", 500, "standard", "list of 2-10 names"),
        (["Anna", "Bo"], 0, "standard", "positive whole number"),
        (["Anna", "Bo"], "500", "standard", "positive whole number"),
        (["Anna", "Bo"], True, "standard", "positive whole number"),
        (["Anna", "Bo"], 500, "lowball", "allowed: standard, reverse"),
    ],
)
def test_bad_setup_is_refused(players, target, variant, message):
    with pytest.raises(ValueError, match=message):
        ScoreBook(players, target, variant)


def test_names_are_tidied_and_matched_without_case():
    book = ScoreBook(["  Anna ", "Bo  Bianchi"])
    assert book.players == ["Anna", "Bo Bianchi"]
    assert book.target == 500 and book.variant == "standard"
    assert book.player("bo bianchi") == "Bo Bianchi"


# ------------------------------------------------------------------ standard scoring
def test_standard_scoring_leaderboard_and_needed():
    book = book3()
    book.record_hand("anna", 40)
    book.record_hand("Cy", 90)
    book.record_hand("Anna", 7)
    assert book.totals() == {"Anna": 47, "Bo": 0, "Cy": 90}
    rows = book.standings()
    assert [(r.name, r.total, r.needed, r.rank, r.leader) for r in rows] == [
        ("Cy", 90, 110, 1, True),
        ("Anna", 47, 153, 2, False),
        ("Bo", 0, 200, 3, False),
    ]
    assert not book.match_over and book.winners() == []


def test_standard_match_ends_on_reaching_the_target():
    book = book3()
    book.record_hand("Bo", 199)
    assert not book.match_over
    book.record_hand("Bo", 1)  # exactly 200 reaches the target (>=)
    assert book.match_over and book.winners() == ["Bo"]
    assert book.standings()[0].needed == 0
    before = state(book)
    with pytest.raises(ValueError, match=r"the match is over \(Bo won\)"):
        book.record_hand("Anna", 5)
    assert state(book) == before


def test_standard_ties_share_rank():
    book = book3()
    book.record_hand("Anna", 30)
    book.record_hand("Cy", 30)
    assert [(r.name, r.rank, r.leader) for r in book.standings()] == [
        ("Anna", 1, True),
        ("Cy", 1, True),
        ("Bo", 3, False),
    ]


def test_no_leader_before_the_first_hand():
    assert not any(r.leader for r in book3().standings())


# ------------------------------------------------------------------ reverse scoring
def test_reverse_scoring_lowest_wins_after_passing_the_threshold():
    book = book3(target=100, variant="reverse")
    book.record_reverse_hand({"Anna": 0, "Bo": 60, "Cy": 40}, closer="Anna")
    book.record_reverse_hand({"anna": 30, "Bo": 40, "Cy": 0})
    assert book.totals() == {"Anna": 30, "Bo": 100, "Cy": 40}
    assert not book.match_over  # 100 is at the threshold, not past it (>)
    rows = book.standings()
    assert [(r.name, r.total, r.needed, r.rank) for r in rows] == [
        ("Anna", 30, 70, 1),
        ("Cy", 40, 60, 2),
        ("Bo", 100, 0, 3),
    ]
    book.record_reverse_hand({"Anna": 10, "Bo": 1, "Cy": 0}, closer="Cy")
    assert book.match_over and book.winners() == ["Anna", "Cy"]  # tied lowest share the win
    assert book.hands[-1].closer == "Cy"


def test_reverse_hand_errors_change_nothing():
    book = book3(variant="reverse")
    book.record_reverse_hand({"Anna": 0, "Bo": 5, "Cy": 7})
    before = state(book)
    bad = [
        ({"Anna": 0, "Bo": 5}, "missing: Cy"),
        ({"Anna": 0, "Bo": 5, "Cy": -1}, "between 0 and 1240"),
        ({"Anna": 0, "Bo": 5, "Cy": 2.5}, "whole number"),
        ({"Anna": 0, "Bo": 5, "Zed": 1}, "no player called 'Zed'"),
        ({"Anna": 0, "anna": 1, "Bo": 5, "Cy": 1}, "listed twice"),
        ({"Anna": 1000, "Bo": 1000, "Cy": 0}, "more than the whole deck"),
    ]
    for points, message in bad:
        with pytest.raises(ValueError, match=message):
            book.record_reverse_hand(points)
        assert state(book) == before
    with pytest.raises(ValueError, match="reverse scoring"):
        book.record_hand("Anna", 10)
    assert state(book) == before


# ------------------------------------------------------------------ errors, undo, new match
def test_standard_hand_errors_change_nothing():
    book = book3()
    book.record_hand("Anna", 12)
    before = state(book)
    for closer, points, message in [
        ("Zed", 10, "no player called 'Zed'; the players are Anna, Bo, Cy"),
        ("Bo", -3, "between 0 and 1240"),
        ("Bo", 5000, "between 0 and 1240"),
        ("Bo", "20", "whole number"),
        ("Bo", True, "whole number"),
    ]:
        with pytest.raises(ValueError, match=message):
            book.record_hand(closer, points)
        assert state(book) == before
    with pytest.raises(ValueError, match="standard scoring"):
        book.record_reverse_hand({"Anna": 1, "Bo": 2, "Cy": 3})
    assert state(book) == before


def test_undo_and_new_match():
    book = book3()
    with pytest.raises(ValueError, match="no hand to undo"):
        book.undo()
    book.record_hand("Anna", 150)
    book.record_hand("Anna", 60)
    assert book.match_over
    undone = book.undo()  # a finished match can be corrected
    assert undone.closer == "Anna" and undone.points["Anna"] == 60
    assert not book.match_over and book.totals()["Anna"] == 150
    book.record_hand("Bo", 3)
    book.new_match()
    assert book.hands == [] and book.players == ["Anna", "Bo", "Cy"] and book.target == 200


# ------------------------------------------------------------------ storage and CSV
def test_save_load_round_trip(tmp_path):
    path = tmp_path / "book.json"
    book = book3(variant="reverse")
    book.record_reverse_hand({"Anna": 0, "Bo": 20, "Cy": 13}, closer="Anna")
    book.save(path)
    assert ScoreBook.load(path) == book
    assert [p.name for p in tmp_path.iterdir()] == ["book.json"]  # no temporary file left behind
    book.record_reverse_hand({"Anna": 5, "Bo": 0, "Cy": 0})
    book.save(path)  # replaces the old file
    assert ScoreBook.load(path).totals() == {"Anna": 5, "Bo": 20, "Cy": 13}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"players": [', "not a valid JSON score book"),
        ("[1, 2]", "JSON object"),
        ('{"format": "other", "version": 1}', "not a Score Buddy book"),
        (
            '{"format": "unolab-scorebuddy", "version": 1, "players": ["A", "B"], "target": 100, "variant": "standard",'
            ' "hands": [{"closer": "A", "points": {"A": 10, "B": 5}}]}',
            "hand 1: a standard-scoring hand lists every player with 0 except the closer",
        ),
        (
            '{"format": "unolab-scorebuddy", "version": 1, "players": ["A", "B"], "target": 100, "variant": "standard",'
            ' "hands": [{"closer": "A", "points": {"A": 100, "B": 0}}, {"closer": "B", "points": {"A": 0, "B": 1}}]}',
            "hand 2: the match is over",
        ),
        ('{"format": "unolab-scorebuddy", "version": 1, "players": ["A", "B"], "colour": 1}', "unknown fields colour"),
        # a huge target once poisoned the store (every later read failed inside the engine)
        (
            '{"format": "unolab-scorebuddy", "version": 1, "players": ["A", "B"], "target": 1' + "0" * 30 + "}",
            "the target must be at most 1,000,000",
        ),
        ("[" * 100_000 + "]" * 100_000, "not a valid JSON score book"),
        ('{"players": ' + "9" * 5000 + "}", "not a valid JSON score book"),
        ('{"players": "' + "x" * (9 << 20) + '"}', "larger than a score book can be"),
    ],
)
def test_damaged_file_names_file_and_problem(tmp_path, text, message):
    path = tmp_path / "scores.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        ScoreBook.load(path)
    assert str(path) in str(err.value)


def test_csv_rows_and_running_totals():
    book = book3()
    book.record_hand("Bo", 30)
    book.record_hand("Anna", 12)
    book.record_hand("Bo", 5)
    rows = list(csv.reader(io.StringIO(book.to_csv())))
    assert rows == [
        ["hand", "closer", "Anna", "Bo", "Cy", "Anna total", "Bo total", "Cy total"],
        ["1", "Bo", "0", "30", "0", "0", "30", "0"],
        ["2", "Anna", "12", "0", "0", "12", "30", "0"],
        ["3", "Bo", "0", "5", "0", "12", "35", "0"],
    ]


# ------------------------------------------------------------------ terminal
def scripted(lines: list[str]):
    feed = iter(lines)

    def input_fn(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return input_fn


def terminal(store, lines: list[str]) -> str:
    out = io.StringIO()
    run_terminal(store, input_fn=scripted(lines), console=Console(file=out, width=100, color_system=None))
    return out.getvalue()


def test_points_of_tokens():
    assert points_of(["+20", "+20", "+50", "7"]) == 97
    assert points_of(["W", "gs", "R7"]) == 77
    with pytest.raises(ValueError, match="neither a number"):
        points_of(["-5"])
    with pytest.raises(ValueError, match="the deck has 4"):  # the cards together, as calc counts them
        points_of(["+20", *["W"] * 5])


def test_the_csv_command_never_overwrites_the_score_book(tmp_path):
    store = tmp_path / "scores.json"
    out = " ".join(terminal(store, ["Anna, Bo", "200", "", "anna 20", f"csv {store}", "calc", "quit"]).split())
    assert "is the score book itself" in out and "calc needs the cards" in out
    assert ScoreBook.load(store).totals() == {"Anna": 20, "Bo": 0}


def test_terminal_standard_session(tmp_path):
    store = tmp_path / "scores.json"
    out = terminal(
        store,
        [
            "Anna, Bo, Cy",
            "200",
            "",
            "anna +20 +20 +50 7",  # 97
            "zed 4",  # unknown player: message, nothing changes
            "bo seven",  # bad token
            "b W GS",  # a unique start of a name; cards count: 70
            "calc R7 GS W+4",
            "help",
            "undo",
            "cy 3",
            "quit",
        ],
    )
    assert "no player called 'zed'" in out
    assert "'seven' is neither a number" in out
    assert "R7 GS W+4 = 77 points" in out
    assert "undo | new | setup | csv FILE | help | quit" in out
    book = ScoreBook.load(store)
    assert book.totals() == {"Anna": 97, "Bo": 0, "Cy": 3}
    assert "Anna ★" in out and "to target" in out

    # Resuming the same file; the match ends at 200 and further hands are refused.
    out = terminal(store, ["anna 103", "bo 5", f"csv {tmp_path / 'out.csv'}", "new", "y", "bo 1"])
    assert "resuming" in out
    assert "Anna wins the match" in out
    assert "the match is over (Anna won)" in out
    assert (tmp_path / "out.csv").read_text().splitlines()[-1] == "3,Anna,103,0,0,200,0,3"
    assert ScoreBook.load(store).totals() == {"Anna": 0, "Bo": 1, "Cy": 0}


def test_terminal_names_and_input_are_text_not_markup(tmp_path):
    """Rich markup in a name or a typed line is shown as typed: it crashed the terminal, and a
    saved name crashed every later start."""
    store = tmp_path / "scores.json"
    out = terminal(store, ["Anna, [/b], [red]Bo", "", "", "[/b] 5", "[red]bo 7", "[/x] 3", "calc [/b]", "quit"])
    assert "[/b]" in out and "[red]Bo" in out and "no player called '[/x]'" in out
    assert ScoreBook.load(store).totals() == {"Anna": 0, "[/b]": 5, "[red]Bo": 7}
    assert "resuming" in terminal(store, ["quit"])


def test_terminal_reads_the_book_again_before_each_command(tmp_path):
    """A hand the page recorded meanwhile is kept, not written over by the terminal's copy."""
    store = tmp_path / "scores.json"
    terminal(store, ["Anna, Bo", "", "", "quit"])

    def lines():
        yield "anna 10"
        book = ScoreBook.load(store)  # the page records a hand in between
        book.record_hand("Bo", 40)
        book.save(store)
        yield "anna 5"
        yield "quit"

    feed = lines()
    out = io.StringIO()
    run_terminal(store, input_fn=lambda _prompt: next(feed), console=Console(file=out, width=400))
    assert ScoreBook.load(store).totals() == {"Anna": 15, "Bo": 40}
    assert "it changed since" in out.getvalue()


def test_terminal_follow_up_questions_record_into_the_book_as_it_is_then(tmp_path):
    """A hand the page records while the terminal asks a player's points, or asks before a new
    match, is kept (or counted in the question asked again), not written over."""
    store = tmp_path / "rev.json"
    terminal(store, ["Anna, Bo", "", "reverse", "quit"])

    def page_hand() -> None:
        book = ScoreBook.load(store)
        book.record_reverse_hand({"Anna": 3, "Bo": 0}, "Bo")
        book.save(store)

    def lines():
        yield "hand"
        yield "10"  # Anna's points
        page_hand()  # the page records a whole hand meanwhile
        yield "0"  # Bo's
        yield "new"
        page_hand()
        yield "y"  # agreed to erase 2 hands: there are 3 now, so it asks again
        yield "n"
        yield "quit"

    feed = lines()
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)

    run_terminal(store, input_fn=ask, console=Console(file=io.StringIO(), width=200))
    assert len(ScoreBook.load(store).hands) == 3
    assert "the book changed meanwhile: a new match erases the 3 hands recorded; go on? [y/N] " in prompts


def test_terminal_new_and_setup_ask_before_erasing_hands(tmp_path):
    store = tmp_path / "scores.json"
    answers = iter(["Anna, Bo", "", "", "anna 20", "new", "n", "setup", "", "bo 5", "new", "yes", "quit"])
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    run_terminal(store, input_fn=ask, console=Console(file=io.StringIO(), width=100))
    assert "a new match erases the 1 hand recorded; go on? [y/N] " in prompts
    assert "a new table erases the 1 hand recorded; go on? [y/N] " in prompts
    assert "a new match erases the 2 hands recorded; go on? [y/N] " in prompts
    assert ScoreBook.load(store).hands == []


def test_terminal_reverse_session(tmp_path):
    store = tmp_path / "rev.json"
    out = terminal(
        store,
        [
            "Anna, Bo",
            "x",  # bad target: asked again from the players
            "Anna, Bo",
            "100",
            "reverse",
            "anna 0, bo W GS",  # one line: 0 and 70
            "anna 3",  # Bo missing
            "hand",
            "",  # Anna went out
            "zz",  # bad entry: Bo asked again
            "+20 +20",
            "quit",
        ],
    )
    assert "got 'x'" in out
    assert "missing: Bo" in out
    assert "'zz' is neither" in out
    assert "Anna wins the match" in out  # Bo passed 100 with 110
    book = ScoreBook.load(store)
    assert book.variant == "reverse" and book.totals() == {"Anna": 0, "Bo": 110}
    assert [h.closer for h in book.hands] == ["Anna", "Anna"]


def test_main_reports_a_damaged_store(tmp_path, capsys):
    store = tmp_path / "bad.json"
    store.write_text("{")
    with pytest.raises(SystemExit):
        main(["--store", str(store)])
    assert "not a valid JSON score book" in capsys.readouterr().err


def test_saved_json_is_readable(tmp_path):
    store = tmp_path / "scores.json"
    terminal(store, ["Anna, Bo", "", "", "anna 9"])
    data = json.loads(store.read_text())
    assert data["target"] == 500 and data["hands"] == [{"closer": "Anna", "points": {"Anna": 9, "Bo": 0}}]


def test_help_at_setup_is_answered_and_leaving_before_a_table_says_nothing_was_saved(tmp_path):
    store = tmp_path / "book.json"
    text = terminal(store, ["help", "quit"])
    assert "name the players, separated by commas" in text
    assert "bye: no table was set up, nothing saved" in text and not store.exists()
    text = terminal(store, ["ann, bo", "", "", "quit"])
    assert f"bye: the scores are kept in {store}" in " ".join(text.split()) and store.exists()


def test_terminal_setup_refuses_bad_names_before_asking_the_target(tmp_path):
    """Two players with one name are refused at once; the target is asked only of a good list."""
    prompts: list[str] = []
    feed = iter(["ann, bo, Ann", "ann, bo", "", "", "quit"])

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)

    out = io.StringIO()
    run_terminal(tmp_path / "s.json", input_fn=ask, console=Console(file=out, width=200, color_system=None))
    assert "two players are called 'Ann'" in out.getvalue()
    assert [p.split(" ")[0] for p in prompts[:3]] == ["players", "players", "target"]


def test_terminal_undo_never_removes_a_hand_it_did_not_show(tmp_path):
    """A hand the page added since the last standings is shown, and the undo refused."""
    store = tmp_path / "scores.json"
    terminal(store, ["Anna, Bo", "", "", "anna 10", "quit"])

    def lines():
        book = ScoreBook.load(store)  # the page records a hand before the terminal's undo
        book.record_hand("Bo", 40)
        book.save(store)
        yield "help"  # read again, shows no standings: the page's hand is still unseen
        yield "undo"
        yield "undo"  # now it has been shown: the page's hand goes
        yield "quit"

    feed = lines()
    out = io.StringIO()
    run_terminal(store, input_fn=lambda _prompt: next(feed), console=Console(file=out, width=400))
    assert "not the 1 shown here before" in out.getvalue() and "nothing undone" in out.getvalue()
    assert ScoreBook.load(store).totals() == {"Anna": 10, "Bo": 0}


def test_terminal_setup_refuses_a_player_named_like_a_command(tmp_path):
    out = io.StringIO()
    feed = iter(["Csv, Bo", "Cy, Bo", "", "", "quit"])
    run_terminal(tmp_path / "s.json", input_fn=lambda _p: next(feed), console=Console(file=out, width=200))
    assert "Csv: a command here" in out.getvalue()
    assert ScoreBook.load(tmp_path / "s.json").players == ["Cy", "Bo"]
