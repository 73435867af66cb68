"""Trike (Alek Erickson, 2020): rules engine, exact solver and MCTS-Solver bot.

>>> SPEC.name, SPEC.analyze is not None
('trike', True)
"""

from engines.core import Bot, GameSpec
from engines.trike import bot, solver
from engines.trike.actions import (
    SWAP_ACTION,
    TrikeAction,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.trike.game import TrikeGame, TrikeState

SPEC = GameSpec(
    name="trike",
    game=TrikeGame,
    state=TrikeState,
    parse_action=parse_action,
    action_to_json=action_to_json,
    bot=Bot(bot.choose, bot.hint),
    analyze=solver.analyze,
)

__all__ = [
    "SPEC",
    "SWAP_ACTION",
    "TrikeAction",
    "TrikeGame",
    "TrikeState",
    "action_from_str",
    "action_to_json",
    "parse_action",
]
