"""The game page in headless Chromium: whole games played by clicking, as a person would.

Set ``UNOLAB_SCREENSHOTS=1`` to refresh the README's screenshots in ``docs/screenshots``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tabletop.web import create_app

SHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
#: A 2-player deal (against ``random``, match to 1 point: one hand) in which the clicking
#: strategy below plays a Wild with the colour picker, challenges a Wild Draw Four and
#: declares UNO before going out.
UNO_SEED = 13
IDLE = "['your-turn', 'hand-over', 'over'].includes(document.body.dataset.state)"


def shoot(page: Any, name: str) -> None:
    if os.environ.get("UNOLAB_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name))


@pytest.fixture
def app_url(live_server: Any, tmp_path: Path) -> str:
    return live_server(create_app(store_path=tmp_path / "scores.json"))


def deal(
    page: Any,
    url: str,
    game: str,
    seed: int,
    opponents: str = "random",
    players: int = 2,
    target: int = 1,
    scoring: str = "standard",
) -> None:
    page.goto(f"{url}/?fast=1")
    page.wait_for_function("document.body.dataset.state === 'setup'")
    page.check(f"input[name=game][value={game}]")
    if game == "uno":
        page.fill("#players", str(players))
        page.dispatch_event("#players", "change")
        page.fill("#target", str(target))
        page.select_option("#scoring", scoring)
    page.wait_for_function(
        f"document.querySelectorAll('#seats select').length === {3 if game == 'tricks' else players - 1}"
    )
    seats = page.locator("#seats select")  # a locator finds the element again if the page re-renders it
    for i in range(seats.count()):
        seats.nth(i).select_option(opponents)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_function(IDLE)


def visible(page: Any, selector: str) -> bool:
    el = page.query_selector(selector)
    return el is not None and el.is_visible()


def play_uno_by_clicking(page: Any) -> dict[str, int]:
    """Play until the match is over: declare UNO, challenge +4s, prefer Wilds, else the first
    playable card, else keep the drawn card, else draw. Returns what was clicked."""
    clicks = {"uno": 0, "colour": 0, "card": 0, "draw": 0, "continue": 0, "challenge": 0}
    for _ in range(400):
        page.wait_for_function(IDLE)
        state = page.evaluate("document.body.dataset.state")
        if state == "over":
            return clicks
        if state == "hand-over":
            page.click("#continue")
            clicks["continue"] += 1
            continue
        if visible(page, "#colour-picker"):  # the starting card was a Wild
            page.click("#colour-picker [data-colour]:not([disabled])")
            clicks["colour"] += 1
        elif visible(page, "#btn-uno"):
            page.click("#btn-uno")
            clicks["uno"] += 1
        elif visible(page, "#btn-challenge"):
            assert visible(page, "#btn-accept")
            page.click("#btn-challenge")
            clicks["challenge"] += 1
        elif page.query_selector("#hand .card.playable"):
            if clicks["card"] == 2:
                shoot(page, "play_uno.png")
            wild = page.query_selector("#hand .card.playable[data-card^='W']")
            page.click("#hand .card.playable[data-card^='W']" if wild else "#hand .card.playable")
            clicks["card"] += 1
            if wild:
                page.wait_for_selector("#colour-picker", state="visible")
                shoot(page, "play_colour_picker.png")
                page.click("#colour-picker [data-colour='G']")
                clicks["colour"] += 1
        elif visible(page, "#btn-pass"):
            page.click("#btn-pass")
        else:
            page.click("#draw-pile")
            clicks["draw"] += 1
    raise AssertionError("the game did not end within 400 clicks")


def test_whole_uno_hand_by_clicking(app_url: str, page: Any) -> None:
    deal(page, app_url, "uno", UNO_SEED)
    assert page.locator("#hand .card").count() == 7
    assert page.locator("#opponents .opponent").count() == 1
    clicks = play_uno_by_clicking(page)
    assert clicks["uno"] >= 1 and clicks["colour"] >= 1 and clicks["card"] >= 2 and clicks["challenge"] >= 1
    banner = page.text_content("#game-over-text")
    assert banner == "Match over: You won (You 89 · P1 random 0)"  # each score beside its player
    assert page.locator("#log li").count() >= clicks["card"]
    log = page.text_content("#log")
    assert "You declared UNO!" in log and "naming green" in log
    assert "You challenged the Wild Draw Four" in log and "you saw the hand of P1 random" in log
    # the standings show the match points; the record of the finished game downloads
    assert int(page.text_content("#standings tr.you td:nth-child(2)")) > 0
    with page.expect_download() as download:
        page.click("#save-record")
    text = Path(download.value.path()).read_text()
    assert text.startswith('{"type": "header", "game": "uno"') and '"type": "result"' in text


def test_the_first_cards_effect_is_told_and_the_prompt_names_only_legal_moves(app_url: str, page: Any) -> None:
    deal(page, app_url, "uno", seed=1, opponents="random", target=500)  # this deal turns R+2 first
    assert "the first card is R+2; You drew 2; You miss the turn" in page.text_content("#log")
    for _ in range(12):  # a few turns: the prompt offers exactly the kinds of moves that are legal
        page.wait_for_function(IDLE)
        if page.evaluate("document.body.dataset.state") != "your-turn":
            break
        actions = page.evaluate("view.moves.flatMap((m) => m.actions)")
        prompt = page.text_content("#prompt")
        if page.evaluate("view.phase") == "play":
            assert ("draw" in prompt) == ("draw" in actions), (prompt, actions)
            assert ("play a card" in prompt or "stack" in prompt) == any(a.startswith("play ") for a in actions)
        page.evaluate(f"send({actions[-1]!r})" if not actions[-1].startswith("play W") else f"send({actions[0]!r})")
        page.wait_for_function(IDLE)


def test_page_never_receives_hidden_cards(app_url: str, page: Any) -> None:
    """Everything the server sends is the person's view: no other hand, pile order or seed."""
    bodies: list[str] = []
    page.on("response", lambda r: bodies.append(r.text()) if "/api/" in r.url else None)
    deal(page, app_url, "uno", UNO_SEED, players=3)
    assert bodies
    for body in bodies:
        for secret in ('"hands"', '"draw_pile": [', '"rng"', '"guilty"', '"game_seed"'):
            assert secret not in body


