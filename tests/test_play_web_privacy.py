"""The web server sends a player only what that player may know, and refuses foreign requests.

One walk per game plays a whole game through the API and, at every step, requests every
route of both apps (the game page's and Score Buddy's); no response may hold another
player's hand, the draw pile's order, the Wild Draw Four's guilt or the random stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tabletop.guard import MAX_BODY
from tabletop.web import MAX_TABLES, Tables, create_app

#: Keys of the engine's position (and of game records) a player's responses never carry.
SECRET_KEYS = {"hands", "rng", "guilty", "game_seed", "game_seeds", "counter", "start"}


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(store_path=tmp_path / "scores.json"), base_url="http://localhost")


def keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def lists(value: Any) -> list[list[Any]]:
    """Every list inside a JSON value."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in lists(v)]
    if isinstance(value, list):
        return [value] + [x for v in value for x in lists(v)]
    return []


def secrets_now(client: TestClient, table: str) -> tuple[list[list[str]], list[list[str]]]:
    """The other seats' hands (the trick game: numbers and specials) and the draw piles, from
    the server's own session: the truth the responses are checked against."""
    session = client.app.state.tables.by_id[table]
    pos = session.engine.position(0)
    hands = [h for key in ("hands", "specials") for s, h in enumerate(pos.get(key, [])) if s != session.seat]
    piles = [pos[key] for key in ("draw_pile", "number_pile", "special_pile") if key in pos]
    return [h for h in hands if len(h) >= 2], [p for p in piles if len(p) >= 3]


def assert_private(res: Any, hands: list[list[str]], piles: list[list[str]], route: str) -> None:
    if "json" not in res.headers.get("content-type", ""):
        for secret in ('"hands"', '"rng"', '"guilty"', '"draw_pile": [', '"number_pile": ['):
            assert secret not in res.text, f"{route} sent {secret}"
        return
    data = res.json()
    leaked = keys(data) & SECRET_KEYS
    assert not leaked, f"{route} sent {leaked}"
    for found in lists(data):
        if len(found) >= 2 and all(isinstance(c, str) for c in found):
            for hand in hands:
                assert sorted(found) != sorted(hand), f"{route} sent another player's cards {hand}"
            for pile in piles:
                assert len(found) < 3 or found != pile[: len(found)], f"{route} sent a pile's order"


def every_route(client: TestClient, table: str) -> list[tuple[str, Any]]:
    """A response from each route that takes no change (the moves are the walk itself)."""
    return [
        ("/", client.get("/")),
        ("/api/options", client.get("/api/options")),
        ("/api/state", client.get(f"/api/state?id={table}")),
        ("/api/record", client.get(f"/api/record?id={table}")),
        ("/api/next (during the game)", client.post("/api/next", json={"id": table})),
        ("/score/", client.get("/score/")),
        ("/score/api/book", client.get("/score/api/book")),
        ("/score/api/hand-value", client.post("/score/api/hand-value", json={"cards": "R7 W+4"})),
        ("/score/export.csv", client.get("/score/export.csv")),
    ]


@pytest.mark.parametrize(
    ("game", "body"),
    [
        ("uno", {"players": 3, "opponents": ["heuristic"], "target": 100}),
        ("tricks", {"opponents": ["heuristic"]}),
    ],
)
def test_no_response_holds_what_the_player_may_not_know(client: TestClient, game: str, body: dict[str, Any]) -> None:
    res = client.post("/api/new", json={"game": game, "seed": 11, **body})
    assert res.status_code == 200, res.text
    table = res.json()["id"]
    hands, piles = secrets_now(client, table)
    assert_private(res, hands, piles, "/api/new")
    steps = 0
    while not res.json()["view"]["over"]:
        hands, piles = secrets_now(client, table)
        for route, reply in every_route(client, table):
            assert reply.status_code < 500, (route, reply.text)
            assert_private(reply, hands, piles, route)
        record = client.get(f"/api/record?id={table}")
        assert record.status_code == 409 and "once the game is over" in record.json()["error"]
        moves = res.json()["view"]["moves"]
        res = client.post("/api/move", json={"id": table, "action": moves[-1]["actions"][0]})
        assert res.status_code == 200, res.text
        assert_private(res, hands, piles, "/api/move")
        steps += 1
        assert steps < 2000
    # once the game is over the record is offered, and the next game is a fresh deal
    record = client.get(f"/api/record?id={table}")
    assert record.status_code == 200 and '"type": "result"' in record.text
    start = json.loads(record.text.splitlines()[0])["start"]["rng"]
    res = client.post("/api/next", json={"id": table})
    assert res.status_code == 200
    session = client.app.state.tables.by_id[table]
    assert session.engine.position(0)["rng"] != start


