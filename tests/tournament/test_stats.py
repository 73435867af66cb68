"""Statistics the sensors already know (issue 34.4): each game's counts (T6–T17 for
Trigono: holes, floor, knock-ins T12, rounds, finals T17; Trike wins by colour K3;
Triolet trios L9; Triominos points per tile M…) checked against counts made here
independently — by hand for worked records, and for played tournaments by a tally of
what the test itself sent — then summed over a list of entries, as JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from engines import game_spec
from engines.records import initial_state, replay
from hub.facade import Hub
from hub.tournament.stats import count_record

RECORDS = Path(__file__).resolve().parents[1] / "records"


def record(name: str) -> dict[str, Any]:
    doc = json.loads((RECORDS / name).read_text())
    doc.pop("expect", None)
    return dict(doc)


def test_trigono_counts_a_final_T17_by_hand() -> None:
    doc = record("trigono-five-players-final.json")
    # The record stops in the final (Chloé chose B2.small, threw into B1.big): Eva scores.
    doc["actions"].append({"throw": {"player": "Eva", "to": "B2.small"}})
    counts = count_record(doc)
    # Round 2 has begun (two rounds to win) but nobody threw in it: one round played.
    assert counts["Eva"] == {**counts["Eva"], "throws": 1, "small": 1, "finals": 1, "finals_won": 1,
                             "rounds_won": 1, "rounds": 1}
    assert (counts["Chloé"]["throws"], counts["Chloé"]["small"], counts["Chloé"]["big"]) == (2, 1, 1)
    assert (counts["Chloé"]["finals"], counts["Chloé"]["finals_won"], counts["Chloé"]["palets"]) == (1, 0, 3)
    assert [counts[p]["floor"] for p in ("Ana", "Ben", "Dan")] == [1, 1, 1]
    assert all(counts[p]["finals"] == 0 for p in ("Ana", "Ben", "Dan"))


def test_trigono_counts_knock_ins_T12_and_invalid_drops_T10() -> None:
    doc = {"game": "trigono", "options": {"players": ["Ana", "Ben"], "first": "Ana", "palets_per_player": 3},
           "actions": [{"throw": {"player": "Ana", "to": "board:B1"}},
                       {"throw": {"player": "Ben", "to": "B1.big", "knocked": [{"from": "B1", "to": "B1.small"}]}},
                       {"throw": {"player": "Ana", "to": "B1.small", "invalid": True}}]}
    counts = count_record(doc)
    assert (counts["Ben"]["knock_ins"], counts["Ben"]["big"], counts["Ana"]["invalid"]) == (1, 1, 1)
    assert (counts["Ana"]["board"], counts["Ana"]["small"], counts["Ana"]["throws"]) == (1, 1, 2)


def test_trike_wins_by_colour_after_a_swap_K3() -> None:
    doc = record("trike-short-game.json")
    state = replay(doc)
    counts = count_record(doc)
    winner = state.winner()
    for p in state.players:
        colour = state.to_json()["colors"][p]
        assert counts[p][f"games_{colour}"] == 1 and counts[p][f"wins_{colour}"] == int(p == winner)
    assert winner is not None
    # After the pie swap Ana, who opened, plays White: her game counts as White's.
    counts = count_record(record("trike-swap.json"))
    assert (counts["Ana"]["games_white"], counts["Ana"]["games_black"], counts["Ben"]["games_black"]) == (1, 0, 1)


def test_triolet_trio_L9_and_triominos_points_per_tile() -> None:
    doc = record("triolet-pair-then-trio.json")
    counts = count_record(doc)
    log = replay(doc).to_json()["log"]
    for p, mine in counts.items():
        assert mine["trios"] == sum(1 for e in log if e["player"] == p for s in e.get("sets", [])
                                    if len(s["cells"]) == 3)
        assert mine["triolets"] == sum(1 for e in log if e["player"] == p and e.get("triolet"))
        assert mine["points"] == sum(e["points"] for e in log if e["player"] == p and "sets" in e)
    assert counts["Ben"]["trios"] == 1 and counts["Ana"]["trios"] == 0  # Ana's pair, then Ben's trio
    doc = record("triominos-match-and-draw.json")
    counts = count_record(doc)
    log = replay(doc).to_json()["log"]
    for p, mine in counts.items():
        placed = [e for e in log if e["player"] == p and "place" in e["action"]]
        assert (mine["tiles"], mine["tile_points"]) == (len(placed), sum(e["points"] for e in placed))


def play_trigono(hub: Hub, table_id: str, rng: random.Random, tally: dict[str, dict[str, int]]) -> None:
    """Throws chosen at random, entered as the console would; ``tally`` counts what was
    sent, per thrower (the independent count)."""
    for _ in range(500):
        if hub.game_over(table_id):
            return
        state = replay(hub.export(table_id))
        player = state.current_player()
        assert player is not None
        where = rng.choice(["board:B1", "B1.big", "B1.small", "floor", "floor"])
        mine = tally.setdefault(player, {"throws": 0, "big": 0, "small": 0, "floor": 0, "board": 0})
        mine["throws"] += 1
        mine[{"board:B1": "board", "B1.big": "big", "B1.small": "small", "floor": "floor"}[where]] += 1
        hub.submit(table_id, {"move": {"throw": {"player": player, "to": where}}, "by": "test"})
    raise AssertionError("the match did not end")


def test_a_tournament_entrys_statistics_equal_an_independent_tally(hub: Hub, client: FlaskClient) -> None:
    svc = hub.tournaments
    tally: dict[str, dict[str, int]] = {}
    rng = random.Random(34)
    for tid in ("T1", "T2"):
        svc.create({"name": f"Friday {tid}", "game": "trigono", "format": "swiss", "rounds": 2, "check_in": False,
                    "options": {"palets_per_player": 2, "rounds_to_win": 1}}, tournament_id=tid)
        svc.submit(tid, {"type": "station", "station": {"id": "s1", "seats": 2}})
        for name in ("Ana", "Ben", "Chloé", "Dan"):
            svc.submit(tid, {"type": "register", "player": {"name": name}})
        svc.submit(tid, {"type": "start"})
        while svc.view(tid)["status"] != "finished":
            called = [m for m in svc.view(tid)["matches"] if m["status"] == "called"]
            assert called and called[0]["table"]
            play_trigono(hub, called[0]["table"], rng, tally.setdefault(tid, {}))
            assert wait_until(lambda m=called[0], t=tid: match_status(hub, t, m["id"]) == "done")
    entries = [("T1", "p1"), ("T2", "p1")]  # Ana in both: a person, as h4's persons will ask
    doc = svc.stats(entries)
    got = doc["games"]["trigono"]["counts"]
    expected = {k: tally["T1"]["Ana"][k] + tally["T2"]["Ana"][k] for k in tally["T1"]["Ana"]}
    assert {k: got[k] for k in expected} == expected and got["throws"] > 8
    assert doc["games"]["trigono"]["matches"] == 4 == got["matches"]  # two rounds, two events
    assert doc["games"]["trigono"]["ratios"]["floor_share"] == round(got["floor"] / got["throws"], 4)
    # Palets and rounds won, from the printed logs (not the stats' own stepping).
    palets = rounds_won = 0
    for line in doc["matches"]:
        printed = replay(hub.export(line["table"])).to_json()
        palets += sum(e["points"] for e in printed["log"] if e["player"] == "Ana" and "throw" in e["action"])
        rounds_won += printed["rounds_won"]["Ana"]
    assert (got["palets"], got["rounds_won"]) == (palets, rounds_won)
    # The list's sums are the sums of each entry's.
    one, two = (svc.stats([e])["games"]["trigono"]["counts"] for e in entries)
    assert got == {k: one[k] + two[k] for k in got}
    # Exports, no account: JSON and a CSV French Excel opens (BOM, ";").
    assert client.get("/api/stats?entry=T1:p1&entry=T2:p1").get_json()["games"] == doc["games"]
    body = client.get("/tournaments/T1/players/p1/stats.csv").data.decode("utf-8")
    assert body.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(body[1:]), delimiter=";"))
    assert len(rows) == 2 and sum(int(r["throws"]) for r in rows) == tally["T1"]["Ana"]["throws"]
    # The player's page shows them, in the page's language.
    page = client.get("/tournaments/T1/players/p1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    share = round(svc.stats([entries[0]])["games"]["trigono"]["ratios"]["floor_share"] * 100, 1)
    assert one["floor"] and "lancers" in page and f"{share:g}".replace(".", ",") + "\u00a0%" in page
    assert client.get("/api/stats?entry=T1").status_code == 400
    assert client.get("/tournaments/T9/players/p1/stats.json").status_code == 404


def match_status(hub: Hub, tid: str, mid: str) -> str:
    return str(next(m["status"] for m in hub.tournaments.view(tid)["matches"] if m["id"] == mid))


def wait_until(condition: Any, timeout: float = 10.0) -> bool:
    from tests.hub.boards import wait_for

    return bool(wait_for(condition, timeout=timeout))


def test_every_game_has_statistics() -> None:
    for name in ("trigono", "trike", "triolet", "triominos"):
        spec = game_spec(name)
        assert spec.player_stats is not None and initial_state({"game": name}) is not None
