"""The Trigono text scoreboard (engines/trigono/scoreboard.py, pure) and the command that
prints it (``trigono scoreboard``, hub/cli: the file and the printing live there)."""

from __future__ import annotations

import json
from pathlib import Path

from engines import game_spec
from engines.records import replay
from engines.trigono import (
    hexagon_boards,
)
from engines.trigono.scoreboard import describe
from tests.engines.command import trigono
from tests.engines.trigono_setups import play, start

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "engines" / "trigono" / "sample_match.json"


def test_sample_match_is_a_complete_three_player_two_board_match() -> None:
    record = json.loads(SAMPLE.read_text(encoding="utf-8"))
    state = replay(record)
    printed = state.to_json()
    assert len(record["options"]["players"]) == 3 and len(record["options"]["boards"]) == 2
    assert printed["status"] == "match_over" and printed["winner"] == "Ana"
    board = describe(printed)
    assert "match over" in board and "Ana" in board and "match winner" in board


def test_scoreboard_command_prints_the_sample() -> None:
    run = trigono("scoreboard", str(SAMPLE))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Trigono — round 4") and "Rounds: 1: Ana, 2: draw" in run.stdout
    assert run.stdout == describe(replay(json.loads(SAMPLE.read_text(encoding="utf-8"))).to_json()) + "\n"
    assert game_spec("trigono").scoreboard is describe


def test_scoreboard_command_refuses_a_game_without_one_and_a_bad_record() -> None:
    trike = trigono("scoreboard", str(ROOT / "tests" / "records" / "trike-swap.json"))
    assert (trike.returncode, trike.stdout) == (2, "")
    assert trike.stderr == "record: scoreboard is not available for trike\n"
    wrong = trigono("scoreboard", str(ROOT / "tests" / "records" / "trigono-wrong-player.json"))
    assert wrong.returncode == 2 and wrong.stdout == "" and wrong.stderr.startswith("action 1: ")


def test_scoreboard_shows_phase_target_and_eliminated() -> None:
    s = start(
        {
            "players": ["A", "B", "C"],
            "boards": hexagon_boards(),
            "palets_per_player": 1,
            "first": "A",
        }
    )
    play(s, "A>floor")
    text = describe(s.to_json())
    assert "final, target jackpot" in text and "(out)" in text and "\n> B" in text
