"""Triominos board geometry (engines/triominos/board.py): sides, hexagons and bridges in every orientation (M6, M7)."""

from __future__ import annotations

from itertools import combinations

import pytest

from engines.lattice import DOWN, UP, Cell, cells_around, corners, edge_neighbours
from engines.triominos.board import Board, cell_key

ORIENTED = [Cell(0, 0, UP), Cell(0, 0, DOWN), Cell(3, -2, UP), Cell(-1, 4, DOWN)]


ZERO = (0, 0, 0)


def board_with(cells: list[Cell]) -> Board:
    board = Board()
    for c in cells:
        board.place(cell_key(c), ZERO)
    return board


# ---------------------------------------------------------------- geometry
@pytest.mark.parametrize("cell", ORIENTED)
def test_geometry_side_k_is_opposite_corner_k(cell: Cell) -> None:
    for k, n in enumerate(edge_neighbours(cell)):
        assert corners(cell)[k] not in corners(n)


@pytest.mark.parametrize("cell", ORIENTED)
@pytest.mark.parametrize("k", range(3))
def test_M6_hexagon_geometry_every_orientation_and_corner(cell: Cell, k: int) -> None:
    v = corners(cell)[k]
    others = [c for c in cells_around(v) if c != cell]
    assert board_with(others).bonus(cell_key(cell)) == "hexagon"
    for missing in others:  # five around the corner are needed, four are not enough
        rest = [c for c in others if c != missing]
        assert board_with(rest).bonus(cell_key(cell)) != "hexagon"


@pytest.mark.parametrize("cell", ORIENTED)
@pytest.mark.parametrize("pair", list(combinations(range(3), 2)))
def test_M6_double_hexagon_geometry(cell: Cell, pair: tuple[int, int]) -> None:
    around = {c for k in pair for c in cells_around(corners(cell)[k])} - {cell}
    assert board_with(sorted(around)).bonus(cell_key(cell)) == "double_hexagon"


@pytest.mark.parametrize("cell", ORIENTED)
def test_M6_triple_hexagon_geometry(cell: Cell) -> None:
    around = {c for v in corners(cell) for c in cells_around(v)} - {cell}
    assert len(around) == 12
    assert board_with(sorted(around)).bonus(cell_key(cell)) == "triple_hexagon"


def _point_cells(cell: Cell, k: int) -> list[Cell]:
    """Cells touching ``cell`` only at its corner k."""
    sides = set(edge_neighbours(cell))
    return [c for c in cells_around(corners(cell)[k]) if c != cell and c not in sides]


@pytest.mark.parametrize("cell", ORIENTED)
@pytest.mark.parametrize("k", range(3))
def test_M7_bridge_geometry_every_orientation(cell: Cell, k: int) -> None:
    sides = edge_neighbours(cell)
    points = _point_cells(cell, k)
    assert len(points) == 3
    key = cell_key(cell)
    for point in points:
        assert board_with([sides[k], point]).bonus(key) == "bridge"
        # a covered flank (a second side) spoils it under Goliath rules, not under Pressman
        for flank in (sides[(k + 1) % 3], sides[(k + 2) % 3]):
            board = board_with([sides[k], point, flank])
            assert board.bonus(key) is None
            assert board.bonus(key, pressman_bridge=True) == "bridge"
    # a side alone, or a point at another corner, is no bridge
    assert board_with([sides[k]]).bonus(key) is None
    for other in _point_cells(cell, (k + 1) % 3):
        if other not in cells_around(corners(cell)[k]):
            assert board_with([sides[k], other]).bonus(key) is None
