"""The Triominos table: tiles on the shared triangular lattice, with per-vertex numbers.

Every lattice vertex holds at most one number (M4), so the board keeps, per vertex, its
number and how many tiles touch it, plus the *frontier* (empty cells sharing a side with a
tile). Legality of a candidate is then constant-time: the cell is on the frontier and its
three corners agree with the vertex numbers. Bonuses (M6–M8) come from the same counts.

Cells and vertices are small integers inside this module (see :func:`cell_key`); the
geometry itself comes from :mod:`engines.lattice`.

>>> from engines.lattice import Cell
>>> board = Board()
>>> board.place(cell_key(Cell(0, 0, "up")), (0, 1, 2))
>>> board.fits(cell_key(Cell(0, 0, "down")), (1, 2, 2))
True
>>> board.fits(cell_key(Cell(0, 0, "down")), (2, 2, 1))
False
>>> sorted(key_cell(k) for k in board.frontier)[0]
Cell(i=-1, j=0, orient='down')
"""

from __future__ import annotations

from engines.lattice import DOWN, UP, Cell, Vertex, cells_around, corners, edge_neighbours
from engines.triominos.tiles import NO_VALUE, Corners, corner_key

SPAN = 1 << 16
COORD_LIMIT = 4096
"""|i|, |j| of cells a position may use (a full game spans well under 100)."""

HEXAGON = "hexagon"
DOUBLE_HEXAGON = "double_hexagon"
TRIPLE_HEXAGON = "triple_hexagon"
BRIDGE = "bridge"
HEXAGON_BONUSES = (None, HEXAGON, DOUBLE_HEXAGON, TRIPLE_HEXAGON)


def vertex_key(v: Vertex) -> int:
    return v.i * SPAN + v.j


def cell_key(cell: Cell) -> int:
    """A cell as one integer (unique for |i|, |j| < 2**15).

    >>> key_cell(cell_key(Cell(-3, 7, "down")))
    Cell(i=-3, j=7, orient='down')
    """
    return (cell.i * SPAN + cell.j) * 2 + (1 if cell.orient == DOWN else 0)


