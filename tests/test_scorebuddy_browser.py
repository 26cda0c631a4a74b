"""Score Buddy's page in headless Chromium: set-up, quick keys and keypad, leaderboard,
undo, reload and server restart, the reverse variant's winner banner, the calculator.

With ``UNOLAB_SCREENSHOTS=1`` the test also refreshes the screenshots in docs/screenshots
(off by default, so CI never rewrites the docs).
"""

from __future__ import annotations

import os
from pathlib import Path

from tabletop.scorebuddy import ScoreBook
from tabletop.scorebuddy_web import create_app

SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def expect(target):
    from playwright.sync_api import expect as playwright_expect  # imported late: the fixtures skip without it

    return playwright_expect(target)


def screenshot(page, name: str) -> None:
    if os.environ.get("UNOLAB_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def set_up(page, players: list[str], preset: int, reverse: bool = False) -> None:
    for i, name in enumerate(players):
        page.get_by_test_id(f"player-name-{i}").fill(name)
    page.get_by_test_id(f"preset-{preset}").click()
    expect(page.get_by_test_id("target")).to_have_value(str(preset))
    if reverse:
        page.locator("#variant-reverse").check()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("table")).to_be_visible()


def tap(page, *keys: str) -> None:
    """Tap quick keys (``"+20"``) and keypad digits (``"7"``) in order."""
    for key in keys:
        page.locator(f"#key-{key[1:]}" if key.startswith("+") else f"#digit-{key}").click()


def check_board(page, rows: list[tuple[str, int, int]]) -> None:
    """The leaderboard shows these (name, total, needed) rows, in this order."""
    for i, (name, total, needed) in enumerate(rows):
        row = page.get_by_test_id(f"standing-{i}")
        expect(row.locator(".name")).to_have_text(name)
        expect(row.locator(".total")).to_have_text(str(total))
        expect(row.locator(".needed")).to_have_text(str(needed))


def record(page, closer: str, *keys: str, total: int) -> None:
    page.get_by_test_id(f"closer-{closer}").click()
    tap(page, *keys)
    expect(page.get_by_test_id("entry-sum")).to_have_text(str(total))
    page.get_by_test_id("confirm").click()
    expect(page.get_by_test_id("entry-sum")).to_have_text("0")


def test_standard_match_in_the_browser(live_server, page, tmp_path):
    store = tmp_path / "scores.json"
    page.goto(live_server(create_app(store)) + "/score/")
    expect(page.get_by_test_id("setup")).to_be_visible()
    set_up(page, ["Anna", "Bo", "Cy"], 200)
    expect(page.get_by_test_id("match-info")).to_have_text("Standard scoring · target 200")
    expect(page.get_by_test_id("confirm")).to_be_disabled()  # nobody chosen yet

    record(page, "Bo", "+20", "+20", "+50", "7", total=97)
    check_board(page, [("Bo", 97, 103), ("Anna", 0, 200), ("Cy", 0, 200)])

    page.get_by_test_id("closer-Cy").click()
    tap(page, "+10", "1", "5")
    expect(page.get_by_test_id("entry-sum")).to_have_text("25")
    page.get_by_test_id("clear").click()
    expect(page.get_by_test_id("entry-sum")).to_have_text("0")
    record(page, "Cy", "+50", "+50", "+20", total=120)
    check_board(page, [("Cy", 120, 80), ("Bo", 97, 103), ("Anna", 0, 200)])

    record(page, "Anna", "8", total=8)
    check_board(page, [("Cy", 120, 80), ("Bo", 97, 103), ("Anna", 8, 192)])
    page.get_by_test_id("undo").click()
    check_board(page, [("Cy", 120, 80), ("Bo", 97, 103), ("Anna", 0, 200)])

    # The calculator counts card notation and adds it to the entry.
    page.get_by_test_id("calc-cards").fill("R7 Q5")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("error")).to_contain_text("unknown card 'Q5'")
    page.get_by_test_id("calc-cards").fill("R7 GS W+4")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("calc-value")).to_have_text("77")
    expect(page.get_by_test_id("error")).to_be_hidden()
    page.get_by_test_id("closer-Anna").click()
    page.get_by_test_id("calc-add").click()
    tap(page, "3")
    expect(page.get_by_test_id("entry-sum")).to_have_text("80")
    page.get_by_test_id("confirm").click()
    check_board(page, [("Cy", 120, 80), ("Bo", 97, 103), ("Anna", 80, 120)])
    expect(page.get_by_test_id("history").locator("li")).to_have_count(3)
    expect(page.get_by_test_id("standing-0")).to_have_class("leader")
    page.get_by_test_id("closer-Bo").click()  # a hand being entered, for the screenshot (reload drops it)
    tap(page, "+20", "+50", "4")
    expect(page.get_by_test_id("chips").locator(".chip")).to_have_count(2)
    expect(page.get_by_test_id("entry-sum")).to_have_text("74")
    screenshot(page, "scorebuddy.png")

    page.reload()
    check_board(page, [("Cy", 120, 80), ("Bo", 97, 103), ("Anna", 80, 120)])
    assert ScoreBook.load(store).totals() == {"Anna": 80, "Bo": 97, "Cy": 120}

    # A new server on the same file (as after a restart) resumes the same table.
    page.goto(live_server(create_app(store)) + "/score/")
    check_board(page, [("Cy", 120, 80), ("Bo", 97, 103), ("Anna", 80, 120)])
    record(page, "Cy", "+50", "+20", "1", "0", total=80)
    expect(page.get_by_test_id("banner")).to_have_text("★ Cy wins the match! ★")
    expect(page.get_by_test_id("confirm")).to_be_disabled()
    page.get_by_test_id("new-match").click()
    check_board(page, [("Anna", 0, 200), ("Bo", 0, 200), ("Cy", 0, 200)])
    expect(page.get_by_test_id("banner")).to_be_hidden()