def test_trick_game_by_clicking(app_url: str, page: Any) -> None:
    deal(page, app_url, "tricks", seed=2, opponents="heuristic")
    assert page.locator("#opponents .seatbox").count() == 4
    turns = 0
    for _ in range(300):
        page.wait_for_function(IDLE)
        if page.evaluate("document.body.dataset.state") == "over":
            break
        if page.query_selector("#hand .card.playable"):
            turns += 1
            if turns == 3:
                shoot(page, "play_tricks.png")
            page.click("#hand .card.playable")
            if visible(page, "#combo-picker"):
                page.click("#combos button")
        else:
            page.click("#extra-actions button")
    assert "Game over: team A" in page.text_content("#game-over-text")
    assert page.locator("#standings tr").count() == 3
    # the next deal starts from the same page
    page.click("#next-game")
    page.wait_for_function(IDLE)
    assert page.evaluate("document.body.dataset.state") == "your-turn"
    assert page.locator("#hand .card").count() == 10


def test_reload_resumes_the_table(app_url: str, page: Any) -> None:
    """A reload shows the same hand and the same move list (the server keeps the lines told)."""
    deal(page, app_url, "uno", UNO_SEED, opponents="agent", players=3, target=500)  # an agent at 3: a note
    playable = "#hand .card.playable:not([data-card^='W'])"
    for _ in range(2):
        page.click(playable if page.query_selector(playable) else "#draw-pile")
        page.wait_for_function(IDLE)
    lines = "els => els.map(e => [e.className, e.textContent])"
    log = page.eval_on_selector_all("#log li", lines)
    hand = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    page.reload()
    page.wait_for_function(IDLE)
    assert page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") == hand
    assert page.eval_on_selector_all("#log li", lines) == log
    assert [c for c, _ in log].count("note") == 1 and [c for c, _ in log].count("you") == 2


