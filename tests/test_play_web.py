"""The game server's API: new tables, moves, refusals that change nothing, records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from envs.records import GameRecord, verify
from tabletop.web import create_app


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(create_app(store_path=tmp_path / "scores.json"), base_url="http://localhost")


def new_table(client: TestClient, **body: Any) -> dict[str, Any]:
    res = client.post("/api/new", json={"game": "uno", "players": 2, "opponents": ["random"], "seed": 6, **body})
    assert res.status_code == 200, res.text
    return res.json()


def test_options_and_page(client: TestClient) -> None:
    options = client.get("/api/options").json()["games"]
    assert {"random", "heuristic", "agent"} <= set(options["uno"]["policies"])
    assert "restrained" not in options["uno"]["policies"]  # a wrapper of another policy, no opponent of its own
    assert options["tricks"]["players"] == [4, 4]
    # what the setup form is built from: the games, their titles, partners and house rules
    assert list(options) == ["uno", "tricks"]
    assert (options["uno"]["title"], options["tricks"]["title"]) == ("classic UNO", "trick game, team vs team")
    assert (options["uno"]["partners"], options["tricks"]["partners"]) == ([], [2])
    assert options["uno"]["house_rules"] is True and "house_rules" not in options["tricks"]
    assert options["uno"]["default_opponent"] == options["tricks"]["default_opponent"] == "heuristic"
    page = client.get("/")
    assert page.status_code == 200 and "game.js" in page.text
    assert 'id="start" type="button" class="primary" disabled' in page.text  # until the form is built
    assert client.get("/static/game.js").status_code == 200
    assert client.get("/score/").status_code == 200  # Score Buddy is served by the same app


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "chess"}, "game must be one of uno, tricks"),
        ({"players": 11}, "2 to 10 players"),
        ({"players": 0}, "2 to 10 players"),
        ({"target": 0}, "target_score must lie in 1..1,000,000"),
        ({"opponents": ["superhuman"]}, "superhuman"),
        ({"target": "lots"}, "target must be an integer"),
        ({"colour": "red"}, "unknown field"),
        ({"rules": {"stacking": "yes"}}, "stacking"),
    ],
)
def test_new_table_refuses_bad_setups(client: TestClient, body: dict[str, Any], message: str) -> None:
    res = client.post("/api/new", json={"game": "uno", "players": 2, "opponents": "random", **body})
    assert res.status_code == 400
    assert message in res.json()["error"]


def test_a_move_and_a_refused_move(client: TestClient) -> None:
    data = new_table(client)
    table, view = data["id"], data["view"]
    assert view["seat"] == 0 and len(view["hand"]) == 7
    legal = [a for m in view["moves"] for a in m["actions"]]
    illegal = next(a for a in ("play W+4 R", "challenge", "pass", "uno") if a not in legal)
    res = client.post("/api/move", json={"id": table, "action": illegal})
    assert res.status_code == 400
    assert "not legal" in res.json()["error"] and sorted(res.json()["legal"]) == sorted(legal)
    assert client.get(f"/api/state?id={table}").json()["view"] == view  # nothing changed
    res = client.post("/api/move", json={"id": table, "action": legal[0]})
    assert res.status_code == 200
    events = res.json()["events"]
    assert events[0]["player"] == 0 and events[0]["action"] == legal[0]
    assert all(e["player"] != 0 for e in events[1:])


def test_state_gives_the_move_list_back_as_it_was_told(client: TestClient, monkeypatch: Any) -> None:
    """A reloaded page shows the table's move list again: the server keeps the lines the person
    was told (their own moves marked), after the notes on the agents; the latest LOG_LINES only."""
    data = new_table(client, players=3, opponents=["agent"], seed=3)
    table, told = data["id"], data["events"]
    for _ in range(3):
        view = client.get(f"/api/state?id={table}").json()["view"]
        res = client.post("/api/move", json={"id": table, "action": view["moves"][-1]["actions"][0]})
        told += res.json()["events"]
    state = client.get(f"/api/state?id={table}").json()
    assert state["log"] == [{"text": e["text"], "you": e["player"] == 0} for e in told]
    assert state["log"][0]["text"].startswith("Hand 1: the first card is ") and not state["log"][0]["you"]
    assert sum(line["you"] for line in state["log"]) == 3
    assert state["notes"] == data["notes"] and len(state["notes"]) == 1
    monkeypatch.setattr("tabletop.session.LOG_LINES", 2)
    data = new_table(client)
    res = client.post("/api/move", json={"id": data["id"], "action": data["view"]["moves"][0]["actions"][0]})
    told = data["events"] + res.json()["events"]
    assert len(told) > 2
    lines = [{"text": e["text"], "you": e["player"] == 0} for e in told[-2:]]
    assert client.get(f"/api/state?id={data['id']}").json()["log"] == lines


def test_unknown_table_and_bad_bodies(client: TestClient) -> None:
    assert client.get("/api/state?id=nope").status_code == 404
    assert client.post("/api/move", json={"id": "nope", "action": "draw"}).status_code == 404
    assert (
        client.post("/api/move", content=b"not json", headers={"content-type": "application/json"}).status_code == 400
    )
    assert client.post("/api/move", content=b"not json").status_code == 415  # not JSON: refused before the route
    table = new_table(client)["id"]
    res = client.post("/api/move", json={"id": table, "action": 3})
    assert res.status_code == 400 and "action name" in res.json()["error"]
    res = client.post("/api/next", json={"id": table})
    assert res.status_code == 400 and "still being played" in res.json()["error"]


@pytest.mark.parametrize(
    "path", ["/api/new", "/api/move", "/api/next", "/score/api/setup", "/score/api/hand", "/score/api/hand-value"]
)
def test_json_nested_too_deep_for_the_parser_is_a_bad_request(client: TestClient, path: str) -> None:
    """20 KB of brackets is under the size limit but past Python's recursion limit: a 400."""
    res = client.post(path, content=b"[" * 20_000, headers={"content-type": "application/json"})
    assert res.status_code == 400 and res.json()["error"] == "the request body must be a JSON object"


