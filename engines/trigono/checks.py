"""Why a Trigono throw is refused: every check of a reported throw against the state,
made before the throw changes anything (so a refused throw changes nothing).

>>> from engines.trigono.actions import Throw
>>> from engines.trigono.game import TrigonoGame
>>> import random
>>> state = TrigonoGame({"players": ["Ana", "Ben"], "first": "Ana"}).new_initial_state(random.Random(0))
>>> check_throw(state, Throw("Ben", "floor"))
Traceback (most recent call last):
...
engines.core.IllegalMoveError: it is Ana's turn to throw, not Ben's
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.core import IllegalMoveError
from engines.trigono.actions import BOARD_PREFIX, FLOOR, Throw
from engines.trigono.options import FINAL, LAST_CHANCE

if TYPE_CHECKING:  # the game module calls check_throw: import it for types only
    from engines.trigono.game import TrigonoState


def check_throw(state: TrigonoState, action: Throw) -> None:
    """Every reason ``action`` is refused in ``state`` (IllegalMoveError, T3–T17), checked
    before anything changes."""
    opts = state.game.opts
    layout = opts.layout
    player = action.player
    if player not in state.hands:
        raise IllegalMoveError(
            f"unknown player {player!r} (players: {', '.join(opts.players)})",
            "trigono.unknown_player", player=player, players=list(opts.players),
        )
    if player in state.eliminated:
        raise IllegalMoveError(
            f"{player} is eliminated from round {state.round} and does not throw (T15)",
            "trigono.eliminated", player=player, round=state.round,
        )
    if player != state.to_move:
        extra = " (last chance, T14)" if state.phase == LAST_CHANCE else ""
        raise IllegalMoveError(f"it is {state.to_move}'s turn to throw, not {player}'s{extra}",
                               "trigono.last_chance_turn" if extra else "trigono.not_your_turn",
                               player=player, to_move=state.to_move)
    if state.phase == FINAL and state.target is None:
        raise IllegalMoveError(
            f"{player} must first choose the target hole of the final (T17): "
            f"{', '.join(state.target_choices())}",
            "trigono.target_first", player=player, targets=state.target_choices(),
        )
    to = action.to
    if to.startswith(BOARD_PREFIX):
        if to[len(BOARD_PREFIX) :] not in state.boards:
            raise IllegalMoveError(f"unknown board {to!r} (boards: {', '.join(state.boards)})",
                                   "trigono.unknown_board", board=to[len(BOARD_PREFIX) :], boards=list(state.boards))
    elif to != FLOOR and to not in state.holes:
        raise IllegalMoveError(
            f"unknown destination {to!r}: expected board:ID, floor or a hole "
            f"({', '.join(state.holes)})",
            "trigono.unknown_place", place=to,
        )
    if action.invalid and to not in state.holes:
        raise IllegalMoveError(f"invalid (T10) only applies to a drop into a hole, not to {to}",
                               "trigono.invalid_not_hole", to=to)
    lying = dict(state.boards)
    for knock in action.knocked:
        if knock.source not in state.boards:
            raise IllegalMoveError(
                f"knocked: unknown board {knock.source!r} (boards: {', '.join(state.boards)})",
                "trigono.unknown_board", board=knock.source, boards=list(state.boards),
            )
        if knock.hole not in state.holes:
            raise IllegalMoveError(f"knocked: unknown hole {knock.hole!r}", "trigono.unknown_hole", name=knock.hole)
        reachable = layout.holes_of_board(knock.source)
        if knock.hole not in reachable:
            raise IllegalMoveError(
                f"knocked: a palet lying on {knock.source} cannot fall into {knock.hole} "
                f"(only {', '.join(reachable)}, T12)",
                "trigono.knock_unreachable", board=knock.source, hole=knock.hole, holes=list(reachable),
            )
        if lying[knock.source] == 0:
            raise IllegalMoveError(
                f"knocked: no palet was lying on board {knock.source} before this throw "
                f"({state.boards[knock.source]} there, "
                f"{sum(k.source == knock.source for k in action.knocked)} knocked)",
                "trigono.knock_empty_board", board=knock.source,
            )
        lying[knock.source] -= 1