def test_bad_move_shows_error_and_changes_nothing(app_url: str, page: Any) -> None:
    deal(page, app_url, "uno", UNO_SEED, target=500)
    hand = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    # a card the engine refuses (not playable now), sent the way a tampered page would
    blocked = page.query_selector("#hand .card:not(.playable)")
    assert blocked is not None
    name = blocked.get_attribute("data-card")
    page.evaluate(f"send('play {name}')" if not name.startswith("W") else "send('play W R')")
    page.wait_for_function("document.querySelector('#error').textContent.length > 0")
    assert "not legal" in page.text_content("#error")
    assert page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") == hand


def test_house_rules_are_chosen_at_setup_and_a_seven_offers_one_button_per_player(app_url: str, page: Any) -> None:
    page.goto(f"{app_url}/?fast=1")
    page.wait_for_function("document.body.dataset.state === 'setup'")
    page.check("#house-rules-row input[data-rule=seven_zero]")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    page.wait_for_function("document.querySelectorAll('#seats select').length === 2")
    page.fill("#seed", "5")
    page.click("#start")
    for _ in range(200):
        page.wait_for_function(IDLE)
        state = page.evaluate("document.body.dataset.state")
        assert state != "over", "no 7 came to hand in a whole match"
        if state != "your-turn":
            continue
        if page.evaluate("view.phase") == "swap":
            buttons = page.locator("#extra-actions button")
            assert buttons.count() == 2 and "Swap hands with" in buttons.nth(0).text_content()
            assert "choose whom to swap hands with" in page.text_content("#prompt")
            buttons.nth(1).click()
            page.wait_for_function(IDLE)
            assert "You swapped hands with" in page.text_content("#log")
            return
        actions = page.evaluate("view.moves.flatMap((m) => m.actions)")
        sevens = [a for a in actions if a.startswith("play ") and a.endswith("7")]
        choice = sevens[0] if sevens else actions[-1] if not actions[-1].startswith("play W") else actions[0]
        page.evaluate(f"send({choice!r})")
    raise AssertionError("no swap within 200 turns")


def test_a_phone_sees_the_table_and_the_pickers_take_the_keyboard(app_url: str, page: Any) -> None:
    """At 375 px the board stacks over the side panel and the window never scrolls sideways;
    a colour picker takes the focus, and Escape cancels it."""
    page.set_viewport_size({"width": 375, "height": 667})
    deal(page, app_url, "uno", UNO_SEED, target=500)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert page.evaluate("window.scrollX") == 0
    box = page.locator("#hand").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
    cards = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.getAttribute('aria-label'))")
    assert all(c and " " in c or c in ("wild", "wild draw four") for c in cards), cards
    page.evaluate("pickColour({actions: ['play W R', 'play W Y', 'play W G', 'play W B']}, 'W: name a colour')")
    assert page.evaluate("document.activeElement.dataset.colour") == "R"
    page.keyboard.press("Escape")
    assert page.locator("#colour-picker").is_hidden()


def test_the_starting_wilds_colour_cannot_be_cancelled_away(app_url: str, page: Any) -> None:
    """Seed 23 opens with a Wild: naming its colour is the only move, so its picker has no Cancel."""
    deal(page, app_url, "uno", 23, target=500)
    assert page.evaluate("view.phase") == "colour"
    assert page.locator("#colour-picker").is_visible() and page.locator("#colour-cancel").is_hidden()
    page.keyboard.press("Escape")  # nothing to cancel to
    assert page.locator("#colour-picker").is_visible()


