"""Game records (RECORDS.md): ``{"game", "options", "seed", "position", "actions"}``.

Replay is ``reduce(apply, actions, initial_state)``: the record is the truth.

>>> replay({"game": "chess"})
Traceback (most recent call last):
...
engines.records.ReplayError: record: unknown game 'chess' (known: trigono, trike, triolet, triominos)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines import game_class
from engines.core import JSON, GameError, RecordError, State, check_keys

RECORD_FIELDS = ("game", "options", "seed", "position", "actions")


@dataclass
class ReplayError(GameError):
    """Replaying a record failed; ``index`` is the action's position, None for the record itself."""

    index: int | None
    reason: str

    def __str__(self) -> str:
        where = "record" if self.index is None else f"action {self.index}"
        return f"{where}: {self.reason}"


def initial_state(record: Mapping[str, JSON]) -> State[Any]:
    """The state a record starts from (before its actions)."""
    try:
        check_keys(record, RECORD_FIELDS, "record", required=("game",))
        name = record["game"]
        if not isinstance(name, str):
            raise RecordError("game: expected a string")
        options = record.get("options", {})
        check_keys(options, list(options) if isinstance(options, dict) else [], "options")
        seed = record.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError("seed: expected an integer")
        position = record.get("position")
        if position is not None and not isinstance(position, dict):
            raise RecordError("position: expected an object")
        game = game_class(name)(options)
        return game.new_initial_state(random.Random(seed), position)
    except GameError as err:
        raise ReplayError(None, str(err)) from err


def replay(record: Mapping[str, JSON]) -> State[Any]:
    """Replay a whole record; raises :class:`ReplayError` naming the failing action."""
    state = initial_state(record)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise ReplayError(None, "actions: expected a list")
    for index, raw in enumerate(actions):
        try:
            state.apply(state.parse_action(raw))
        except GameError as err:
            raise ReplayError(index, str(err)) from err
    return state
