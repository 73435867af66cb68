"""`trigono export TABLE --db FILE` prints a RECORDS.md record that `trigono replay` replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.cli import main
from hub.service import Hub


def test_export_prints_a_replayable_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "hub.db"
    hub = Hub(db)
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=4, options={"first": "Ana"})
    hub.submit("t1", {"landed": "board:B1"})
    view = hub.submit("t1", {"landed": "B1.big"})
    hub.close()
    assert main(["export", "t1", "--db", str(db)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["game"] == "trigono" and record["seed"] == 4
    assert record["actions"] == [{"throw": {"player": "Ana", "to": "board:B1"}},
                                 {"throw": {"player": "Ben", "to": "B1.big"}}]
    path = tmp_path / "t1.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == view["state"]


def test_export_of_an_unknown_table_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "t9", "--db", str(tmp_path / "hub.db")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "t9" in captured.err
