"""The places a Trigono action names (docs/records.md): where a palet comes to rest or a final
is aimed, as a typed value read once from its id.

Ids: ``floor``; ``board:B1`` (on a board's surface); ``B1.big`` / ``B1.small`` (a
board's holes, T1); ``jackpot`` (the one hexagon's jackpot, T20) or ``jackpot.2`` (the
second of several, ordered by vertex). An id of none of these shapes is a board's own id
(a layout names ``B1``): the pages still need a word for it, so reading never fails.

>>> Place.parse("B2.small"), Place.parse("board:B1").label()
(Place(kind='small', board='B2', n=None), ('board', {'board': 'B1'}))
>>> [Place.parse(w).label() for w in ("floor", "jackpot", "jackpot.2")]
[('floor', {}), ('jackpot', {}), ('jackpot_n', {'n': '2'})]
>>> Place.parse("B3").label()
('board', {'board': 'B3'})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engines.core import JSON, PlaceLabel
from engines.trigono.actions import BOARD_PREFIX, FLOOR

JACKPOT = "jackpot"
HOLE_KINDS = ("big", "small")

PlaceKind = Literal["floor", "board", "big", "small", "jackpot", "jackpot_n"]


@dataclass(frozen=True)
class Place:
    """A place: its ``kind``, the ``board`` it is on or in (boards and their holes), the
    jackpot's number ``n`` when the layout has several (``jackpot_n``)."""

    kind: PlaceKind
    board: str | None = None
    n: str | None = None

    @classmethod
    def parse(cls, where: str) -> Place:
        if where == FLOOR:
            return cls("floor")
        if where.startswith(BOARD_PREFIX):
            return cls("board", board=where[len(BOARD_PREFIX):])
        if where == JACKPOT:
            return cls("jackpot")
        if where.startswith(f"{JACKPOT}."):
            return cls("jackpot_n", n=where[len(JACKPOT) + 1:])
        board, _, hole = where.rpartition(".")
        if hole == "big" and board:
            return cls("big", board=board)
        if hole == "small" and board:
            return cls("small", board=board)
        return cls("board", board=where)

    @property
    def is_hole(self) -> bool:
        """A board's big or small hole (a jackpot is a hole too: :attr:`is_jackpot`)."""
        return self.kind in HOLE_KINDS

    @property
    def is_jackpot(self) -> bool:
        return self.kind in ("jackpot", "jackpot_n")

    def label(self) -> PlaceLabel:
        """The kind and parameters the pages word it with (catalogue ``where.<kind>``)."""
        params: dict[str, JSON] = {}
        if self.board is not None:
            params["board"] = self.board
        if self.n is not None:
            params["n"] = self.n
        return self.kind, params


def place_label(where: str) -> PlaceLabel:
    """The game's ``SPEC.place_label``: :meth:`Place.label` of the place ``where`` names."""
    return Place.parse(where).label()