def test_a_reloaded_finished_game_shows_its_result_and_the_next_game(app_url: str, page: Any) -> None:
    deal(page, app_url, "uno", UNO_SEED, target=1)
    play_uno_by_clicking(page)
    page.reload()
    page.wait_for_function("document.body.dataset.state === 'over'")
    assert page.locator("#game-over").is_visible() and "over" in page.text_content("#game-over-text")
    page.click("#next-game")
    page.wait_for_function(IDLE)
    assert page.evaluate("view.over") is False


def test_the_player_count_can_be_retyped_and_one_click_deals(app_url: str, page: Any) -> None:
    """Deleting the digit and typing another gives that table (an empty box is not taken for
    2 while typing), and the first click on Deal deals."""
    page.goto(f"{app_url}/?fast=1")
    page.wait_for_function("document.body.dataset.state === 'setup'")
    page.click("#players")
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type("4")
    assert page.input_value("#players") == "4"
    page.wait_for_function("document.querySelectorAll('#seats select').length === 3")
    # the match target's presets and default come from the server (/api/options)
    assert page.locator(".preset").all_text_contents() == ["200", "300", "500"]
    assert page.input_value("#target") == "500"
    page.click(".preset[data-target='200']")
    assert page.input_value("#target") == "200"
    page.click("#start")
    page.wait_for_function(IDLE)
    assert page.evaluate("view.players.length") == 4 and page.evaluate("view.target") == 200


def test_the_keyboard_stays_in_the_hand_after_a_move(app_url: str, page: Any) -> None:
    """A card played with Enter leaves the focus in the redrawn hand (on a card that can be
    played), not at the top of the page; each card says whether it can be played."""
    deal(page, app_url, "uno", UNO_SEED, target=500)
    for _ in range(30):
        page.wait_for_function(IDLE)
        marks = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.getAttribute('aria-disabled'))")
        assert set(marks) <= {"true", "false"} and marks
        card = page.query_selector("#hand .card.playable:not([data-card^='W'])")
        if page.evaluate("document.body.dataset.state") != "your-turn" or card is None:
            page.click("#continue" if visible(page, "#continue") else "#draw-pile")
            continue
        card.focus()
        page.keyboard.press("Enter")
        page.wait_for_function(IDLE)
        if visible(page, "#btn-uno") or page.evaluate("document.body.dataset.state") != "your-turn":
            continue
        assert page.evaluate("!!document.activeElement.closest('#hand')")
        return
    pytest.fail("no keyboard move was made in 30 turns")


def test_setup_errors_name_the_forms_labels_not_the_rules_fields(app_url: str, page: Any) -> None:
    """The server decides what is valid and words it in the rules' fields (UnoRules.target_score);
    the form shows the user its own labels in their place."""
    page.goto(f"{app_url}/?fast=1")
    page.wait_for_selector(".preset")  # the form is built from /api/options
    errors = []
    for fill, check in (({"#target": "0"}, None), ({"#seed": "-1"}, None), ({}, "stack_wild_draw_four")):
        for selector, value in fill.items():
            page.fill(selector, value)
        if check:
            page.check(f"#house-rules-row input[data-rule={check}]")
        page.evaluate("document.querySelector('#setup-error').textContent = ''")
        page.click("#start")
        page.wait_for_function("document.querySelector('#setup-error').textContent.length > 0")
        errors.append(page.text_content("#setup-error"))
        page.fill("#target", "500")
        page.fill("#seed", "")
    assert errors == [
        "“Match to” must lie in 1..1,000,000, got 0",
        "“Seed” must be an integer from 0 to 9,223,372,036,854,775,807, got -1",
        "“stack +4” extends “stacking”: set “stacking”=true as well "
        "(a Wild Draw Four then answers a Draw Two or a Wild Draw Four)",
    ]
    assert page.locator("#setup").is_visible() and page.evaluate("document.body.dataset.state") == "setup"
