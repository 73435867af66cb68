"""Trigono, the throwing game: rules engine (trigono.md T1–T21, RECORDS.md notation).

>>> from engines.records import replay
>>> state = replay({"game": "trigono", "options": {"players": ["Ana", "Ben"], "first": "Ana"},
...                 "actions": [{"throw": {"player": "Ana", "to": "B1.small"}}]})
>>> state.to_json()["hands"], state.current_player()
({'Ana': 10, 'Ben': 10}, 'Ben')
"""

from engines.trigono.actions import Action, Knock, Target, Throw, parse_json, parse_text
from engines.trigono.game import TrigonoGame, TrigonoState, describe_event
from engines.trigono.layout import Layout, hexagon_boards
from engines.trigono.options import Options

GAME = TrigonoGame

__all__ = [
    "GAME",
    "Action",
    "Knock",
    "Layout",
    "Options",
    "Target",
    "Throw",
    "TrigonoGame",
    "TrigonoState",
    "describe_event",
    "hexagon_boards",
    "parse_json",
    "parse_text",
]
