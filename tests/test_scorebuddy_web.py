"""Score Buddy's web API (Starlette TestClient): set-up, hands, undo, errors, persistence."""

from __future__ import annotations

import csv
import io

import pytest
from starlette.testclient import TestClient

from tabletop.scorebuddy import ScoreBook
from tabletop.scorebuddy_web import create_app


@pytest.fixture
def store(tmp_path):
    return tmp_path / "scores.json"


@pytest.fixture
def client(store):
    with TestClient(create_app(store), base_url="http://localhost") as client:
        yield client


def setup3(client, target=200, variant="standard"):
    response = client.post(
        "/score/api/setup", json={"players": ["Anna", "Bo", "Cy"], "target": target, "variant": variant}
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_page_and_static_files_are_served(client):
    page = client.get("/score/")
    assert page.status_code == 200 and 'id="leaderboard"' in page.text
    assert 'src="static/score.js"' in page.text  # relative: works under any mount
    assert client.get("/score/static/score.js").status_code == 200
    assert client.get("/score/static/score.css").status_code == 200
    assert client.get("/", follow_redirects=False).headers["location"] == "/score/"


def test_empty_book_then_setup(client, store):
    data = client.get("/score/api/book").json()
    assert data["book"] is None and data["presets"] == [200, 300, 500] and data["quick_keys"] == [10, 20, 50]
    assert not store.exists()
    data = setup3(client)
    assert data["book"]["players"] == ["Anna", "Bo", "Cy"] and data["book"]["target"] == 200
    assert [row["needed"] for row in data["standings"]] == [200, 200, 200]
    assert ScoreBook.load(store).players == ["Anna", "Bo", "Cy"]


def test_standard_hands_undo_and_match_end(client, store):
    setup3(client)
    client.post("/score/api/hand", json={"closer": "Bo", "points": 97})
    data = client.post("/score/api/hand", json={"closer": "cy", "points": 120}).json()
    assert [(r["name"], r["total"], r["needed"]) for r in data["standings"]] == [
        ("Cy", 120, 80),
        ("Bo", 97, 103),
        ("Anna", 0, 200),
    ]
    assert ScoreBook.load(store).totals() == {"Anna": 0, "Bo": 97, "Cy": 120}
    data = client.post("/score/api/undo", json={}).json()
    assert data["totals"] == {"Anna": 0, "Bo": 97, "Cy": 0}
    data = client.post("/score/api/hand", json={"closer": "Bo", "points": 103}).json()
    assert data["match_over"] and data["winners"] == ["Bo"]
    response = client.post("/score/api/hand", json={"closer": "Anna", "points": 3})
    assert response.status_code == 400 and "the match is over" in response.json()["error"]
    data = client.post("/score/api/new-match", json={}).json()
    assert data["book"]["hands"] == [] and not data["match_over"]
    assert ScoreBook.load(store).hands == []


def test_reverse_hands(client):
    setup3(client, target=100, variant="reverse")
    client.post("/score/api/hand", json={"points_by_player": {"Anna": 0, "Bo": 60, "Cy": 70}, "closer": "Anna"})
    data = client.post("/score/api/hand", json={"points_by_player": {"Anna": 20, "Bo": 0, "Cy": 40}}).json()
    assert data["match_over"] and data["winners"] == ["Anna"]
    assert [(r["name"], r["total"], r["needed"]) for r in data["standings"]] == [
        ("Anna", 20, 80),
        ("Bo", 60, 40),
        ("Cy", 110, 0),
    ]


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/score/api/setup", {"players": ["Solo"], "target": 200}, "2-10 players"),
        ("/score/api/setup", {"players": ["A", "B"], "target": -5}, "positive whole number"),
        ("/score/api/setup", {"players": ["A", "B"], "variant": "golf"}, "allowed: standard, reverse"),
        ("/score/api/hand", {"closer": "Zed", "points": 5}, "no player called 'Zed'"),
        ("/score/api/hand", {"closer": "Anna", "points": -5}, "between 0 and 1240"),
        ("/score/api/hand", {"closer": "Anna", "points": "lots"}, "whole number"),
        ("/score/api/hand", {"points": 5}, "a hand is"),
        ("/score/api/hand", {"points_by_player": {"Anna": 1}}, "standard scoring"),
        ("/score/api/hand", [1, 2], "JSON object"),
        ("/score/api/hand-value", {"cards": "R7 Q5"}, "unknown card 'Q5'"),
        ("/score/api/hand-value", {"cards": 7}, "cards are a string"),
    ],
)
def test_bad_input_is_400_and_changes_nothing(client, store, path, body, message):
    setup3(client)
    client.post("/score/api/hand", json={"closer": "Anna", "points": 10})
    before = store.read_text()
    response = client.post(path, json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert store.read_text() == before


def test_bad_json_body_and_undo_without_hands(client):
    setup3(client)
    response = client.post("/score/api/hand", content=b"{nope", headers={"content-type": "application/json"})
    assert response.status_code == 400 and "JSON object" in response.json()["error"]
    response = client.post("/score/api/undo", json={})
    assert response.status_code == 400 and response.json() == {"error": "there is no hand to undo"}


def test_changes_before_setup_are_refused(client):
    response = client.post("/score/api/hand", json={"closer": "Anna", "points": 5})
    assert response.status_code == 409 and "set up the players first" in response.json()["error"]
    assert client.get("/score/export.csv").status_code == 404


def test_hand_value(client):
    assert client.post("/score/api/hand-value", json={"cards": "R7 GS W+4"}).json() == {"value": 77}
    assert client.post("/score/api/hand-value", json={"cards": ["BR", "y+2"]}).json() == {"value": 40}


def test_csv_export(client):
    setup3(client)
    client.post("/score/api/hand", json={"closer": "Anna", "points": 10})
    client.post("/score/api/hand", json={"closer": "Cy", "points": 25})
    response = client.get("/score/export.csv")
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0][:2] == ["hand", "closer"] and rows[-1] == ["2", "Cy", "0", "0", "25", "10", "0", "25"]


