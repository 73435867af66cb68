"""Trigono actions: a throw (T5, with T10 invalid drops and T12 knock-ins) and a final's
target choice (T17), in the JSON notation of docs/records.md and a short text notation.

Text notation:

- a throw is ``PLAYER>WHERE``; WHERE as in JSON (``board:B1``, ``floor``, ``B1.big``,
  ``jackpot``…); a ``~`` after it marks an invalid drop (the palet bounced on the floor
  first, T10); each knock-in adds ``+FROM>HOLE`` (T12);
- a target choice is ``target:HOLE``.

>>> Throw.from_str("Ben>board:B1+B1>B1.big").to_json()
{'throw': {'player': 'Ben', 'to': 'board:B1', 'knocked': [{'from': 'B1', 'to': 'B1.big'}]}}
>>> parse_action({"throw": {"player": "Chloé", "to": "B2.small", "invalid": True}}).to_str()
'Chloé>B2.small~'
>>> action_from_str("target:jackpot")
Target(hole='jackpot')
>>> parse_action({"throw": {"player": "Ana", "to": "floor", "spin": 3}})
Traceback (most recent call last):
...
engines.core.RecordError: throw: unknown field 'spin'

An action is logged as given, defaults spelled out included:

>>> parse_action({"throw": {"player": "Ana", "to": "floor", "invalid": False}}).to_json()
{'throw': {'player': 'Ana', 'to': 'floor', 'invalid': False}}

Whether the player, board or hole exists is checked when the action is applied
(IllegalMoveError), not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.core import JSON, InvalidMoveError, RecordError, check_keys

FLOOR = "floor"
BOARD_PREFIX = "board:"
INVALID_MARK = "~"
TARGET_PREFIX = "target:"


def _text(value: JSON, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise RecordError(f"{what}: expected a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True)
class Knock:
    """A palet that lay on board ``source`` and fell into ``hole`` during a throw (T12)."""

    source: str
    hole: str

    def to_json(self) -> dict[str, str]:
        return {"from": self.source, "to": self.hole}

    def to_str(self) -> str:
        return f"{self.source}>{self.hole}"


@dataclass(frozen=True)
class Throw:
    """One palet thrown by ``player`` coming to rest at ``to`` (T5).

    >>> Throw("Ana", "floor").to_str()
    'Ana>floor'
    >>> Throw.from_str("Ana>B1.small~") == Throw("Ana", "B1.small", invalid=True)
    True
    """

    player: str
    to: str
    invalid: bool = False
    knocked: tuple[Knock, ...] = ()
    # Optional JSON fields the record spelled out even at their default ("invalid": false,
    # "knocked": []), so the log shows the action as given. Not part of equality.
    spelled: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"player": self.player, "to": self.to}
        if self.invalid or "invalid" in self.spelled:
            body["invalid"] = self.invalid
        if self.knocked or "knocked" in self.spelled:
            body["knocked"] = [k.to_json() for k in self.knocked]
        return {"throw": body}

    def to_str(self) -> str:
        mark = INVALID_MARK if self.invalid else ""
        return f"{self.player}>{self.to}{mark}" + "".join(f"+{k.to_str()}" for k in self.knocked)

    @classmethod
    def from_str(cls, text: str) -> Throw:
        player, sep, rest = text.partition(">")
        if not sep or not player or not rest:
            raise InvalidMoveError(f"throw: expected PLAYER>WHERE[~][+BOARD>HOLE…], got {text!r}")
        where, *knocks = rest.split("+")
        invalid = where.endswith(INVALID_MARK)
        if invalid:
            where = where[: -len(INVALID_MARK)]
        knocked = []
        for knock in knocks:
            source, ksep, hole = knock.partition(">")
            if not ksep or not source or not hole:
                raise InvalidMoveError(f"throw: a knock-in is +BOARD>HOLE, got {knock!r}")
            knocked.append(Knock(source, hole))
        if not where:
            raise InvalidMoveError(f"throw: missing destination in {text!r}")
        return cls(player, where, invalid, tuple(knocked))


@dataclass(frozen=True)
class Target:
    """The first finalist names the target hole of a final (T17).

    >>> Target("B1.small").to_str()
    'target:B1.small'
    """

    hole: str

    def to_json(self) -> dict[str, str]:
        return {"target": self.hole}

    def to_str(self) -> str:
        return f"{TARGET_PREFIX}{self.hole}"

    @classmethod
    def from_str(cls, text: str) -> Target:
        if not text.startswith(TARGET_PREFIX) or len(text) == len(TARGET_PREFIX):
            raise InvalidMoveError(f"target: expected target:HOLE, got {text!r}")
        return cls(text[len(TARGET_PREFIX) :])


Action = Throw | Target


def parse_action(obj: JSON) -> Action:
    """An action from its docs/records.md JSON notation (shape only; RecordError when malformed)."""
    if isinstance(obj, dict) and "target" in obj:
        return Target(_text(check_keys(obj, ("target",), "action")["target"], "target"))
    outer = check_keys(obj, ("throw",), "action", required=("throw",))
    body = check_keys(
        outer["throw"], ("player", "to", "invalid", "knocked"), "throw", required=("player", "to")
    )
    invalid = body.get("invalid", False)
    if not isinstance(invalid, bool):
        raise RecordError(f"throw: invalid must be true or false, got {invalid!r}")
    raw_knocked = body.get("knocked", [])
    if not isinstance(raw_knocked, list):
        raise RecordError("throw: knocked must be a list of {from, to}")
    knocked = []
    for raw in raw_knocked:
        entry = check_keys(raw, ("from", "to"), "knocked", required=("from", "to"))
        knocked.append(
            Knock(_text(entry["from"], "knocked.from"), _text(entry["to"], "knocked.to"))
        )
    return Throw(
        _text(body["player"], "throw.player"),
        _text(body["to"], "throw.to"),
        invalid,
        tuple(knocked),
        frozenset(body) & {"invalid", "knocked"},
    )


def action_to_json(action: Action) -> JSON:
    """An action in its docs/records.md JSON notation (the inverse of :func:`parse_action`)."""
    return action.to_json()


def action_from_str(text: str) -> Action:
    """An action from its text notation (InvalidMoveError when malformed)."""
    if text.startswith(TARGET_PREFIX) and ">" not in text:
        return Target.from_str(text)
    return Throw.from_str(text)
