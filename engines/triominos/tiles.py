"""Triominos tile sets (M1) and the precomputed fit masks used for move generation.

A tile is its three numbers read clockwise, smallest first (docs/records.md): ``"0-1-2"``.
Tiles rotate but never flip, so a tile can land on a cell in one to three distinct
*placements* (its distinct rotations). Every placement of a set gets a bit; for each of the
7³ = 343 corner keys (each corner a number 0–5, or 6 for "no number yet") :attr:`TileSet.fit`
holds the bitmask of the placements that match. Legal moves at a cell are then one AND:
``fit[key] & hand_mask``.

>>> CLASSIC.size, sum(sum(t) for t in CLASSIC.tiles)
(56, 420)
>>> EXCEL.size, EXCEL.name_of(EXCEL.index_of((1, 0, 2)))
(76, '0-2-1')
>>> CLASSIC.find((1, 0, 2)) is None          # 0-2-1 is not in the classic set
True
>>> [CLASSIC.placement_corners[p] for p in CLASSIC.placements_of(CLASSIC.index_of((1, 2, 2)))]
[(1, 2, 2), (2, 2, 1), (2, 1, 2)]
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from engines.core import RecordError

Corners = tuple[int, int, int]
NO_VALUE = 6
"""The corner-key digit of a lattice vertex that holds no number yet."""


def canonical(corners: Corners) -> Corners:
    """The rotation of ``corners`` that docs/records.md uses to name the tile (smallest first).

    >>> canonical((2, 0, 1)), canonical((2, 1, 1)), canonical((5, 3, 4))
    ((0, 1, 2), (1, 1, 2), (3, 4, 5))
    """
    a, b, c = corners
    return min((a, b, c), (b, c, a), (c, a, b))


def rotations(tile: Corners) -> list[Corners]:
    """The distinct rotations of a tile, starting with the tile itself.

    >>> rotations((3, 3, 3)), rotations((0, 1, 2))
    ([(3, 3, 3)], [(0, 1, 2), (1, 2, 0), (2, 0, 1)])
    """
    a, b, c = tile
    found: list[Corners] = []
    for rot in ((a, b, c), (b, c, a), (c, a, b)):
        if rot not in found:
            found.append(rot)
    return found


def tile_name(tile: Corners) -> str:
    """``"a-b-c"``."""
    return "-".join(str(v) for v in tile)


def parse_tile_name(text: object) -> Corners:
    """Parse ``"a-b-c"`` (numbers 0–5) into its canonical corners; RecordError if malformed.

    >>> parse_tile_name("2-0-1")
    (0, 1, 2)
    >>> parse_tile_name("1-2-9")
    Traceback (most recent call last):
    ...
    engines.core.RecordError: tile: expected "a-b-c" with numbers 0-5, got '1-2-9'
    """
    if isinstance(text, str):
        parts = text.split("-")
        if len(parts) == 3 and all(p in ("0", "1", "2", "3", "4", "5") for p in parts):
            return canonical((int(parts[0]), int(parts[1]), int(parts[2])))
    raise RecordError(f'tile: expected "a-b-c" with numbers 0-5, got {text!r}')


def corner_key(a: int, b: int, c: int) -> int:
    """Index into :attr:`TileSet.fit` for corner numbers (0–5, or NO_VALUE)."""
    return (a * 7 + b) * 7 + c


class TileSet:
    """One box of tiles: their order (tile index), placements and fit masks."""

    def __init__(self, name: str, tiles: list[Corners]) -> None:
        self.name = name
        self.tiles: tuple[Corners, ...] = tuple(tiles)
        self.size = len(tiles)
        self.pips: tuple[int, ...] = tuple(sum(t) for t in tiles)
        self._index = {t: i for i, t in enumerate(tiles)}
        # Placement ids run from the highest pip sum down, so the lowest set bit of any
        # mask is a best-scoring tile (the bot's reply estimate relies on it).
        self.placement_corners: list[Corners] = []
        self.placement_tile: list[int] = []
        self.tile_placements: list[int] = [0] * len(tiles)  # per tile: its placements' bits
        for index in sorted(range(len(tiles)), key=lambda t: (-self.pips[t], t)):
            for rot in rotations(tiles[index]):
                self.tile_placements[index] |= 1 << len(self.placement_corners)
                self.placement_corners.append(rot)
                self.placement_tile.append(index)
        self.placement_pips: list[int] = [sum(c) for c in self.placement_corners]
        self.fit: list[int] = [0] * 343
        for a, b, c in product(range(7), repeat=3):
            mask = 0
            for p, (x, y, z) in enumerate(self.placement_corners):
                if a in (x, NO_VALUE) and b in (y, NO_VALUE) and c in (z, NO_VALUE):
                    mask |= 1 << p
            self.fit[corner_key(a, b, c)] = mask

    def find(self, corners: Corners) -> int | None:
        """The index of the tile whose rotation ``corners`` is, or None if not in this set."""
        return self._index.get(canonical(corners))

    def index_of(self, corners: Corners) -> int:
        """Like :meth:`find` but raising RecordError for a tile the set does not have."""
        found = self.find(corners)
        if found is None:
            raise RecordError(f"tile {tile_name(canonical(corners))} is not in the {self.name} set")
        return found

    def name_of(self, index: int) -> str:
        return tile_name(self.tiles[index])

    def placements_of(self, index: int) -> list[int]:
        """Placement ids (bit numbers) of a tile."""
        mask = self.tile_placements[index]
        return [p for p in range(len(self.placement_corners)) if mask >> p & 1]

    def hand_mask(self, tiles: list[int]) -> int:
        """Bitmask of every placement of the given tiles."""
        mask = 0
        for t in tiles:
            mask |= self.tile_placements[t]
        return mask


def _classic_tiles() -> list[Corners]:
    # Every multiset a <= b <= c, read clockwise increasing (M1).
    return [(a, b, c) for a, b, c in combinations_with_replacement(range(6), 3)]


def _mirror_tiles() -> list[Corners]:
    # The 20 mirror images of the three-number tiles: a < c < b read clockwise.
    return [(a, c, b) for a, b, c in combinations_with_replacement(range(6), 3) if a < b < c]


CLASSIC = TileSet("classic", _classic_tiles())
EXCEL = TileSet("excel", _classic_tiles() + _mirror_tiles())
SETS: dict[str, TileSet] = {"classic": CLASSIC, "excel": EXCEL}
