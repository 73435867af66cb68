"""Triolet: the engine (L1–L15 of shared/rules/triolet.md), its move generator and bot.

>>> from engines.records import replay
>>> state = replay({"game": "triolet", "seed": 3, "options": {"players": ["Ana", "Ben"]}})
>>> state.to_json()["bag_count"], state.current_player() in ("Ana", "Ben")
(74, True)
"""

from engines.core import Pass
from engines.triolet.game import (
    GAME,
    Action,
    Exchange,
    Placement,
    PlayTokens,
    Rules,
    TrioletGame,
    TrioletState,
    action_from_str,
    action_to_json,
    parse_action,
)

__all__ = [
    "GAME",
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