def key_cell(key: int) -> Cell:
    base, down = divmod(key, 2)
    i, j = divmod(base + SPAN // 2, SPAN)
    return Cell(i, j - SPAN // 2, DOWN if down else UP)


# cell key -> (corner vertex keys clockwise, edge-neighbour cell keys N0..N2 where N_k is
# across the side opposite corner k). Filled lazily; pure function of the key.
_GEOMETRY: dict[int, tuple[tuple[int, int, int], tuple[int, int, int]]] = {}


def geometry(key: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Corner vertices and opposite-side neighbours of a cell, from :mod:`engines.lattice`."""
    found = _GEOMETRY.get(key)
    if found is None:
        cell = key_cell(key)
        v0, v1, v2 = (vertex_key(v) for v in corners(cell))
        n0, n1, n2 = (cell_key(n) for n in edge_neighbours(cell))
        found = ((v0, v1, v2), (n0, n1, n2))
        _GEOMETRY[key] = found
    return found


_AROUND: dict[int, tuple[int, ...]] = {}


def cells_at(vertex: int) -> tuple[int, ...]:
    """Cell keys of the six cells around a vertex key (cached)."""
    found = _AROUND.get(vertex)
    if found is None:
        i, j = divmod(vertex + SPAN // 2, SPAN)
        found = tuple(cell_key(c) for c in cells_around(Vertex(i, j - SPAN // 2)))
        _AROUND[vertex] = found
    return found


_NEAR: dict[int, tuple[int, ...]] = {}


def near(key: int) -> tuple[int, ...]:
    """The twelve cells sharing at least a corner with a cell (cached)."""
    found = _NEAR.get(key)
    if found is None:
        seen: list[int] = []
        for v in geometry(key)[0]:
            for cell in cells_at(v):
                if cell != key and cell not in seen:
                    seen.append(cell)
        found = tuple(seen)
        _NEAR[key] = found
    return found


class Board:
    """Tiles on the table (insertion-ordered), vertex numbers and counts, and the frontier:
    each empty cell sharing a side with a tile, mapped to its corner key (kept up to date
    on every placement, so move generation reads it instead of recomputing it)."""

    __slots__ = ("tiles", "value", "count", "frontier")

    def __init__(self) -> None:
        self.tiles: dict[int, Corners] = {}
        self.value: dict[int, int] = {}
        self.count: dict[int, int] = {}
        self.frontier: dict[int, int] = {}

    def copy(self) -> Board:
        other = Board()
        other.tiles = dict(self.tiles)
        other.value = dict(self.value)
        other.count = dict(self.count)
        other.frontier = dict(self.frontier)
        return other

    def __len__(self) -> int:
        return len(self.tiles)

    def key_at(self, key: int) -> int:
        """The fit-mask key of a cell: its corners' numbers, NO_VALUE where none."""
        (v0, v1, v2), _ = geometry(key)
        get = self.value.get
        return corner_key(get(v0, NO_VALUE), get(v1, NO_VALUE), get(v2, NO_VALUE))

    def conflicts(self, key: int, corners_: Corners) -> int | None:
        """Index of the first corner whose number disagrees with the vertex, else None."""
        vertices, _ = geometry(key)
        for k in range(3):
            held = self.value.get(vertices[k])
            if held is not None and held != corners_[k]:
                return k
        return None

    def fits(self, key: int, corners_: Corners) -> bool:
        """M4: the cell is empty, shares a side with a tile (or the table is empty) and every
        corner agrees with the numbers already at its vertex."""
        if key in self.tiles:
            return False
        if self.tiles and key not in self.frontier:
            return False
        return self.conflicts(key, corners_) is None

    def place(self, key: int, corners_: Corners) -> None:
        """Put a tile down (no checks: callers check with :meth:`fits`)."""
        vertices, sides = geometry(key)
        self.tiles[key] = corners_
        for k in range(3):
            v = vertices[k]
            self.value[v] = corners_[k]
            self.count[v] = self.count.get(v, 0) + 1
        frontier = self.frontier
        frontier.pop(key, None)
        for n in sides:  # only the side neighbours can join the frontier
            if n not in self.tiles:
                frontier[n] = 0
        self._refresh(key)

    def remove(self, key: int) -> None:
        """Undo :meth:`place` of the tile at ``key`` (search only)."""
        vertices, sides = geometry(key)
        del self.tiles[key]
        for v in vertices:
            left = self.count[v] - 1
            if left:
                self.count[v] = left
            else:
                del self.count[v]
                del self.value[v]
        for n in sides:
            if n in self.frontier and not any(m in self.tiles for m in geometry(n)[1]):
                del self.frontier[n]
        if any(n in self.tiles for n in sides):
            self.frontier[key] = self.key_at(key)
        self._refresh(key)

    def _refresh(self, key: int) -> None:
        """Recompute the corner keys of frontier cells touching ``key`` (the only ones a
        change there can alter)."""
        frontier = self.frontier
        for cell in near(key):
            if cell in frontier:
                frontier[cell] = self.key_at(cell)

    def bonus(self, key: int, pressman_bridge: bool = False) -> str | None:
        """The bonus a tile placed at ``key`` now would earn (M6–M8), from the state before it.

        Hexagon: the tile is the sixth around a corner (count 5 there); two or three corners
        at once make double and triple hexagons. Bridge (Goliath, M7): the side opposite
        corner k touches a tile, the two sides at corner k do not, and corner k touches the
        layout at a point. ``pressman_bridge`` also pays a tile that matches exactly two
        sides and touches the layout at a point at the corner opposite one of them (it
        fills the notch under a bridge).
        """
        vertices, sides = geometry(key)
        count = self.count.get
        hexagons = 0
        for v in vertices:
            if count(v, 0) == 5:
                hexagons += 1
        if hexagons:
            return HEXAGON_BONUSES[hexagons]
        tiles = self.tiles
        occupied = (sides[0] in tiles, sides[1] in tiles, sides[2] in tiles)
        for k in range(3):
            if (
                occupied[k]
                and not occupied[(k + 1) % 3]
                and not occupied[(k + 2) % 3]
                and count(vertices[k], 0) >= 1
            ):
                return BRIDGE
        if pressman_bridge and sum(occupied) == 2:
            for k in range(3):
                point_contacts = (
                    count(vertices[k], 0) - occupied[(k + 1) % 3] - occupied[(k + 2) % 3]
                )
                if occupied[k] and point_contacts >= 1:
                    return BRIDGE
        return None

    def fitting_mask(self, fit: list[int]) -> int:
        """Bitmask of every placement that fits somewhere on the frontier."""
        mask = 0
        for corner_key_ in self.frontier.values():
            mask |= fit[corner_key_]
        return mask
