"""The Triolet board (engines/triolet/board.py): L1 special cells, L2 tokens."""

from __future__ import annotations

from engines.triolet.board import (
    CENTRE,
    MULTIPLIER,
    PLAY_AGAIN,
    cell_index,
    cell_name,
)


def test_L1_board_special_cells() -> None:
    cells = [cell_index(f"{c}{r}") for c in "ABCDEFGHIJKLMNO" for r in range(1, 16)]
    assert len(cells) == 225
    doubles = sorted(cell_name(i) for i in cells if MULTIPLIER[i] == 2)
    triples = sorted(cell_name(i) for i in cells if MULTIPLIER[i] == 3)
    again = sorted(cell_name(i) for i in cells if PLAY_AGAIN[i])
    assert doubles == sorted(["H8", "D8", "L8", "H4", "H12", "E5", "K5", "E11", "K11"])
    assert triples == sorted(["B5", "N5", "B11", "N11", "E2", "K2", "E14", "K14"])
    assert again == sorted(["A8", "O8", "H1", "H15", "B2", "N2", "B14", "N14"])
    assert cell_name(CENTRE) == "H8"
