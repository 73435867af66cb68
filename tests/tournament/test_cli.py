"""``trigono export ID`` / ``trigono tournament load|sim`` (issue 16): a tournament leaves
one hub as a file and a new hub loads it; a simulated tournament runs to a podium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.cli.main import main
from hub.log.sqlite import SqliteStore
from hub.tournament.service import TournamentService


def test_export_then_load_into_a_new_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SqliteStore(tmp_path / "a.db")
    service = TournamentService(store)
    service.create({"name": "Cup", "game": "triolet", "format": "swiss", "rounds": 2, "check_in": False},
                   tournament_id="C1")
    for name in ("Ana", "Ben", "Chloé"):
        service.submit("C1", {"type": "register", "player": {"name": name}})
    view = service.submit("C1", {"type": "start"})
    m = next(m for m in view["matches"] if m["status"] == "ready")
    before = service.submit("C1", {"type": "result", "match": m["id"], "ranking": m["players"]})
    store.close()
    assert main(["export", "C1", "--db", str(tmp_path / "a.db")]) == 0
    exported = capsys.readouterr().out
    (tmp_path / "c1.json").write_text(exported, encoding="utf-8")
    assert main(["tournament", "load", str(tmp_path / "c1.json"), "--db", str(tmp_path / "b.db")]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == before["entries"]
    other = SqliteStore(tmp_path / "b.db")
    after = TournamentService(other).view("C1")
    other.close()
    assert {k: v for k, v in after.items() if k != "created_at"} == {
        k: v for k, v in before.items() if k != "created_at"}
    assert main(["export", "nope", "--db", str(tmp_path / "a.db")]) == 2


def test_simulated_pools_tournament_reaches_a_podium(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "sim", "16", "--format", "pools", "--game", "trike", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert any(line.startswith("match ") and " → row" in line for line in lines)
    podium = json.loads(lines[-1])
    assert [p["place"] for p in podium] == [1, 2, 3, 3]


@pytest.mark.slow
def test_trigono_sim_tournament_on_simulated_boards(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's spelling, ``trigono sim --tournament N --format pools``: Trigono
    matches on simulated boards (firmware node code over ptys), to a podium."""
    assert main(["sim", "--tournament", "6", "--format", "pools", "--tables", "3", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert any(" → row" in line for line in lines)
    podium = json.loads(lines[-1])
    assert podium[0]["place"] == 1 and len(podium) >= 3


@pytest.mark.slow  # a whole 16-player simulated tournament, ~2 s each: the fast loop stays under a minute; the whole suite runs it
@pytest.mark.parametrize("spelling", [["tournament", "sim", "16"], ["sim", "--tournament", "16"]])
def test_a_simulated_tournament_is_kept_in_its_db_and_prints_every_call(
        spelling: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 5: ``--db FILE`` keeps the simulated tournament (it exports from FILE), and
    every call is printed, the final's included (38 calls > the view's last 30)."""
    db = tmp_path / "sim.db"
    assert main([*spelling, "--format", "pools", "--game", "trike", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    printed = [line for line in out.splitlines() if line.startswith("match ")]
    assert f"trigono export SIM --db {db}" in out
    assert main(["export", "SIM", "--db", str(db)]) == 0
    doc = json.loads(capsys.readouterr().out)
    calls = [e for e in doc["entries"] if e["type"] == "call"]
    assert len(calls) > 30 and len(printed) == len(calls)
    final = max(int(e["match"][1:]) for e in calls)
    assert any(line.startswith(f"match {final}:") for line in printed)
