"""The triangular lattice of docs/records.md, shared by Trigono layouts and Triominos.

Vertices V(i, j) = i·e1 + j·e2 with e1 = (1, 0), e2 = (1/2, √3/2). A cell is
``(i, j, "up")`` or ``(i, j, "down")``.

>>> corners(Cell(0, 0, "up"))
(Vertex(i=0, j=0), Vertex(i=0, j=1), Vertex(i=1, j=0))
>>> sorted(edge_neighbours(Cell(0, 0, "up")))
[Cell(i=-1, j=0, orient='down'), Cell(i=0, j=-1, orient='down'), Cell(i=0, j=0, orient='down')]
>>> len(cells_around(Vertex(1, 1)))
6
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal, NamedTuple

from engines.core import RecordError

Orient = Literal["up", "down"]
UP: Orient = "up"
DOWN: Orient = "down"


class Vertex(NamedTuple):
    i: int
    j: int

    def xy(self) -> tuple[float, float]:
        """Cartesian coordinates (unit edge length), for drawing."""
        return (self.i + self.j / 2, self.j * math.sqrt(3) / 2)


class Cell(NamedTuple):
    i: int
    j: int
    orient: Orient

    @classmethod
    def from_json(cls, obj: Any) -> Cell:
        """Parse ``[i, j, "up"|"down"]``.

        >>> Cell.from_json([2, -1, "down"])
        Cell(i=2, j=-1, orient='down')
        >>> Cell.from_json([0, 0, "left"])
        Traceback (most recent call last):
        ...
        engines.core.RecordError: cell: expected [i, j, "up"|"down"], got [0, 0, 'left']
        """
        if (
            isinstance(obj, (list, tuple))
            and len(obj) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) for v in obj[:2])
            and obj[2] in ("up", "down")
        ):
            return cls(obj[0], obj[1], obj[2])
        raise RecordError(f'cell: expected [i, j, "up"|"down"], got {obj!r}')

    def to_json(self) -> list[Any]:
        return [self.i, self.j, self.orient]


def corners(cell: Cell) -> tuple[Vertex, Vertex, Vertex]:
    """The cell's three corners, clockwise, in the order docs/records.md numbers them 0, 1, 2."""
    i, j = cell.i, cell.j
    if cell.orient == UP:
        return (Vertex(i, j), Vertex(i, j + 1), Vertex(i + 1, j))
    return (Vertex(i, j + 1), Vertex(i + 1, j + 1), Vertex(i + 1, j))


def edge_neighbours(cell: Cell) -> tuple[Cell, Cell, Cell]:
    """The three cells sharing a side with ``cell``."""
    i, j = cell.i, cell.j
    if cell.orient == UP:
        return (Cell(i, j, DOWN), Cell(i, j - 1, DOWN), Cell(i - 1, j, DOWN))
    return (Cell(i + 1, j, UP), Cell(i, j, UP), Cell(i, j + 1, UP))


def cells_around(v: Vertex) -> tuple[Cell, ...]:
    """The six cells meeting at vertex ``v``, in rotational order."""
    i, j = v.i, v.j
    return (
        Cell(i, j, UP),
        Cell(i - 1, j, DOWN),
        Cell(i - 1, j, UP),
        Cell(i - 1, j - 1, DOWN),
        Cell(i, j - 1, UP),
        Cell(i, j - 1, DOWN),
    )


def vertex_neighbours(cell: Cell) -> set[Cell]:
    """Cells sharing at least a corner with ``cell`` (edge neighbours included), not itself."""
    found = {c for v in corners(cell) for c in cells_around(v)}
    found.discard(cell)
    return found


def shared_edge(a: Cell, b: Cell) -> tuple[Vertex, Vertex] | None:
    """The two corners ``a`` and ``b`` share when they are edge neighbours, else None."""
    common = set(corners(a)) & set(corners(b))
    if len(common) == 2:
        first, second = sorted(common)
        return (first, second)
    return None


def hexagons(cells: Iterable[Cell]) -> list[Vertex]:
    """Vertices whose six surrounding cells are all in ``cells``, sorted by (i, j)."""
    present = set(cells)
    candidates = {v for c in present for v in corners(c)}
    return sorted(v for v in candidates if all(c in present for c in cells_around(v)))


def is_side_connected(cells: Iterable[Cell]) -> bool:
    """True when the cells form one group through shared sides (an empty set is connected)."""
    present = set(cells)
    if not present:
        return True
    start = next(iter(present))
    seen = {start}
    todo = [start]
    while todo:
        for n in edge_neighbours(todo.pop()):
            if n in present and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(present)


def centroid(cell: Cell) -> tuple[float, float]:
    """The cell's centre in Cartesian coordinates, for drawing."""
    pts = [v.xy() for v in corners(cell)]
    return (sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3)
