"""Trike board geometry (rules K1): a triangle of hexagonal cells, side 3 to 19.

Cells are numbered in board order — by row from the apex, then left to right — so cell
(r, c) has index ``r(r+1)/2 + c`` whatever the board size, and its record name is the row
letter plus the 1-based number in the row (docs/records.md § Trike).

Everything a move generator needs is precomputed once per size: the six rays from each
cell (nearest cell first), the neighbour lists, and the neighbour bit masks.

>>> g = geometry(3)
>>> g.cells, g.names
(6, ('a1', 'b1', 'b2', 'c1', 'c2', 'c3'))
>>> [g.names[i] for i in g.neighbours[g.index("b1")]]
['a1', 'b2', 'c1', 'c2']
>>> [len(g.neighbours[i]) for i in range(g.cells)]
[2, 4, 4, 2, 4, 2]
>>> [[g.names[i] for i in ray] for ray in g.rays[g.index("c1")]]
[['b1', 'a1'], ['c2', 'c3']]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engines.core import InvalidMoveError

MIN_SIZE = 3
MAX_SIZE = 19
ROW_LETTERS = "abcdefghijklmnopqrs"

# K1: (dr, dc) of the six neighbours, in a fixed order.
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, 0), (1, 1))


def cell_index(row: int, col: int) -> int:
    """Board-order index of cell (row, col); the same on every board size.

    >>> cell_index(0, 0), cell_index(2, 1), cell_index(12, 12)
    (0, 4, 90)
    """
    return row * (row + 1) // 2 + col


def cell_name(index: int) -> str:
    """Record name of a cell index (row letter, then number within the row).

    >>> cell_name(0), cell_name(4), cell_name(189)
    ('a1', 'c2', 's19')
    """
    row = 0
    while cell_index(row + 1, 0) <= index:
        row += 1
    return f"{ROW_LETTERS[row]}{index - cell_index(row, 0) + 1}"


@dataclass(frozen=True)
class Geometry:
    """Precomputed tables of one board size. Build with :func:`geometry` (cached)."""

    size: int
    cells: int
    names: tuple[str, ...]
    row_col: tuple[tuple[int, int], ...]
    neighbours: tuple[tuple[int, ...], ...]
    neighbour_mask: tuple[int, ...]
    # rays[i]: for each direction that has at least one cell, the cells from i outwards.
    rays: tuple[tuple[tuple[int, ...], ...], ...]
    # corners of the triangle: apex, bottom left, bottom right.
    corners: tuple[int, int, int]

    def index(self, name: str) -> int:
        """Index of a cell name; InvalidMoveError if the board has no such cell.

        >>> geometry(5).index("e5")
        14
        >>> geometry(5).index("f1")
        Traceback (most recent call last):
        ...
        engines.core.InvalidMoveError: no cell 'f1' on a side-5 board
        """
        found = _name_to_index(self.size).get(name) if isinstance(name, str) else None
        if found is None:
            raise InvalidMoveError(f"no cell {name!r} on a side-{self.size} board")
        return found

    @property
    def symmetry_tables(self) -> tuple[tuple[int, ...], ...]:
        return _symmetries(self.size)

    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The six permutations of the cells under the triangle's symmetry group D3.

        Barycentric coordinates (n-1-r, c, r-c) sum to n-1; permuting them maps the board
        onto itself.

        >>> len(geometry(4).symmetries()), sorted(set(p[0] for p in geometry(4).symmetries()))
        (6, [0, 6, 9])
        """
        n = self.size
        perms = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
        result = []
        for perm in perms:
            table = []
            for r, c in self.row_col:
                bary = (n - 1 - r, c, r - c)
                a, b, _ = (bary[perm[0]], bary[perm[1]], bary[perm[2]])
                row = n - 1 - a
                table.append(cell_index(row, b))
            result.append(tuple(table))
        return tuple(result)


@cache
def _symmetries(size: int) -> tuple[tuple[int, ...], ...]:
    return geometry(size).symmetries()


@cache
def _name_to_index(size: int) -> dict[str, int]:
    return {name: i for i, name in enumerate(geometry(size).names)}


@cache
def geometry(size: int) -> Geometry:
    """The tables for a board of side ``size`` (3–19)."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be {MIN_SIZE}..{MAX_SIZE}")
    row_col = tuple((r, c) for r in range(size) for c in range(r + 1))
    cells = len(row_col)

    def inside(r: int, c: int) -> bool:
        return 0 <= c <= r < size

    neighbours = []
    rays = []
    for r, c in row_col:
        neighbours.append(
            tuple(cell_index(r + dr, c + dc) for dr, dc in DIRECTIONS if inside(r + dr, c + dc))
        )
        cell_rays = []
        for dr, dc in DIRECTIONS:
            ray = []
            rr, cc = r + dr, c + dc
            while inside(rr, cc):
                ray.append(cell_index(rr, cc))
                rr, cc = rr + dr, cc + dc
            if ray:
                cell_rays.append(tuple(ray))
        rays.append(tuple(cell_rays))
    masks = tuple(sum(1 << j for j in nb) for nb in neighbours)
    return Geometry(
        size=size,
        cells=cells,
        names=tuple(cell_name(i) for i in range(cells)),
        row_col=row_col,
        neighbours=tuple(neighbours),
        neighbour_mask=masks,
        rays=tuple(rays),
        corners=(0, cell_index(size - 1, 0), cell_index(size - 1, size - 1)),
    )
