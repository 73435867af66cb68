"""Triominos: the engine (M1–M14 of docs/rules/triominos.md) on the shared lattice.

>>> from engines.records import replay
>>> state = replay({"game": "triominos", "seed": 3, "options": {"players": ["Ana", "Ben"]}})
>>> state.to_json()["pool_count"], state.current_player() in ("Ana", "Ben")
(38, True)
"""

from engines.core import GameType, Pass, build_spec
from engines.triominos import actions, bot, stats
from engines.triominos.actions import (
    Action,
    Draw,
    Place,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.triominos.game import TriominosGame, TriominosState
from engines.triominos.rules import Rules

SPEC = build_spec("triominos", TriominosGame, TriominosState, actions, bot,
                  game_type=GameType("triominos", drawing="tile_cells", max_players=6),
                  player_stats=stats.PLAYER_STATS)

__all__ = [
    "SPEC",
    "Action",
    "Draw",
    "Pass",
    "Place",
    "Rules",
    "TriominosGame",
    "TriominosState",
    "action_from_str",
    "action_to_json",
    "parse_action",
]
