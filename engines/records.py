"""Game records (docs/records.md): ``{"game", "options", "seed", "position", "actions"}``.

Replay is ``reduce(apply, actions, initial_state)``: the record is the truth.

A record may also carry what its replay must give (the worked examples of
``tests/records/`` do; docs/records.md § Worked examples): ``expect`` — fields the printed
state must have (``log_points``: the ``points`` of each log entry in order; racks compare
as multisets; count maps may list zero entries or not) — or ``expect_error`` —
``{"exit": 2, "index": N}``, the action that must be refused. :func:`replay` checks them:
a record whose claim is false fails like a malformed one, so a checked record can be
replayed as it is.

>>> replay({"game": "chess"})
Traceback (most recent call last):
...
engines.records.ReplayError: record: unknown game 'chess' (known: trigono, trike, triolet, triominos)
>>> record = {"game": "trike", "options": {"size": 3}, "actions": ["b1"]}
>>> replay({**record, "expect": {"to_move": "white", "log_points": [0]}}).current_player()
'white'
>>> replay({**record, "expect": {"to_move": "black"}})
Traceback (most recent call last):
...
engines.records.ReplayError: record: expect.to_move: the replay gives 'white', not 'black'
>>> replay({**record, "expect_error": {"exit": 2, "index": 0}})
Traceback (most recent call last):
...
engines.records.ReplayError: record: expect_error: action 0 was expected to fail, but every action was accepted
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines import game_spec
from engines.core import JSON, GameError, RecordError, State, check_keys

RECORD_FIELDS = ("game", "options", "seed", "position", "actions", "expect", "expect_error")
EXPECT_ERROR_FIELDS = ("exit", "index")
BAD_RECORD_EXIT = 2  # docs/records.md: the exit status of a malformed record or an illegal action


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
        game = game_spec(name).game(options)
        return game.new_initial_state(random.Random(seed), position)
    except GameError as err:
        raise ReplayError(None, str(err)) from err


def replay(record: Mapping[str, JSON]) -> State[Any]:
    """Replay a whole record; raises :class:`ReplayError` naming the failing action, or
    the record itself when its ``expect``/``expect_error`` claim is false."""
    failing = _expected_failure(record)
    state = initial_state(record)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise ReplayError(None, "actions: expected a list")
    for index, raw in enumerate(actions):
        try:
            state.apply(state.parse_action(raw))
        except GameError as err:
            raise ReplayError(index, str(err)) from err
    if failing is not None:
        raise ReplayError(
            None, f"expect_error: action {failing} was expected to fail, but every action was accepted"
        )
    if "expect" in record:
        mismatch = expect_mismatch(state.to_json(), record["expect"])
        if mismatch is not None:
            raise ReplayError(None, mismatch)
    return state


def _expected_failure(record: Mapping[str, JSON]) -> int | None:
    """The index of ``expect_error``, checked for shape (None without one)."""
    if not isinstance(record, Mapping) or "expect_error" not in record:
        return None
    if "expect" in record:
        raise ReplayError(None, "expect and expect_error: a record claims one or the other")
    try:
        claim = check_keys(
            record["expect_error"], EXPECT_ERROR_FIELDS, "expect_error", required=EXPECT_ERROR_FIELDS
        )
    except RecordError as err:
        raise ReplayError(None, str(err)) from err
    index = claim["index"]
    if claim["exit"] != BAD_RECORD_EXIT or isinstance(index, bool) or not isinstance(index, int):
        raise ReplayError(None, f"expect_error: expected {{\"exit\": 2, \"index\": N}}, got {claim}")
    return index


def expect_mismatch(printed: Mapping[str, JSON], expect: JSON) -> str | None:
    """Why ``printed`` (a state's ``to_json()``) does not have the fields of ``expect``,
    or None when it has them all.

    >>> printed = {"racks": {"Ana": ["1-2-3", "0-0-0"]}, "holes": {"B1.big": 0}, "log": []}
    >>> expect_mismatch(printed, {"racks": {"Ana": ["0-0-0", "1-2-3"]}, "holes": {}})
    >>> expect_mismatch(printed, {"log_points": [5]})
    'expect.log_points: the replay gives [], not [5]'
    >>> expect_mismatch(printed, {"round": 2})
    "expect.round: the printed state has no field 'round'"
    """
    if not isinstance(expect, dict):
        return "expect: expected an object {field: value}"
    for field, want in expect.items():
        if field == "log_points":
            log = printed.get("log")
            got: JSON = [entry["points"] for entry in log] if isinstance(log, list) else None
        elif field in printed:
            got = printed[field]
        else:
            return f"expect.{field}: the printed state has no field {field!r}"
        if not _same(field, got, want):
            return f"expect.{field}: the replay gives {got!r}, not {want!r}"
    return None


def _same(field: str, got: JSON, want: JSON) -> bool:
    """Equal as the worked examples compare: racks as multisets, count maps (all values
    integers) with or without their zero entries."""
    if field == "racks" and isinstance(got, dict) and isinstance(want, dict):
        return {k: sorted(map(str, v)) for k, v in got.items()} == {
            k: sorted(map(str, v)) for k, v in want.items()
        }
    if isinstance(got, dict) and isinstance(want, dict) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in [*got.values(), *want.values()]
    ):
        return {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}
    return bool(got == want)