def test_cross_site_and_foreign_requests_are_refused(client: TestClient, tmp_path: Path) -> None:
    setup = {"players": ["Anna", "Ben"], "target": 500}
    assert client.post("/score/api/setup", json=setup).status_code == 200
    book = (tmp_path / "scores.json").read_bytes()
    # a form or text/plain POST (no preflight): refused, the book untouched
    res = client.post(
        "/score/api/setup", content=json.dumps({"players": ["X", "Y"]}), headers={"content-type": "text/plain"}
    )
    assert res.status_code == 415 and "application/json" in res.json()["error"]
    res = client.post("/score/api/new-match", data={"a": "1"})
    assert res.status_code == 415
    # JSON from another site's page
    res = client.post("/score/api/new-match", json={}, headers={"origin": "http://evil.example"})
    assert res.status_code == 403 and "another site" in res.json()["error"]
    assert (tmp_path / "scores.json").read_bytes() == book
    # the page's own origin is fine
    assert client.post("/score/api/undo", json={}, headers={"origin": "http://localhost"}).status_code in (200, 400)
    # a foreign Host (DNS rebinding) gets nothing
    for path in ("/api/options", "/score/api/book", "/"):
        res = client.get(path, headers={"host": "evil.example"})
        assert res.status_code == 400 and "not Host 'evil.example'" in res.json()["error"]  # JSON as every refusal


def test_large_bodies_are_refused_and_never_echoed(client: TestClient) -> None:
    huge = "R7 " * (MAX_BODY // 3 + 10)
    res = client.post("/score/api/hand-value", json={"cards": huge})
    assert res.status_code == 413 and len(res.text) < 200
    long_name = "x" * 5000
    res = client.post("/api/new", json={"game": "uno", "opponents": [long_name]})
    assert res.status_code == 400 and len(res.text) < 1000 and long_name not in res.text


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"rules": [1]}, "rules must be an object"),
        ({"target": 10**30}, "target must be an integer of at most"),
        ({"players": 2.7}, "players must be an integer"),
        ({"seat": "²"}, "seat must be an integer, got '²'"),  # was int()'s own message
        ({"seed": "--5"}, "seed must be an integer, got '--5'"),
        ({"opponents": ["agent:/etc/passwd"]}, "is not offered here"),
        ({"opponents": [{"name": "agent", "checkpoint": "/etc/passwd"}]}, "is not offered here"),
    ],
)
def test_bad_setups_get_a_message_not_a_500(client: TestClient, body: dict[str, Any], message: str) -> None:
    res = client.post("/api/new", json={"game": "uno", "players": 2, **body})
    assert res.status_code == 400, res.text
    assert message in res.json()["error"]
    assert "/etc/passwd" not in res.text or "not offered" in res.text


class _Table:
    """A stand-in for a table session: only whether its game is over."""

    def __init__(self, over: bool = False) -> None:
        self.over = over


def test_tables_in_play_are_not_evicted_idle_ones_are() -> None:
    now = [0.0]
    tables = Tables(limit=2, idle_seconds=100, clock=lambda: now[0])
    first = tables.add(_Table())  # type: ignore[arg-type]
    now[0] = 50
    tables.add(_Table())  # type: ignore[arg-type]
    with pytest.raises(Exception, match="tables are in play"):
        tables.add(_Table())  # type: ignore[arg-type]
    now[0] = 160  # the first is played on; the second has had no move for 110 s
    tables.get(first)
    third = tables.add(_Table())  # type: ignore[arg-type]
    assert set(tables.by_id) == {first, third}
    assert MAX_TABLES >= 16


def test_a_finished_table_or_the_one_a_page_leaves_makes_room() -> None:
    """Dealing again and again from one page never fills the server: the page names the
    table it leaves, and when room is short a finished game gives way before any in play."""
    tables = Tables(limit=2, idle_seconds=1e9, clock=lambda: 0.0)
    page = tables.add(_Table())  # type: ignore[arg-type]
    other = tables.add(_Table())  # type: ignore[arg-type]
    for _ in range(10):
        page = tables.add(_Table(), replaces=page)  # type: ignore[arg-type]
    assert set(tables.by_id) == {other, page}
    tables.by_id[other].over = True  # type: ignore[attr-defined]
    newer = tables.add(_Table())  # type: ignore[arg-type]
    assert set(tables.by_id) == {page, newer}
    with pytest.raises(Exception, match="tables are in play"):
        tables.add(_Table())  # type: ignore[arg-type]


