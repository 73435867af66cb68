"""The triangular lattice of docs/records.md (shared by Trigono layouts and Triominos)."""

from __future__ import annotations

import itertools

import pytest

from engines.core import RecordError
from engines.lattice import (
    DOWN,
    UP,
    Cell,
    Vertex,
    cells_around,
    corners,
    edge_neighbours,
    hexagons,
    is_side_connected,
    shared_edge,
    vertex_neighbours,
)

SAMPLE = [Cell(i, j, o) for i, j, o in itertools.product(range(-2, 3), range(-2, 3), (UP, DOWN))]


def test_corners_follow_records_md() -> None:
    assert corners(Cell(0, 0, UP)) == (Vertex(0, 0), Vertex(0, 1), Vertex(1, 0))
    assert corners(Cell(0, 0, DOWN)) == (Vertex(0, 1), Vertex(1, 1), Vertex(1, 0))


@pytest.mark.parametrize("cell", SAMPLE)
def test_edge_neighbours_share_a_side_and_are_symmetric(cell: Cell) -> None:
    for n in edge_neighbours(cell):
        assert n.orient != cell.orient
        assert shared_edge(cell, n) is not None
        assert cell in edge_neighbours(n)


@pytest.mark.parametrize("cell", SAMPLE)
def test_vertex_neighbours_are_the_twelve_cells_sharing_a_corner(cell: Cell) -> None:
    around = vertex_neighbours(cell)
    assert len(around) == 12
    assert set(edge_neighbours(cell)) <= around


def test_cells_around_a_vertex_all_touch_it() -> None:
    for v in (Vertex(0, 0), Vertex(3, -2)):
        cells = cells_around(v)
        assert len(set(cells)) == 6
        assert all(v in corners(c) for c in cells)
        # consecutive cells around the vertex share a side (the ring is closed)
        for a, b in zip(cells, cells[1:] + cells[:1], strict=True):
            assert b in edge_neighbours(a)


def test_hexagons_found_only_when_all_six_cells_present() -> None:
    ring = list(cells_around(Vertex(2, 1)))
    assert hexagons(ring) == [Vertex(2, 1)]
    assert hexagons(ring[:5]) == []
    two = set(ring) | set(cells_around(Vertex(3, 1)))
    assert hexagons(two) == [Vertex(2, 1), Vertex(3, 1)]


def test_side_connection() -> None:
    assert is_side_connected([Cell(0, 0, UP), Cell(0, 0, DOWN)])
    # touching only at a corner is not side-connected
    assert not is_side_connected([Cell(0, 0, UP), Cell(1, 0, UP)])


@pytest.mark.parametrize("bad", [[0, 0], [0, 0, "left"], ["0", 0, "up"], [True, 0, "up"], "0,0,up"])
def test_cell_parse_rejects_malformed(bad: object) -> None:
    with pytest.raises(RecordError):
        Cell.from_json(bad)
