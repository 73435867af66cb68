"""Triominos tile sets (engines/triominos/tiles.py): M1, rotations and the fit masks."""

from __future__ import annotations

from collections import Counter

from engines.triominos.tiles import CLASSIC, EXCEL, SETS, canonical, tile_name


# ---------------------------------------------------------------- M1 sets
def test_M1_classic_set_has_56_tiles_increasing_clockwise() -> None:
    kinds = Counter(len(set(t)) for t in CLASSIC.tiles)
    assert CLASSIC.size == 56 and kinds == {1: 6, 2: 30, 3: 20}
    assert sum(CLASSIC.pips) == 420
    assert all(t == canonical(t) for t in CLASSIC.tiles)
    assert all(t[0] < t[1] < t[2] for t in CLASSIC.tiles if len(set(t)) == 3)
    assert CLASSIC.find((0, 2, 1)) is None and CLASSIC.find((1, 2, 0)) is not None


def test_M1_excel_set_is_every_triangle_up_to_rotation() -> None:
    every = {canonical(t) for t in __import__("itertools").product(range(6), repeat=3)}
    assert EXCEL.size == 76 and set(EXCEL.tiles) == every
    mirrors = set(EXCEL.tiles) - set(CLASSIC.tiles)
    assert len(mirrors) == 20 and tile_name(min(mirrors)) == "0-2-1"
    assert sum(EXCEL.pips) == 420 + 150


def test_tile_fit_masks_agree_with_a_direct_check() -> None:
    for ts in SETS.values():
        for a in range(7):
            for b in range(7):
                for c in range(7):
                    mask = ts.fit[(a * 7 + b) * 7 + c]
                    for p, rot in enumerate(ts.placement_corners):
                        direct = all(want in (got, 6) for want, got in zip((a, b, c), rot,
                                                                          strict=True))
                        assert bool(mask >> p & 1) == direct
                        assert canonical(rot) in ts.tiles