def test_the_game_apps_own_routes_refuse_cross_site_requests(client: TestClient) -> None:
    body = {"game": "uno", "players": 2, "opponents": ["random"], "seed": 1}
    res = client.post("/api/new", content=json.dumps(body), headers={"content-type": "text/plain"})
    assert res.status_code == 415
    res = client.post("/api/new", json=body, headers={"origin": "http://evil.example"})
    assert res.status_code == 403
    table = client.post("/api/new", json=body).json()["id"]
    move = {"id": table, "action": "draw"}
    assert client.post("/api/move", content=json.dumps(move), headers={"content-type": "text/plain"}).status_code == 415
    assert client.post("/api/move", json=move, headers={"origin": "http://evil.example"}).status_code == 403


def test_agent_paths_get_one_answer_whether_or_not_the_file_exists(client: TestClient) -> None:
    answers = set()
    for path in ("/etc/passwd", "/no/such.pt", "models/uno_2p_ppo.pt"):  # a real checkpoint, not offered by path
        res = client.post("/api/new", json={"game": "uno", "players": 2, "opponents": [f"agent:{path}"]})
        assert res.status_code == 400
        answers.add(res.text.replace(path, "PATH"))
    assert len(answers) == 1  # nothing tells whether a server file exists


def test_other_players_trick_game_returns_stay_hidden(client: TestClient) -> None:
    """A returned card goes under the pile face down: the person sees that it happened only."""
    hidden = 0
    for seed in range(6):
        body = {"game": "tricks", "opponents": ["heuristic"], "seed": seed, "rules": {"exchange_returns": "two"}}
        res = client.post("/api/new", json=body)
        assert res.status_code == 200, res.text
        table, seat = res.json()["id"], res.json()["view"]["seat"]
        while True:
            for event in res.json()["events"]:
                if event["player"] != seat and event["action"].startswith("return"):
                    assert event["action"] == "return a card"
                    assert event["text"].endswith("put a card back under the pile"), event["text"]
                    hidden += 1
            if res.json()["view"]["over"]:
                break
            moves = res.json()["view"]["moves"]
            res = client.post("/api/move", json={"id": table, "action": moves[0]["actions"][0]})
            assert res.status_code == 200, res.text
    assert hidden > 0


def test_a_card_another_seat_lays_in_the_trick_game_shows_no_colour() -> None:
    """The engine lays the first colour a hand holds, so a laid card's colour would tell what
    else the hand holds; colours never matter in this game and the agents' view has none."""
    from envs.uno_tricks import action_id
    from tabletop.session import TableSession
    from tests.tricks_helpers import position

    seen = []
    for p1 in (["R9", "Y9", "Y9"], ["B9", "Y3", "Y4"]):  # the same for seat 0: three cards, one a 9 laid
        hands = [["R1", "R2", "R5"], p1, ["R6", "R7", "R8"], ["G1", "G2", "G5"]]
        session = TableSession(
            game="tricks", opponents=["random"], seat=0, seed=0, position=position(hands, leader=1, number_pile=["Y6"])
        )
        event = session._step(action_id("lay 9"))
        seen.append((event.view["players"], event.text, session.engine.observe(seats=0)[0].tobytes()))
    assert seen[0][2] == seen[1][2]  # the observation is the same
    assert seen[0][0] == seen[1][0] and seen[0][1] == seen[1][1]  # so is what the person is shown
    assert seen[0][0][1]["table"]["card"] == "9"


def test_the_trick_games_text_view_shows_laid_cards_without_colours() -> None:
    from envs.uno_tricks import TricksEngine
    from envs.uno_tricks.render import render_position

    eng = TricksEngine(1, seed=0)
    eng.reset()
    pos = eng.position(0)
    pos["table"][3] = {"card": "B8", "forced": False, "added": None, "specials": ["YS", "R+2"]}
    line = render_position(pos, viewer=0).splitlines()[-1]
    assert "table 8 with skip +2" in line and "YS" not in line and "B8" not in line
