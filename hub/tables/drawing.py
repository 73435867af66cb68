"""Where things are drawn: the geometry a page needs, worked out here from
engines/lattice.py so no page repeats the lattice (issue 23).

Coordinates are in units of one lattice edge, with y pointing *down* (as on a screen);
a page only scales them. A Trigono layout gives each board its triangle, where its big
and small holes sit (toward two edges' middles, away from the corners where jackpots
are), where its id and its count of palets go, each jackpot's centre, and the box around
it all.

>>> d = trigono({"boards": [{"id": "B1", "cell": [0, 0, "up"], "holes": ["B1.big", "B1.small"]}], "jackpots": []})
>>> d["boards"][0]["corners"], d["box"]
([[0.0, 0.0], [0.5, -0.866], [1.0, 0.0]], [0.0, -0.866, 1.0, 0.866])
>>> sorted(d["boards"][0]["holes"])
['B1.big', 'B1.small']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines import lattice

HOLE_TOWARD = 0.62  # how far from the board's centre toward an edge's middle a hole sits
LABEL_TOWARD = 0.78


def _screen(x: float, y: float) -> list[float]:
    return [round(x, 4), round(-y, 4) + 0.0]  # + 0.0: no "-0.0" in the JSON


def trigono(layout: Mapping[str, Any]) -> dict[str, Any]:
    """The drawing of a Trigono layout (the printed state's ``layout``)."""
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


def of(printed: Mapping[str, Any]) -> dict[str, Any] | None:
    """The drawing for a printed state, or None for a game drawn from its state alone."""
    layout = printed.get("layout")
    if printed.get("game") == "trigono" and isinstance(layout, Mapping):
        return trigono(layout)
    return None
