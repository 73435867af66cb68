"""Trigono layouts (T3, T19–T21): boards on the triangular lattice, their holes, jackpots.

A layout is a list of boards ``{"id": "B1", "cell": [i, j, "up"|"down"]}`` that must be
side-connected (T19). Every board has a big and a small hole (T1); every hexagon of six
boards around one vertex adds a jackpot hole at that vertex (T20). Hole ids are
``"B1.big"``, ``"B1.small"`` and ``"jackpot"`` (one hexagon) or ``"jackpot.1"``, … ordered
by vertex (i, j) (docs/records.md).

>>> two = Layout.from_json([{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "down"]}])
>>> two.holes
('B1.big', 'B1.small', 'B2.big', 'B2.small')
>>> hexa = Layout.from_json(hexagon_boards())
>>> hexa.jackpots[0].hole, hexa.jackpots[0].vertex, len(hexa.jackpots[0].boards)
('jackpot', Vertex(i=0, j=0), 6)
>>> Layout.from_json([{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [5, 5, "up"]}])
Traceback (most recent call last):
...
engines.core.RecordError: boards: the boards must be side-connected (T19)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from engines.core import JSON, RecordError, check_keys
from engines.lattice import Cell, Vertex, cells_around, hexagons, is_side_connected

DEFAULT_BOARDS: list[dict[str, Any]] = [{"id": "B1", "cell": [0, 0, "up"]}]
RESERVED_IDS = ("floor", "jackpot", "board", "target")
PLAYERS_PER_BOARD = 4  # T3


def hexagon_boards(prefix: str = "H", vertex: tuple[int, int] = (0, 0)) -> list[dict[str, Any]]:
    """The six boards around ``vertex`` as an options ``boards`` list (ids H1…H6).

    >>> [b["cell"] for b in hexagon_boards()][:2]
    [[0, 0, 'up'], [-1, 0, 'down']]
    """
    return [
        {"id": f"{prefix}{n}", "cell": list(cell)}
        for n, cell in enumerate(cells_around(Vertex(*vertex)), start=1)
    ]


def check_board_id(value: JSON) -> str:
    """A board id: letters, digits, ``_`` or ``-`` (so hole ids and the text notation stay unambiguous)."""
    if (
        not isinstance(value, str)
        or not value
        or not all(ch.isalnum() or ch in "_-" for ch in value)
        or value in RESERVED_IDS
    ):
        raise RecordError(
            f"boards: id must be letters, digits, '_' or '-' and not one of "
            f"{', '.join(RESERVED_IDS)}; got {value!r}"
        )
    return value


@dataclass(frozen=True)
class Board:
    id: str
    cell: Cell

    @property
    def big(self) -> str:
        return f"{self.id}.big"

    @property
    def small(self) -> str:
        return f"{self.id}.small"


@dataclass(frozen=True)
class Jackpot:
    """A jackpot hole (T20): its id, the vertex it sits on and the six boards around it."""

    hole: str
    vertex: Vertex
    boards: tuple[str, ...]


@dataclass(frozen=True)
class Layout:
    boards: tuple[Board, ...]
    jackpots: tuple[Jackpot, ...]

    @classmethod
    def from_json(cls, obj: JSON) -> Layout:
        """Parse and check the ``boards`` option (unique ids, distinct cells, side-connected)."""
        if not isinstance(obj, list) or not obj:
            raise RecordError("boards: expected a non-empty list of {id, cell}")
        boards: list[Board] = []
        ids: set[str] = set()
        cells: dict[Cell, str] = {}
        for raw in obj:
            entry = check_keys(raw, ("id", "cell"), "boards", required=("id", "cell"))
            board_id = check_board_id(entry["id"])
            cell = Cell.from_json(entry["cell"])
            if board_id in ids:
                raise RecordError(f"boards: duplicate id {board_id!r}")
            if cell in cells:
                raise RecordError(
                    f"boards: {board_id} and {cells[cell]} are on the same cell {cell.to_json()}"
                )
            ids.add(board_id)
            cells[cell] = board_id
            boards.append(Board(board_id, cell))
        if not is_side_connected(cells):
            raise RecordError("boards: the boards must be side-connected (T19)")
        vertices = hexagons(cells)
        jackpots = tuple(
            Jackpot(
                "jackpot" if len(vertices) == 1 else f"jackpot.{n}",
                v,
                tuple(cells[c] for c in cells_around(v)),
            )
            for n, v in enumerate(vertices, start=1)
        )
        return cls(tuple(boards), jackpots)

    def to_json(self) -> list[dict[str, Any]]:
        return [{"id": b.id, "cell": b.cell.to_json()} for b in self.boards]

    @cached_property
    def board_ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.boards)

    @cached_property
    def holes(self) -> tuple[str, ...]:
        """Every hole id: each board's big then small hole, in board order, then the jackpots."""
        return tuple(h for b in self.boards for h in (b.big, b.small)) + tuple(
            j.hole for j in self.jackpots
        )

    def hole_kind(self, hole: str) -> tuple[str, str | None]:
        """``("big", board)``, ``("small", board)`` or ``("jackpot", None)``; KeyError if unknown."""
        return self._hole_kinds[hole]

    @cached_property
    def _hole_kinds(self) -> dict[str, tuple[str, str | None]]:
        # Asked for every palet that falls (the hub's ingest path): a lookup, not a scan.
        kinds: dict[str, tuple[str, str | None]] = {}
        for b in self.boards:
            kinds[b.big], kinds[b.small] = ("big", b.id), ("small", b.id)
        for j in self.jackpots:
            kinds[j.hole] = ("jackpot", None)
        return kinds

    def holes_of_board(self, board_id: str) -> tuple[str, ...]:
        """The holes a palet lying on ``board_id`` can fall into (T12): its own two and the
        jackpots it borders."""
        own = tuple(h for b in self.boards if b.id == board_id for h in (b.big, b.small))
        return own + tuple(j.hole for j in self.jackpots if board_id in j.boards)

    def homes(self, players: list[str]) -> dict[str, str]:
        """Home boards (T3) in seat order, spread evenly: the first players on the first board.

        >>> Layout.from_json(hexagon_boards()[:2]).homes(["A", "B", "C"])
        {'A': 'H1', 'B': 'H1', 'C': 'H2'}
        """
        n, k = len(players), len(self.boards)
        return {p: self.boards[s * k // n].id for s, p in enumerate(players)}

    def describe(self) -> dict[str, Any]:
        """The layout for the hub and the web pages: boards with cells and holes, jackpots."""
        return {
            "boards": [
                {"id": b.id, "cell": b.cell.to_json(), "holes": [b.big, b.small]}
                for b in self.boards
            ],
            "jackpots": [
                {"id": j.hole, "vertex": [j.vertex.i, j.vertex.j], "boards": list(j.boards)}
                for j in self.jackpots
            ],
        }
