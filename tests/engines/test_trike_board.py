"""Trike board geometry (engines/trike/board.py): K1 cells, names, neighbours, symmetries."""

from __future__ import annotations

import pytest

from engines.core import InvalidMoveError, RecordError
from engines.trike import TrikeGame
from engines.trike.board import geometry


# ---------------------------------------------------------------- K1 board
@pytest.mark.parametrize("size", range(3, 20))
def test_K1_board_cells_and_degrees(size: int) -> None:
    geo = geometry(size)
    assert geo.cells == size * (size + 1) // 2
    degrees = [len(nb) for nb in geo.neighbours]
    corners = set(geo.corners)
    for i, (r, c) in enumerate(geo.row_col):
        on_edge = c == 0 or c == r or r == size - 1
        expected = 2 if i in corners else 4 if on_edge else 6
        assert degrees[i] == expected, geo.names[i]
        for j in geo.neighbours[i]:
            assert i in geo.neighbours[j]
            dr, dc = geo.row_col[j][0] - r, geo.row_col[j][1] - c
            assert (dr, dc) in {(-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1)}


def test_K1_names_and_symmetries() -> None:
    geo = geometry(13)
    assert geo.names[:4] == ("a1", "b1", "b2", "c1") and geo.names[-1] == "m13"
    for perm in geo.symmetries():
        assert sorted(perm) == list(range(geo.cells))
        for i in range(geo.cells):
            assert {perm[j] for j in geo.neighbours[i]} == set(geo.neighbours[perm[i]])
    with pytest.raises(RecordError):
        TrikeGame({"size": 2})
    with pytest.raises(RecordError):
        TrikeGame({"size": 20})
    with pytest.raises(RecordError):
        TrikeGame({"colour": "red"})
    with pytest.raises(InvalidMoveError):
        TrikeGame({"size": 5}).parse_action("f1")
