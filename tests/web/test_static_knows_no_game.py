"""No game rule or geometry in web/static (issue 23): the hub says what happened (view
moments), where things are drawn (view drawing) and how places are named (view places);
the browser scales, draws and words. This greps for the obvious tells.

KNOWN lists the files that still carry some, with what: it may only shrink (a file that
no longer has its tell must leave the list)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"

TELLS = {
    "lattice maths": re.compile(r"Math\.sqrt\(3\)|SQRT3|vertexXY|lattice\.(corners|centroid|hexagons|polygon)"),
    "tile canonicalisation": re.compile(r"function tileName|rots\.sort"),
    "place ids parsed": re.compile(r"""endsWith\("\.(big|small)"\)|startsWith\("(jackpot|board:)"?\)|where\.slice\(6\)"""),
    "moments worked out from two views": re.compile(r"round_results.*slice\(|\.log \|\| \[\]\)\.slice\((a|before)|b\.winner && !a\.winner"),
    "special cells as rules": re.compile(r"const SPECIAL = "),
}

# Nothing left: the admin's layout editor draws the hub's grid (hub/tables/drawing.py
# layout_editor). A file that must carry a tell for a while is listed here with it.
KNOWN: dict[str, set[str]] = {}


def tells(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {name for name, pattern in TELLS.items() if pattern.search(text)}


@pytest.mark.parametrize("path", sorted(STATIC.rglob("*.js")), ids=lambda p: str(p.relative_to(STATIC)))
def test_no_game_rule_or_geometry_in_the_browser(path: Path) -> None:
    name = str(path.relative_to(STATIC))
    found = tells(path)
    assert found <= KNOWN.get(name, set()), f"{name}: {sorted(found - KNOWN.get(name, set()))}"
    if name in KNOWN:
        assert found == KNOWN[name], f"{name} no longer has {sorted(KNOWN[name] - found)}: take it off KNOWN"


def test_the_pages_that_show_moments_do_not_diff_views() -> None:
    for name in ("js/live.js", "js/moments.js", "js/overlay.js", "js/trigono_view.js", "games/trigono.js"):
        assert tells(STATIC / name) == set(), name
