"""The `trigono` command line (hub/cli/main.py, hub/cli/commands.py): export, replay and analyze
(JSON and --pretty), the help texts, analyze's progress."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from hub.cli.main import Progress, main
from hub.facade import Hub
from tests.conftest import RECORDS


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


def test_trigono_help_is_for_users_and_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for command in ("replay", "analyze", "hub", "export", "sim"):
        assert f"trigono {command}" in text
    assert ":data:" not in text and "``" not in text  # no developer docstring


def test_replay_pretty_prints_the_state_and_one_line_per_action(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--pretty", str(RECORDS / "trigono-two-boards.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["game", "trigono"] and "to move      Ana" in lines
    log = lines[lines.index("log") + 1:]
    assert len(log) == 6 and log[4].split()[:3] == ["5.", "Ben", "throw"] and log[4].endswith("+3")


def test_analyze_pretty_labels_each_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--pretty", "--budget", "1", str(RECORDS / "trike-swap.json")]) == 0
    out = capsys.readouterr().out
    assert main(["analyze", "--budget", "1", str(RECORDS / "trike-swap.json")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert out.splitlines()[0].split()[-1] == str(result["to_move"])
    assert [line.split() for line in out.splitlines()[1:]] == [[m, lab] for m, lab in result["moves"].items()]


def test_a_long_search_shows_its_progress_on_stderr_only() -> None:
    stream = io.StringIO()
    with Progress("analyzing", 5.0, stream=stream, every_s=0.05):
        deadline = time.monotonic() + 10  # a search that outlasts the first report
        while "analyzing" not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    assert "analyzing… 0 s of about 5 s" in stream.getvalue()
    quiet = io.StringIO()
    with Progress("analyzing", 5.0, stream=quiet, every_s=10.0):
        pass
    assert quiet.getvalue() == ""
