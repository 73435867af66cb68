"""Where things are drawn: the geometry a page needs, worked out here from
engines/lattice.py so no page repeats the lattice (issue 23).

Coordinates are in units of one lattice edge, with y pointing *down* (as on a screen);
a page only scales them. A Trigono layout gives each board its triangle, where its big
and small holes sit (toward two edges' middles, away from the corners where jackpots
are), where its id and its count of palets go, each jackpot's centre, and the box around
it all.

>>> d = board_layout({"boards": [{"id": "B1", "cell": [0, 0, "up"], "holes": ["B1.big", "B1.small"]}], "jackpots": []})
>>> d["boards"][0]["corners"], d["box"]
([[0.0, 0.0], [0.5, -0.866], [1.0, 0.0]], [0.0, -0.866, 1.0, 0.866])
>>> sorted(d["boards"][0]["holes"])
['B1.big', 'B1.small']
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

from engines import GAMES, lattice
from engines.core import GameSpec

HOLE_TOWARD = 0.62  # how far from the board's centre toward an edge's middle a hole sits
LABEL_TOWARD = 0.78


def _screen(x: float, y: float) -> list[float]:
    return [round(x, 4), round(-y, 4) + 0.0]  # + 0.0: no "-0.0" in the JSON


def board_layout(layout: Mapping[str, Any]) -> dict[str, Any]:
    """The drawing of a layout of sensor boards (Trigono's printed ``layout``)."""
    boards, points = [], []
    for board in layout.get("boards") or []:
        cell = lattice.Cell.from_json(board["cell"])
        corners = [v.xy() for v in lattice.corners(cell)]
        cx, cy = lattice.centroid(cell)

        def toward(a: int, b: int, f: float) -> list[float]:
            mx, my = (corners[a][0] + corners[b][0]) / 2, (corners[a][1] + corners[b][1]) / 2  # noqa: B023
            return _screen(cx + (mx - cx) * f, cy + (my - cy) * f)  # noqa: B023

        big, small = board.get("holes") or [f"{board['id']}.big", f"{board['id']}.small"]
        boards.append({
            "id": board["id"],
            "corners": [_screen(x, y) for x, y in corners],
            "centre": _screen(cx, cy),
            "label": toward(2, 0, LABEL_TOWARD),
            "holes": {big: {"kind": "big", "at": toward(0, 1, HOLE_TOWARD)},
                      small: {"kind": "small", "at": toward(1, 2, HOLE_TOWARD)}},
        })
        points.extend(corners)
    jackpots = [{"hole": j["id"], "at": _screen(*lattice.Vertex(*j["vertex"]).xy())}
                for j in layout.get("jackpots") or []]
    if not points:
        return {"boards": [], "jackpots": [], "box": [0.0, 0.0, 0.0, 0.0]}
    xs, ys = [p[0] for p in points], [-p[1] for p in points]
    box = [round(min(xs), 4), round(min(ys), 4), round(max(xs) - min(xs), 4), round(max(ys) - min(ys), 4)]
    return {"boards": boards, "jackpots": jackpots, "box": [b + 0.0 for b in box]}


def cell_key(cell: lattice.Cell) -> str:
    return f"{cell.i},{cell.j},{cell.orient}"


def tile_cells(printed: Mapping[str, Any]) -> dict[str, Any]:
    """The drawing of a tile game's table (Triominos): the corners of every cell a tile is on or may go
    (each tile's edge neighbours; the origin's two cells for the opening and for drawing a
    lone tile), keyed ``"i,j,up"``; and ``tiles``: every reading of each tile the viewer
    may see in a rack (its three rotations, ``"3-0-1"``) → the tile's name (``"0-1-3"``),
    so a page matches a placement to a rack tile without naming tiles itself.

    >>> d = tile_cells({"board": [], "racks": {"A": ["0-1-3"], "B": [None]}})
    >>> d["cells"]["0,0,up"], d["tiles"]
    ([[0.0, 0.0], [0.5, -0.866], [1.0, 0.0]], {'0-1-3': '0-1-3', '1-3-0': '0-1-3', '3-0-1': '0-1-3'})
    """
    placed = tuple(tuple(t["cell"]) for t in printed.get("board") or [])
    tiles: dict[str, str] = {}
    for rack in (printed.get("racks") or {}).values():
        for name in rack if isinstance(rack, list) else []:
            if isinstance(name, str):
                a, b, c = name.split("-")
                for reading in ((a, b, c), (b, c, a), (c, a, b)):
                    tiles["-".join(reading)] = name
    return {"cells": _cells(placed), "tiles": tiles}


@functools.lru_cache(maxsize=256)
def _cells(board: tuple[tuple[Any, ...], ...]) -> dict[str, list[list[float]]]:
    # Every view of the table at each change asks again (0.6 ms for 34 tiles); the board
    # only changes with a move. Shared between views: nobody changes a view's drawing.
    placed = [lattice.Cell.from_json(list(cell)) for cell in board]
    cells = {lattice.Cell(0, 0, lattice.UP), lattice.Cell(0, 0, lattice.DOWN), *placed}
    cells.update(n for c in placed for n in lattice.edge_neighbours(c))
    return {cell_key(c): [_screen(*v.xy()) for v in lattice.corners(c)] for c in sorted(cells)}


TRIKE_ROWS = "abcdefghijklmnopqrs"  # docs/records.md § Trike: row letter from the apex, number in the row


@functools.lru_cache(maxsize=16)
def hex_triangle(size: int) -> dict[str, Any]:
    """The drawing of a triangle (Trike's board) of ``size`` rows of pointy-top hexagons (unit radius):
    each cell's centre, its neighbours (what the final score counts around the pawn), one
    hexagon's corners around its centre, and the box.

    >>> d = hex_triangle(2)
    >>> d["cells"]["a1"], d["cells"]["b2"], d["neighbours"]["a1"]
    ({'at': [0.0, 0.0]}, {'at': [0.866, 1.5]}, ['b1', 'b2'])
    """
    cells: dict[str, dict[str, Any]] = {}
    neighbours: dict[str, list[str]] = {}
    for r in range(size):
        for c in range(r + 1):
            name = f"{TRIKE_ROWS[r]}{c + 1}"
            cells[name] = {"at": [round((c - r / 2) * math.sqrt(3), 4) + 0.0, r * 1.5]}
            around = [(r, c - 1), (r, c + 1), (r - 1, c - 1), (r - 1, c), (r + 1, c), (r + 1, c + 1)]
            neighbours[name] = sorted(f"{TRIKE_ROWS[rr]}{cc + 1}" for rr, cc in around if 0 <= cc <= rr < size)
    hexagon = [[round(math.cos(math.pi / 6 + k * math.pi / 3), 4), round(math.sin(math.pi / 6 + k * math.pi / 3), 4)]
               for k in range(6)]
    half = (size - 1) / 2 * math.sqrt(3)
    return {"cells": cells, "neighbours": neighbours, "hexagon": hexagon,
            "box": [round(-half, 4), 0.0, round(2 * half, 4), (size - 1) * 1.5]}


EDITOR_REACH = 4  # cells i, j in -4..4 whose centre lies within the box below


@functools.lru_cache(maxsize=1)
def layout_editor() -> dict[str, Any]:
    """The admin page's layout editor (a Trigono table's boards placed by hand): the lattice
    cells a board may go on, each with its ``key`` (``"i,j,orient"``), ``cell``, corners and
    centre; every vertex where six of them meet, a jackpot when all six hold boards (T20),
    with the keys of those six; and the box. The page only scales and compares keys.

    >>> e = layout_editor()
    >>> e["cells"][0]["key"], len(e["cells"]), e["box"]
    ('-4,0,down', 77, [-3.2, -2.72, 6.4, 5.44])
    >>> hexagon = next(j for j in e["jackpots"] if j["at"] == [0.0, 0.0])
    >>> sorted(hexagon["cells"])[:2]
    ['-1,-1,down', '-1,0,down']
    """
    reach = EDITOR_REACH
    cells = []
    for i in range(-reach, reach + 1):
        for j in range(-reach, reach + 1):
            for orient in (lattice.UP, lattice.DOWN):
                cell = lattice.Cell(i, j, orient)
                x, y = lattice.centroid(cell)
                if abs(x) <= reach * 0.75 and abs(y) <= reach * 0.62:
                    cells.append(cell)
    keys = {cell_key(c) for c in cells}
    vertices = sorted({v for c in cells for v in lattice.corners(c)})
    jackpots = []
    for v in vertices:
        around = [cell_key(c) for c in lattice.cells_around(v)]
        if all(k in keys for k in around):
            jackpots.append({"vertex": [v.i, v.j], "at": _screen(*v.xy()), "cells": around})
    w, h = reach * 0.8, reach * 0.68
    return {
        "cells": [{"key": cell_key(c), "cell": c.to_json(),
                   "corners": [_screen(*v.xy()) for v in lattice.corners(c)],
                   "centre": _screen(*lattice.centroid(c))} for c in cells],
        "jackpots": jackpots,
        "box": [round(-w, 4), round(-h, 4), round(2 * w, 4), round(2 * h, 4)],
    }


def _draw_board_layout(printed: Mapping[str, Any], spec: GameSpec[Any, Any]) -> dict[str, Any] | None:
    layout = printed.get("layout")
    return board_layout(layout) if isinstance(layout, Mapping) else None


def _draw_hex_triangle(printed: Mapping[str, Any], spec: GameSpec[Any, Any]) -> dict[str, Any] | None:
    size = printed.get("size")
    return hex_triangle(size) if isinstance(size, int) else None


def _fixed_board(printed: Mapping[str, Any], spec: GameSpec[Any, Any]) -> dict[str, Any] | None:
    return None if spec.fixed_board is None else fixed(spec.name, spec.fixed_board)


DRAWINGS: dict[str, Callable[[Mapping[str, Any], GameSpec[Any, Any]], dict[str, Any] | None]] = {
    "board_layout": _draw_board_layout,  # sensor boards, their holes and jackpots
    "tile_cells": lambda printed, spec: tile_cells(printed),
    "hex_triangle": _draw_hex_triangle,
    "fixed_board": _fixed_board,  # a fixed grid and its bonus cells (Triolet L1)
}
"""The drawings, by the ``drawing`` a game's type names (engines/core.py GameType)."""


def of(printed: Mapping[str, Any]) -> dict[str, Any] | None:
    """The drawing for a printed state, or None for a game drawn from its state alone."""
    spec = GAMES.get(str(printed.get("game")))
    draw = None if spec is None or spec.game_type.drawing is None else DRAWINGS.get(spec.game_type.drawing)
    return None if draw is None or spec is None else draw(printed, spec)


@functools.lru_cache(maxsize=8)
def fixed(name: str, board: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    return board()
