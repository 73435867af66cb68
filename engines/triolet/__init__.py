"""Triolet: the engine (L1–L15 of docs/rules/triolet.md), its move generator and bot.

>>> from engines.records import replay
>>> state = replay({"game": "triolet", "seed": 3, "options": {"players": ["Ana", "Ben"]}})
>>> state.to_json()["bag_count"], state.current_player() in ("Ana", "Ben")
(74, True)
"""

from engines.core import GameType, Pass, build_spec
from engines.triolet import actions, board, bot, stats
from engines.triolet.actions import (
    Action,
    Exchange,
    Placement,
    PlayTokens,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.triolet.game import TrioletGame, TrioletState
from engines.triolet.rules import Rules

SPEC = build_spec("triolet", TrioletGame, TrioletState, actions, bot, analyze=bot.analyze,
                  game_type=GameType("triolet", drawing="fixed_board", max_players=4), fixed_board=board.fixed_board,
                  player_stats=stats.PLAYER_STATS)

__all__ = [
    "SPEC",
    "Action",
    "Exchange",
    "Pass",
    "Placement",
    "PlayTokens",
    "Rules",
    "TrioletGame",
    "TrioletState",
    "action_from_str",
    "action_to_json",
    "parse_action",
]
