"""The Trigono text scoreboard (engines/trigono/scoreboard.py) and its command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engines.records import replay
from engines.trigono import (
    hexagon_boards,
)
from engines.trigono.scoreboard import describe
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
    run = subprocess.run(
        [sys.executable, "-m", "engines.trigono.scoreboard", str(SAMPLE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Trigono — round 4") and "Rounds: 1: Ana, 2: draw" in run.stdout


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
