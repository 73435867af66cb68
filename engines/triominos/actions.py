"""Triominos actions and their notations (docs/records.md § Triominos): place, draw, pass.

>>> parse_action({"place": {"cell": [0, 0, "down"], "corners": [1, 2, 2]}}).to_str()
'0,0,down:1-2-2'
>>> action_to_json(action_from_str("draw"))
{'draw': True}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import JSON, InvalidMoveError, Pass, RecordError, check_keys, one_entry
from engines.lattice import Cell
from engines.triominos.board import COORD_LIMIT
from engines.triominos.tiles import Corners, tile_name


@dataclass(frozen=True)
class Place:
    """Put a tile on ``cell`` with ``corners`` landing on the cell's corners 0, 1, 2.

    >>> Place.from_str("0,0,down:1-2-2")
    Place(cell=Cell(i=0, j=0, orient='down'), corners=(1, 2, 2))
    >>> Place(Cell(-1, 2, "up"), (3, 4, 5)).to_str()
    '-1,2,up:3-4-5'
    """

    cell: Cell
    corners: Corners

    def to_str(self) -> str:
        return f"{self.cell.i},{self.cell.j},{self.cell.orient}:{tile_name(self.corners)}"

    @classmethod
    def from_str(cls, text: str) -> Place:
        try:
            where, numbers = text.split(":")
            i, j, orient = where.split(",")
            a, b, c = (int(v) for v in numbers.split("-"))
            cell = Cell.from_json([int(i), int(j), orient])
        except (ValueError, RecordError) as err:
            raise InvalidMoveError(f"not a placement: {text!r}") from err
        return cls(cell, check_corners([a, b, c]))


@dataclass(frozen=True)
class Draw:
    """Draw one tile from the pool (M9, −5)."""

    def to_str(self) -> str:
        return "draw"

    @classmethod
    def from_str(cls, text: str) -> Draw:
        if text != "draw":
            raise InvalidMoveError(f"not a draw: {text!r}")
        return cls()


Action = Place | Draw | Pass


def action_from_str(text: str) -> Action:
    """Parse the text notation: ``"i,j,up:a-b-c"``, ``"draw"`` or ``"pass"``.

    >>> action_from_str("pass"), action_from_str("draw")
    (Pass(), Draw())
    """
    if text == "draw":
        return Draw()
    if text == "pass":
        return Pass()
    return Place.from_str(text)


def check_corners(obj: Any) -> Corners:
    if (
        isinstance(obj, (list, tuple))
        and len(obj) == 3
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 5 for v in obj)
    ):
        return (obj[0], obj[1], obj[2])
    raise RecordError(f"corners: expected three numbers 0-5, got {obj!r}")


def check_cell(obj: Any) -> Cell:
    cell = Cell.from_json(obj)
    if abs(cell.i) > COORD_LIMIT or abs(cell.j) > COORD_LIMIT:
        raise RecordError(f"cell: coordinates beyond ±{COORD_LIMIT}: {obj!r}")
    return cell


def parse_action(obj: JSON) -> Action:
    """An action from the docs/records.md notation.

    >>> parse_action({"place": {"cell": [0, 0, "down"], "corners": [1, 2, 2]}}).to_str()
    '0,0,down:1-2-2'
    >>> parse_action({"draw": False})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: draw: expected true
    """
    kind, value = one_entry(obj, ("place", "draw", "pass"), "action")
    if kind == "place":
        place = check_keys(value, ("cell", "corners"), "place", required=("cell", "corners"))
        return Place(check_cell(place["cell"]), check_corners(place["corners"]))
    if value is not True:
        raise RecordError(f"{kind}: expected true")
    return Draw() if kind == "draw" else Pass()


def action_to_json(action: Action) -> JSON:
    """An action in its docs/records.md notation (the inverse of :func:`parse_action`)."""
    if isinstance(action, Place):
        return {"place": {"cell": action.cell.to_json(), "corners": list(action.corners)}}
    if isinstance(action, Draw):
        return {"draw": True}
    return {"pass": True}
