"""Trigono set-ups shared by the Trigono test modules: layouts, new states, moves in the
text notation (``Ana>B1.big``), refused moves."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.core import IllegalMoveError
from engines.trigono import TrigonoGame, TrigonoState, action_from_str, hexagon_boards

TWO_BOARDS = [{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "down"]}]
# Two hexagons side by side: the six cells around V(0, 0) and the six around V(1, 0).
TWO_HEXAGONS = [
    {"id": f"C{n}", "cell": list(cell)}
    for n, cell in enumerate(
        sorted({tuple(b["cell"]) for b in hexagon_boards() + hexagon_boards(vertex=(1, 0))}),
        start=1,
    )
]


def start(options: dict[str, Any]) -> TrigonoState:
    """A new match with exactly these options (seed 0)."""
    return TrigonoGame(options).new_initial_state(random.Random(0))


def new(players: list[str] | None = None, **options: Any) -> TrigonoState:
    """A new match of ``players`` (Ana and Ben), the first of them throwing first."""
    opts: dict[str, Any] = {"players": players or ["Ana", "Ben"], **options}
    opts.setdefault("first", opts["players"][0])
    return start(opts)


def play(state: TrigonoState, *moves: str) -> list[int]:
    """Apply actions in text notation (each argument one or more, space-separated);
    return the log points of each."""
    points = []
    for move in " ".join(moves).split():
        state.apply(action_from_str(move))
        points.append(state.log[-1]["points"])
    return points


def refused(state: TrigonoState, move: str | Any, match: str) -> None:
    """The action raises IllegalMoveError naming the problem, and nothing changes."""
    before = state.dump()
    action = action_from_str(move) if isinstance(move, str) else move
    with pytest.raises(IllegalMoveError, match=match):
        state.apply(action)
    assert state.dump() == before


def printed(state: TrigonoState, *fields: str) -> tuple[Any, ...]:
    out = state.to_json()
    return tuple(out[f] for f in fields)
