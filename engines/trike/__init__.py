"""Trike (Alek Erickson, 2020): rules engine, exact solver and MCTS-Solver bot.

>>> SPEC.name, SPEC.analyze is not None
('trike', True)
"""

from engines.core import GameType, build_spec
from engines.trike import actions, bot, solver, stats
from engines.trike.actions import (
    SWAP_ACTION,
    TrikeAction,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.trike.game import TrikeGame, TrikeState

SPEC = build_spec("trike", TrikeGame, TrikeState, actions, bot, analyze=solver.analyze,
                  game_type=GameType("trike", drawing="hex_triangle", max_players=2), short_options={"size": 5},
                  player_stats=stats.PLAYER_STATS)

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