def test_a_whole_match_through_the_api_and_its_record(client: TestClient) -> None:
    data = new_table(client, target=1)
    table, view = data["id"], data["view"]
    for _ in range(500):
        if view["over"]:
            break
        res = client.post("/api/move", json={"id": table, "action": view["moves"][0]["actions"][0]})
        assert res.status_code == 200, res.text
        view = res.json()["view"]
    assert view["over"] and view["tally"]["games"] == 1
    record = client.get(f"/api/record?id={table}")
    assert record.headers["content-disposition"].startswith("attachment")
    last = verify(GameRecord.from_lines(record.text.splitlines()))
    assert last is not None and last.done
    nxt = client.post("/api/next", json={"id": table}).json()["view"]
    assert not nxt["over"] and all(p["score"] == 0 for p in nxt["players"])


def test_trick_game_table(client: TestClient) -> None:
    res = client.post("/api/new", json={"game": "tricks", "opponents": "heuristic,agent,heuristic", "seed": 3})
    view = res.json()["view"]
    assert view["game"] == "tricks" and view["team"] == "A" and len(view["hand"]) == 10
    assert [p["partner"] for p in view["players"]] == [False, False, True, False]
    assert "agent" in view["players"][2]["name"]
    assert res.json()["notes"] == []  # the shipped trick-game agent at the table it was trained for


def test_an_agent_at_a_table_it_was_not_fitted_to_comes_with_a_note(client: TestClient) -> None:
    res = client.post("/api/new", json={"game": "uno", "players": 3, "opponents": "agent", "seed": 3})
    (note,) = res.json()["notes"]
    assert note.startswith("agent: models/uno_4p_ppo.pt was fitted under") and "4 players (this table: 3)" in note


def test_the_api_refuses_what_the_terminal_refuses_and_takes_what_it_takes(client: TestClient) -> None:
    """A target where no match is played is refused (the CLI refuses --target); a seed may be
    any the terminal takes, so a terminal game can be dealt again on the page."""
    for body in ({"game": "tricks", "target": 300}, {"game": "uno", "rules": {"match": False}, "target": 300}):
        response = client.post("/api/new", json=body)
        assert response.status_code == 400 and "plays no match" in response.json()["error"]
    assert client.post("/api/new", json={"game": "uno", "seed": 2**63 - 1}).status_code == 200
    assert "at most 9,223,372,036,854,775,807" in client.post("/api/new", json={"seed": 2**63}).json()["error"]


def test_unknown_routes_methods_and_fields_are_refused_as_json(client: TestClient) -> None:
    response = client.get("/api/nothing")
    assert response.status_code == 404 and response.json() == {"error": "Not Found: GET /api/nothing"}
    response = client.get("/api/new")
    assert response.status_code == 405 and response.headers["allow"] == "POST"
    assert response.json()["error"] == "Method Not Allowed: GET /api/new"
    response = client.post("/score/api/setup", json={"players": ["Anna", "Bo"], "colour": 1})
    assert response.json() == {"error": "unknown field(s) 'colour'; allowed: players, target, variant"}
    assert client.post("/score/api/setup", json={"players": ["Anna", "Bo"]}).status_code == 200
    assert "allowed: hands" in client.post("/score/api/undo", json={"all": True}).json()["error"]
