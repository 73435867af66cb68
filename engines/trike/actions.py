"""Trike actions and their notation (docs/records.md § Trike): a cell name, or ``"swap"``.

>>> action_to_json(parse_action("b2")), action_from_str("swap") == SWAP_ACTION
('b2', True)
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.core import JSON, InvalidMoveError
from engines.trike.board import MAX_SIZE, Geometry, cell_name, geometry

SWAP = "swap"


@dataclass(frozen=True, order=True)
class TrikeAction:
    """A move: place a stone on ``cell`` (board-order index) and move the pawn there, or
    the pie-rule swap when ``cell`` is None.

    >>> TrikeAction.from_str("c2"), TrikeAction.from_str("c2").to_str()
    (TrikeAction(cell=4), 'c2')
    >>> TrikeAction.from_str("swap").to_str()
    'swap'
    """

    cell: int | None

    @property
    def is_swap(self) -> bool:
        return self.cell is None

    def to_str(self) -> str:
        return SWAP if self.cell is None else cell_name(self.cell)

    @classmethod
    def from_str(cls, text: str) -> TrikeAction:
        """Parse ``"swap"`` or a cell name (any board up to side 19)."""
        return parse_action(text)


SWAP_ACTION = TrikeAction(None)


def parse_action(obj: JSON, geo: Geometry | None = None) -> TrikeAction:
    """An action from its docs/records.md notation: a cell name (on a board of side ``geo``,
    any side up to 19 without it) or ``"swap"``; InvalidMoveError otherwise.

    >>> parse_action("swap") == SWAP_ACTION, parse_action("c2")
    (True, TrikeAction(cell=4))
    """
    if not isinstance(obj, str):
        raise InvalidMoveError(f"a Trike action is a cell name or 'swap', got {obj!r}")
    if obj == SWAP:
        return SWAP_ACTION
    return TrikeAction((geo or geometry(MAX_SIZE)).index(obj))


def action_to_json(action: TrikeAction) -> JSON:
    """An action in its docs/records.md notation: the cell name or ``"swap"``."""
    return action.to_str()


def action_from_str(text: str) -> TrikeAction:
    """The text notation is the record notation."""
    return parse_action(text)
