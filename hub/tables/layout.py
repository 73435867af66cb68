"""Where a Trigono table's physical boards sit: engine boards on the lattice and the
bindings of each physical board's holes to the engine's hole ids (docs/design.md §6).

The one home of the defaults the admin page, the API, ``--table`` and the simulator all
use: a board's holes are ``big`` and ``small`` (:func:`default_holes`); boards with no
cell placed go in a side-connected row (:func:`default_cells`); each hexagon's jackpot
(T20) is sensed by the first placed board around it (:func:`attach_jackpots`).

A *binding* is ``{"board": PHYSICAL_ID, "as": ENGINE_BOARD_ID, "holes": {NAME: HOLE}}``.

>>> boards, bindings = place([{"id": "B1", "cell": [0, 0, "up"], "device": "pico-7"}])
>>> bindings
[{'board': 'pico-7', 'as': 'B1', 'holes': {'big': 'B1.big', 'small': 'B1.small'}}]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines import game_spec
from engines.lattice import Cell, cells_around, hexagons
from hub.errors import BadInputError

JSONDict = dict[str, Any]


def hexagon_boards(prefix: str) -> list[JSONDict]:
    """The engine's ``options["boards"]`` of six boards around one vertex, ids
    ``<prefix>1`` … ``<prefix>6``, as the Trigono engine registers them.

    >>> [b["id"] for b in hexagon_boards("B")][:2], hexagon_boards("B")[0]["cell"]
    (['B1', 'B2'], [0, 0, 'up'])
    """
    boards = game_spec("trigono").hexagon_boards
    assert boards is not None, "the Trigono engine registers its hexagon"
    return boards(prefix)


def default_holes(engine_board: str) -> dict[str, str]:
    """The holes every Trigono board has (T1), named as its firmware reports them.

    >>> default_holes("B2")
    {'big': 'B2.big', 'small': 'B2.small'}
    """
    return {"big": f"{engine_board}.big", "small": f"{engine_board}.small"}


def default_cells(count: int) -> list[list[Any]]:
    """``count`` boards in a side-connected row on the lattice: up, down, up, down…

    >>> default_cells(3)
    [[0, 0, 'up'], [0, 0, 'down'], [1, 0, 'up']]
    """
    return [[k // 2, 0, "up" if k % 2 == 0 else "down"] for k in range(count)]


def row_boards(bindings: Sequence[Mapping[str, Any]]) -> list[JSONDict]:
    """The engine's ``options["boards"]`` for bound boards placed nowhere: a row.

    >>> row_boards([{"as": "B1"}, {"as": "B2"}])
    [{'id': 'B1', 'cell': [0, 0, 'up']}, {'id': 'B2', 'cell': [0, 0, 'down']}]
    """
    ids = list(dict.fromkeys(str(b["as"]) for b in bindings))
    return [{"id": i, "cell": c} for i, c in zip(ids, default_cells(len(ids)), strict=True)]


def attach_jackpots(boards: Sequence[Mapping[str, Any]], bindings: list[JSONDict]) -> None:
    """Give each hexagon's jackpot sensor to the first placed board around it (T20): its
    device reports the hole as ``jackpot``. ``bindings`` are parallel to ``boards``;
    jackpot ids follow docs/records.md (``jackpot``, or ``jackpot.N`` with several).

    >>> boards = hexagon_boards("H")
    >>> bindings = [{"board": b["id"], "as": b["id"], "holes": {}} for b in boards]
    >>> attach_jackpots(boards, bindings)
    >>> bindings[0]["holes"], bindings[1]["holes"]
    ({'jackpot': 'jackpot'}, {})
    """
    try:
        cells = [Cell.from_json(b["cell"]) for b in boards]
    except (ValueError, KeyError, TypeError) as err:
        raise BadInputError(f"layout: {err}") from None
    centres = hexagons(cells)
    for number, vertex in enumerate(centres, start=1):
        hole = "jackpot" if len(centres) == 1 else f"jackpot.{number}"
        around = set(cells_around(vertex))
        for cell, binding in zip(cells, bindings, strict=True):
            if cell in around and "jackpot" not in binding["holes"]:
                binding["holes"]["jackpot"] = hole
                break


def place(placed: Any) -> tuple[list[JSONDict], list[JSONDict]]:
    """Boards placed on the grid, ``[{"id", "cell", "device"}]`` (``device``: the
    physical board, default the same id) → (engine boards, bindings), jackpots attached.
    BadInputError on a malformed list."""
    if not isinstance(placed, list) or not all(isinstance(p, dict) for p in placed):
        raise BadInputError("layout: expected a list of boards")
    boards: list[JSONDict] = []
    bindings: list[JSONDict] = []
    for entry in placed:
        board_id, cell = entry.get("id"), entry.get("cell")
        if not isinstance(board_id, str) or not isinstance(cell, list):
            raise BadInputError("layout: each board needs an id and a cell")
        device = entry.get("device") or board_id
        if not isinstance(device, str):
            raise BadInputError("layout: a device id is text")
        boards.append({"id": board_id, "cell": cell})
        bindings.append({"board": device.strip() or board_id, "as": board_id,
                         "holes": default_holes(board_id)})
    attach_jackpots(boards, bindings)
    return boards, bindings


def hexagon(device_prefix: str, board_prefix: str = "B") -> tuple[list[JSONDict], list[JSONDict]]:
    """Six boards around one vertex with their jackpot, devices named
    ``<device_prefix><board id>`` (the simulator's hexagon table).

    >>> boards, bindings = hexagon("hexa")
    >>> [b["board"] for b in bindings][:2], bindings[0]["holes"]["jackpot"]
    (['hexaB1', 'hexaB2'], 'jackpot')
    """
    boards = hexagon_boards(board_prefix)
    return place([{**b, "device": f"{device_prefix}{b['id']}"} for b in boards])


class Bindings:
    """A Trigono table's physical boards and how their holes map onto the engine's
    layout, checked once against the layout's holes.

    >>> b = Bindings([{"board": "pico-7", "as": "B1", "holes": {"big": "B1.big", "jackpot": "jackpot"}}],
    ...              holes=["B1.big", "B1.small", "jackpot"])
    >>> b.boards(), b.engine_hole("pico-7", "jackpot"), b.engine_hole("pico-7", "small"), b.engine_board("pico-7")
    (['pico-7'], ('jackpot', 'B1'), None, 'B1')
    >>> b.unmapped("pico-7", ["big", "small"]), b.unmapped("B9", ["big"])
    (['small'], [])
    """

    def __init__(self, bindings: list[JSONDict], holes: Sequence[str]) -> None:
        """BadInputError when a binding names a hole the layout does not have."""
        self._bindings = [dict(b) for b in bindings]
        self._by_board = {b["board"]: b for b in self._bindings}  # asked on every sensor event
        known = set(holes)
        for b in self._bindings:
            for name, hole in b["holes"].items():
                if hole not in known:
                    raise BadInputError(f"boards: {b['board']}.{name} maps to {hole!r}, not a hole "
                                        f"of this layout ({', '.join(sorted(known))})")

    def boards(self) -> list[str]:
        """The physical boards, in binding order."""
        return [b["board"] for b in self._bindings]

    def get(self, board: str) -> JSONDict | None:
        return self._by_board.get(board)

    def engine_board(self, board: str) -> str:
        """The engine board a physical board stands for (itself when not bound)."""
        b = self.get(board)
        return str(b["as"]) if b is not None else board

    def engine_hole(self, board: str, hole: str) -> tuple[str, str] | None:
        """(engine hole id, engine board the palet came from) for a physical hole."""
        b = self.get(board)
        if b is None or hole not in b["holes"]:
            return None
        return b["holes"][hole], b["as"]

    def unmapped(self, board: str, holes: list[str]) -> list[str]:
        """The holes a bound board reports that its binding does not map."""
        b = self.get(board)
        return [] if b is None else [h for h in holes if h not in b["holes"]]

    def to_json(self) -> list[JSONDict]:
        return [dict(b) for b in self._bindings]