def test_reverse_match_in_the_browser(live_server, page, tmp_path):
    store = tmp_path / "reverse.json"
    page.goto(live_server(create_app(store)) + "/score/")
    set_up(page, ["Anna", "Bo", "Cy"], 300, reverse=True)
    expect(page.get_by_test_id("match-info")).to_have_text("Reverse scoring · target 300")
    expect(page.locator("#needed-head")).to_have_text("Room left")

    # Hand 1: Anna went out; quick keys and keypad fill the selected player's hand.
    page.get_by_test_id("closed-Anna").click()
    page.get_by_test_id("pick-Bo").click()
    tap(page, "+50", "+20", "4")
    page.get_by_test_id("pick-Cy").click()
    tap(page, "+20", "+20", "9")
    expect(page.get_by_test_id("entry-Bo").locator(".rev-sum")).to_have_text("74")
    expect(page.get_by_test_id("entry-Cy").locator(".rev-sum")).to_have_text("49")
    page.get_by_test_id("confirm").click()
    check_board(page, [("Anna", 0, 300), ("Cy", 49, 251), ("Bo", 74, 226)])

    # Hand 2: Bo went out, Cy holds a lot.
    page.get_by_test_id("closed-Bo").click()
    page.get_by_test_id("pick-Anna").click()
    tap(page, "1", "2")
    page.get_by_test_id("pick-Cy").click()
    tap(page, "+50", "+50", "+50", "+50", "+20", "+20", "+10")
    page.get_by_test_id("confirm").click()
    check_board(page, [("Anna", 12, 288), ("Bo", 74, 226), ("Cy", 299, 1)])
    expect(page.get_by_test_id("banner")).to_be_hidden()  # 299 has not passed 300

    # Hand 3: Cy passes the threshold; lowest total wins.
    page.get_by_test_id("closed-Anna").click()
    page.get_by_test_id("pick-Cy").click()
    tap(page, "2")
    page.get_by_test_id("confirm").click()
    expect(page.get_by_test_id("banner")).to_have_text("★ Anna wins the match! ★")
    check_board(page, [("Anna", 12, 288), ("Bo", 74, 226), ("Cy", 301, 0)])
    expect(page.get_by_test_id("confirm")).to_be_disabled()
    screenshot(page, "scorebuddy_reverse.png")

    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("banner")).to_be_hidden()
    assert ScoreBook.load(store).totals() == {"Anna": 12, "Bo": 74, "Cy": 299}


def test_score_buddy_links_back_to_the_game_page(live_server, page, tmp_path):
    from tabletop.web import create_app as game_app  # play.py --web: the game at /, Score Buddy at /score/

    page.goto(live_server(game_app(tmp_path / "scores.json")) + "/score/")
    page.get_by_test_id("back-to-game").click()
    page.wait_for_url(lambda url: "/score" not in url)
    page.wait_for_function("document.body.dataset.state === 'setup'")  # the game page's table setup


def test_changing_the_table_asks_before_it_drops_the_hands(live_server, page, tmp_path):
    """ "Change table" then "Start the match" starts a new match: the hands recorded so far go
    only if the person confirms (here the dialog is declined: nothing changes)."""
    store = tmp_path / "scores.json"
    page.goto(live_server(create_app(store)) + "/score/")
    set_up(page, ["Anna", "Bo", "Cy"], 200)
    record(page, "Anna", "+20", total=20)
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("#change-setup").click()
    page.get_by_test_id("start").click()
    assert asked and "dropped" in asked[0]
    assert ScoreBook.load(store).totals() == {"Anna": 20, "Bo": 0, "Cy": 0}
