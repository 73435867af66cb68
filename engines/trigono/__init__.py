"""Trigono, the throwing game: rules engine (trigono.md T1–T21, docs/records.md notation).

Played by people with real palets: no bot and no analysis.

>>> from engines.records import replay
>>> state = replay({"game": "trigono", "options": {"players": ["Ana", "Ben"], "first": "Ana"},
...                 "actions": [{"throw": {"player": "Ana", "to": "B1.small"}}]})
>>> state.to_json()["hands"], state.current_player()
({'Ana': 10, 'Ben': 10}, 'Ben')
"""

from engines.core import GameType, build_spec
from engines.trigono import actions, stats
from engines.trigono.actions import (
    Action,
    Knock,
    Target,
    Throw,
    action_from_str,
    action_to_json,
    parse_action,
)
from engines.trigono.events import describe_event
from engines.trigono.game import TrigonoGame, TrigonoState
from engines.trigono.layout import Layout, hexagon_boards
from engines.trigono.options import Options
from engines.trigono.places import Place, place_label
from engines.trigono.scoreboard import describe as describe_scoreboard
from engines.trigono.scoreboard import detailed_ranking

SPEC = build_spec("trigono", TrigonoGame, TrigonoState, actions, always_a_winner=True,
                  game_type=GameType("trigono", drawing="board_layout", sensor_boards=True, turn="throw",
                                     ends="match", rounds=True, tally="hands"),
                  scoreboard=describe_scoreboard, hexagon_boards=hexagon_boards, place_label=place_label,
                  detailed_ranking=detailed_ranking, short_options={"palets_per_player": 3, "rounds_to_win": 2},
                  player_stats=stats.PLAYER_STATS)

__all__ = [
    "SPEC",
    "Action",
    "Knock",
    "Layout",
    "Options",
    "Place",
    "Target",
    "Throw",
    "TrigonoGame",
    "TrigonoState",
    "action_from_str",
    "action_to_json",
    "describe_event",
    "hexagon_boards",
    "parse_action",
]
