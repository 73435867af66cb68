"""Triominos: the engine (M1–M14 of shared/rules/triominos.md) on the shared lattice.

>>> import random
>>> from engines.records import replay
>>> state = replay({"game": "triominos", "seed": 3, "options": {"players": ["Ana", "Ben"]}})
>>> state.to_json()["pool_count"], state.current_player() in ("Ana", "Ben")
(38, True)
"""

from engines.core import Pass
from engines.triominos.game import (
    GAME,
    Action,
    Draw,
    Place,
    Rules,
    TriominosGame,
    TriominosState,
    action_from_str,
    parse_action,
)

__all__ = [
    "GAME",
    "Action",
    "Draw",
    "Pass",
    "Place",
    "Rules",
    "TriominosGame",
    "TriominosState",
    "action_from_str",
    "parse_action",
]
