"""`trigono replay` (docs/records.md, 'The command'), run in process (tests/engines/command.py);
the real process is run by the tests that say so.

Every worked example in tests/records replays to the fields it expects (or fails on the
action it names); malformed Trigono records exit 2 with nothing on stdout and exactly one
stderr line naming the action index.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engines import GAMES
from tests.engines.command import Run
from tests.engines.command import trigono as run_command

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "records"
TRIGONO_BIN = ROOT / ".venv" / "bin" / "trigono"
EXAMPLES = sorted(RECORDS.glob("*.json"))


def command() -> list[str]:
    """The installed `trigono` script when there is one, else `python -m hub` (the same CLI)."""
    if TRIGONO_BIN.exists():
        return [str(TRIGONO_BIN)]
    return [sys.executable, "-m", "hub"]


def run_replay(record: Any = None, *, raw: str | None = None, via_file: Path | None = None) -> Run:
    """Run `trigono replay` on a file (when ``via_file``) or on stdin (`-`)."""
    text = raw if raw is not None else json.dumps(record, ensure_ascii=False)
    if via_file is not None:
        via_file.write_text(text, encoding="utf-8")
        return run_command("replay", str(via_file))
    return run_command("replay", "-", stdin=text)


def _same(field: str, got: Any, want: Any) -> bool:
    """Compare as docs/records.md § Worked examples says: racks as multisets, count maps with or without zeros."""
    if field == "racks" and isinstance(got, dict) and isinstance(want, dict):
        return {k: sorted(map(str, v)) for k, v in got.items()} == {
            k: sorted(map(str, v)) for k, v in want.items()
        }
    if (
        isinstance(want, dict)
        and isinstance(got, dict)
        and all(
            isinstance(v, int) and not isinstance(v, bool) for v in [*want.values(), *got.values()]
        )
    ):
        return {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}
    return bool(got == want)


def test_every_registered_game_has_a_worked_example() -> None:
    assert {json.loads(p.read_text(encoding="utf-8"))["game"] for p in EXAMPLES} == set(GAMES)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_replays_as_expected(path: Path, tmp_path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    expect = record.pop("expect", None)
    expect_error = record.pop("expect_error", None)
    run = run_replay(record, via_file=tmp_path / path.name)
    if expect_error is not None:
        assert run.returncode == expect_error["exit"]
        assert run.stdout == ""
        lines = run.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"action {expect_error['index']}: ")
        return
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    state = json.loads(run.stdout)
    assert run.stdout.count("\n") == 1, "one JSON object on one line"
    for key in ("game", "status", "to_move", "winner", "log"):
        assert key in state
    for field, value in expect.items():
        if field == "log_points":
            assert [entry["points"] for entry in state["log"]] == value
        else:
            assert _same(field, state[field], value), (field, state[field], value)


def test_stdin_dash_reads_the_record() -> None:
    record = json.loads((RECORDS / "trigono-two-boards.json").read_text(encoding="utf-8"))
    expect = record.pop("expect")
    run = run_replay(record)
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout)
    assert state["hands"] == expect["hands"] and state["game"] == "trigono"


def test_python_dash_m_hub_is_the_same_command(tmp_path: Path) -> None:
    path = ROOT / "engines" / "trigono" / "sample_match.json"
    via_module = subprocess.run(
        [sys.executable, "-m", "hub", "replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    via_script = subprocess.run(
        [*command(), "replay", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert via_module.returncode == via_script.returncode == 0
    assert via_module.stdout == via_script.stdout
    assert json.loads(via_module.stdout)["status"] == "match_over"


BASE: dict[str, Any] = {
    "game": "trigono",
    "seed": 3,
    "options": {"players": ["Ana", "Ben", "Chloé"], "first": "Ana", "palets_per_player": 1},
}


def trigono(*actions: Any, **options: Any) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(json.dumps(BASE))
    record["options"].update(options)
    record["actions"] = list(actions)
    return record


def throw(player: str, to: str, **extra: Any) -> dict[str, Any]:
    return {"throw": {"player": player, "to": to, **extra}}


MALFORMED = {
    "unknown-field-in-throw": (
        trigono(throw("Ana", "floor"), throw("Ben", "floor", spin=2)),
        1,
        "unknown field 'spin'",
    ),
    "unknown-action": (trigono(throw("Ana", "floor"), {"pass": True}), 1, "unknown field 'pass'"),
    "wrong-player": (trigono(throw("Ben", "floor")), 0, "it is Ana's turn"),
    "eliminated-player": (
        trigono(throw("Ana", "floor"), throw("Ben", "board:B1"), throw("Ana", "floor")),
        2,
        "Ana is eliminated",
    ),
    "unknown-player": (trigono(throw("Zoé", "floor")), 0, "unknown player 'Zoé'"),
    "unknown-board": (trigono(throw("Ana", "board:B7")), 0, "unknown board 'board:B7'"),
    "unknown-hole": (trigono(throw("Ana", "B1.medium")), 0, "unknown destination 'B1.medium'"),
    "unknown-jackpot": (trigono(throw("Ana", "jackpot")), 0, "unknown destination 'jackpot'"),
    "invalid-on-board": (
        trigono(throw("Ana", "board:B1", invalid=True)),
        0,
        "only applies to a drop into a hole",
    ),
    "knocked-from-empty-board": (
        trigono(throw("Ana", "floor", knocked=[{"from": "B1", "to": "B1.big"}])),
        0,
        "no palet was lying on board B1",
    ),
    "throw-after-match-over": (
        trigono(
            throw("Ana", "floor"),
            throw("Ben", "floor"),
            throw("Chloé", "B1.small"),
            throw("Chloé", "floor"),
            rounds_to_win=1,
        ),
        3,
        "the match is over",
    ),
    "target-outside-final": (
        trigono(throw("Ana", "floor"), {"target": "B1.big"}),
        1,
        "no final is being played",
    ),
    "action-not-an-object": (trigono(throw("Ana", "floor"), "Ben>floor"), 1, "expected an object"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_trigono_record_exits_2_naming_the_action(name: str) -> None:
    record, index, reason = MALFORMED[name]
    run = run_replay(record)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"action {index}: ") and reason in lines[0], lines[0]


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("{not json", "record: not JSON"),
        ("[1, 2]", "record: a record is a JSON object"),
        (json.dumps({**BASE, "options": {"colour": "red"}}), "record: options: unknown field"),
        (json.dumps({**BASE, "referee": "Zoé"}), "record: record: unknown field 'referee'"),
        (
            json.dumps({**BASE, "options": {"players": ["A", "B", "C", "D", "E"]}}),
            "record: players: 5 players need at least 2 boards",
        ),
        (json.dumps({**BASE, "actions": {"0": 1}}), "record: actions: expected a list"),
    ],
)
def test_malformed_record_exits_2_with_one_record_line(raw: str, reason: str) -> None:
    run = run_replay(raw=raw)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(reason), run.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    run = run_command("replay", str(tmp_path / "nope.json"))
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("record: cannot read")


# -- the examples as shipped, expectations included (issue 17: the README's command) ---------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_file_replays_as_shipped_with_its_expectation(path: Path, tmp_path: Path) -> None:
    """`trigono replay tests/records/X.json` on the file itself: the same output as the record without its claim (a true claim changes nothing)."""
    record = json.loads(path.read_text(encoding="utf-8"))
    bare = tmp_path / path.name
    bare.write_text(json.dumps({k: v for k, v in record.items() if k not in ("expect", "expect_error")}))
    as_shipped = run_command("replay", str(path))
    stripped = run_command("replay", str(bare))
    assert "unknown field" not in as_shipped.stderr
    assert as_shipped == stripped


def test_readme_command_on_a_shipped_example() -> None:
    """The README's own command, as a process, on a file with an ``expect``."""
    run = subprocess.run([*command(), "replay", str(RECORDS / "trike-swap.json")],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0 and run.stderr == ""
    assert json.loads(run.stdout)["pawn"] == "d1"


def test_false_expectation_exits_2_naming_the_field(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "trike-swap.json").read_text(encoding="utf-8"))
    record["expect"]["to_move"] = "Ben"
    run = run_replay(record, via_file=tmp_path / "wrong.json")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == "record: expect.to_move: the replay gives 'Ana', not 'Ben'\n"


def test_expected_error_that_does_not_happen_exits_2(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "trigono-wrong-player.json").read_text(encoding="utf-8"))
    record["actions"] = record["actions"][:1]
    run = run_replay(record, via_file=tmp_path / "accepted.json")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("record: expect_error: action 1 was expected to fail")


def test_scoreboard_command_reads_a_shipped_example() -> None:
    run = subprocess.run(
        [*command(), "scoreboard", str(RECORDS / "trigono-two-boards.json")],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Trigono — round 1")
