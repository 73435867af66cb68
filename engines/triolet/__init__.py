"""Triolet: the engine (L1–L15 of shared/rules/triolet.md), its move generator and bot.

>>> from engines.records import replay
>>> state = replay({"game": "triolet", "seed": 3, "options": {"players": ["Ana", "Ben"]}})
>>> state.to_json()["bag_count"], state.current_player() in ("Ana", "Ben")
(74, True)
"""

from engines.core import Bot, GameSpec, Pass
from engines.triolet import bot
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

SPEC = GameSpec(
    name="triolet",
    game=TrioletGame,
    state=TrioletState,
    parse_action=parse_action,
    action_to_json=action_to_json,
    bot=Bot(bot.choose, bot.hint),
    analyze=bot.analyze,
)

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
