"""The simulator's load cell (hub.sim.model.LoadCellModel read by the firmware's own
LoadCell through hub.sim.board.SimBoard): one `weight` event per change, with the right
count, however the board rocks after a landing (R2)."""

from __future__ import annotations

import random
from pathlib import Path

from hub.sim.board import SimBoard


def weights(board: SimBoard) -> list[int]:
    return [e["board_palets"] for e in board.events() if e["type"] == "weight"]


def test_each_landing_gives_one_weight_event_with_the_right_count(tmp_path: Path) -> None:
    board = SimBoard("L1", ["big", "small"], tmp_path / "ttyL1")
    try:
        board.add_load_cell(seed=3)
        board.set_palets(0)  # an empty board, steady: the first reading says 0
        assert board.wait_idle(10)
        rng = random.Random(7)
        expected = [0]
        palets = 0
        for _ in range(60):  # landings, knock-offs and clear-ups, each with its own rocking
            palets = max(0, palets + rng.choice((1, 1, 1, -1, -2)))
            if expected[-1] == palets:
                continue
            board.set_palets(palets)
            assert board.wait_idle(10)
            expected.append(palets)
        assert weights(board) == expected
    finally:
        board.close()