def test_scores_survive_a_new_app_on_the_same_file(store):
    with TestClient(create_app(store), base_url="http://localhost") as first:
        setup3(first)
        first.post("/score/api/hand", json={"closer": "Bo", "points": 44})
    with TestClient(create_app(store), base_url="http://localhost") as second:
        data = second.get("/score/api/book").json()
        assert data["totals"] == {"Anna": 0, "Bo": 44, "Cy": 0}
        second.post("/score/api/hand", json={"closer": "Bo", "points": 6})
    assert ScoreBook.load(store).totals()["Bo"] == 50


def test_damaged_file_is_reported_and_kept_aside(client, store):
    store.write_text("{ broken")
    response = client.get("/score/api/book")
    assert response.status_code == 500 and "not a valid JSON score book" in response.json()["error"]
    setup3(client)
    assert store.with_name("scores.json.damaged").read_text() == "{ broken"
    assert client.get("/score/api/book").json()["book"]["players"] == ["Anna", "Bo", "Cy"]
    store.write_text("[ broken too")  # a second damaged book keeps the first one aside as well
    setup3(client)
    assert store.with_name("scores.json.damaged").read_text() == "{ broken"
    assert store.with_name("scores.json.damaged.2").read_text() == "[ broken too"


def test_setup_again_replaces_the_table(client, store):
    setup3(client)
    client.post("/score/api/hand", json={"closer": "Anna", "points": 10})
    data = client.post("/score/api/setup", json={"players": ["Dee", "Eve"], "target": 300, "variant": "reverse"}).json()
    assert data["book"]["hands"] == [] and data["book"]["variant"] == "reverse"
    assert ScoreBook.load(store).players == ["Dee", "Eve"]


def test_tied_reverse_winners_share(client):
    client.post("/score/api/setup", json={"players": ["A", "B", "C"], "target": 50, "variant": "reverse"})
    data = client.post("/score/api/hand", json={"points_by_player": {"A": 10, "B": 10, "C": 51}}).json()
    assert data["match_over"] and data["winners"] == ["A", "B"]
    assert [(r["name"], r["rank"], r["leader"]) for r in data["standings"]] == [
        ("A", 1, True),
        ("B", 1, True),
        ("C", 3, False),
    ]


def test_a_huge_target_is_refused_and_the_store_stays_readable(client, store):
    response = client.post("/score/api/setup", json={"players": ["Anna", "Ben"], "target": 10**30})
    assert response.status_code == 400 and "at most 1,000,000" in response.json()["error"]
    assert client.get("/score/api/book").status_code == 200


def test_an_undo_from_a_page_that_missed_a_change_is_refused(client, store):
    """Two pages on one table: the second page's undo names the hands it showed, and after the
    first page undid one the second's undo removes nothing."""
    setup3(client)
    client.post("/score/api/hand", json={"closer": "Bo", "points": 10})
    client.post("/score/api/hand", json={"closer": "Cy", "points": 20})
    assert client.post("/score/api/undo", json={"hands": 2}).status_code == 200  # the first page
    response = client.post("/score/api/undo", json={"hands": 2})  # the second, still showing 2
    assert response.status_code == 400 and "reload before undoing" in response.json()["error"]
    assert ScoreBook.load(store).totals() == {"Anna": 0, "Bo": 10, "Cy": 0}
    response = client.post("/score/api/undo", json={"hands": "2"})
    assert response.status_code == 400 and "hands is the number of hands" in response.json()["error"]
