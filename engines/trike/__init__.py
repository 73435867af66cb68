"""Trike (Alek Erickson, 2020): rules engine, exact solver and MCTS-Solver bot.

>>> SPEC.name, SPEC.analyze is not None
('trike', True)
"""

from engines.core import build_spec
from engines.trike import actions, bot, solver
from engines.trike.actions import (
    SWAP_ACTION,
    TrikeAction,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.trike.game import TrikeGame, TrikeState

SPEC = build_spec("trike", TrikeGame, TrikeState, actions, bot, analyze=solver.analyze)

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
