"""Trigono, the throwing game: rules engine (trigono.md T1–T21, docs/records.md notation).

Played by people with real palets: no bot and no analysis.

>>> from engines.records import replay
>>> state = replay({"game": "trigono", "options": {"players": ["Ana", "Ben"], "first": "Ana"},
...                 "actions": [{"throw": {"player": "Ana", "to": "B1.small"}}]})
>>> state.to_json()["hands"], state.current_player()
({'Ana': 10, 'Ben': 10}, 'Ben')
"""

from engines.core import build_spec
from engines.trigono import actions
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
from engines.trigono.scoreboard import describe as describe_scoreboard

SPEC = build_spec("trigono", TrigonoGame, TrigonoState, actions, always_a_winner=True,
                  scoreboard=describe_scoreboard, hexagon_boards=hexagon_boards)

__all__ = [
    "SPEC",
    "Action",
    "Knock",
    "Layout",
    "Options",
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
