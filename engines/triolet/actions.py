"""Triolet actions and their notations (docs/records.md § Triolet): play, exchange, pass.

>>> parse_action({"play": ["H8:5", "H9:10"]}).to_str()
'H8:5 H9:10'
>>> action_to_json(action_from_str("exchange 3 J"))
{'exchange': [3, 'J']}
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.core import JSON, InvalidMoveError, Pass, RecordError, one_entry
from engines.triolet.board import MAX_VALUE, RACK_SIZE, cell_index, parse_token, token_name


@dataclass(frozen=True, order=True)
class Placement:
    """One token put on a cell: ``value`` is the number (a joker's declared value).

    >>> Placement.from_str("H10:J0")
    Placement(cell='H10', value=0, joker=True)
    """

    cell: str
    value: int
    joker: bool = False

    def to_str(self) -> str:
        return f"{self.cell}:{'J' if self.joker else ''}{self.value}"

    @classmethod
    def from_str(cls, text: object) -> Placement:
        if not isinstance(text, str) or text.count(":") != 1:
            raise RecordError(f"play: expected \"CELL:VALUE\", got {text!r}")
        where, what = text.split(":")
        cell_index(where)
        joker = what.startswith("J")
        digits = what[1:] if joker else what
        if not digits.isdigit() or not 0 <= int(digits) <= MAX_VALUE or len(digits) > 2:
            raise RecordError(f"play: not a token value in {text!r} (0-15, or J0-J15)")
        return cls(where, int(digits), joker)


def _board_order(p: Placement) -> int:
    return cell_index(p.cell)


@dataclass(frozen=True)
class PlayTokens:
    """Place 1–3 tokens (L3); kept in board order so equal plays compare equal.

    >>> PlayTokens.from_str("H9:10 H8:5").to_str()
    'H8:5 H9:10'
    """

    placements: tuple[Placement, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "placements", tuple(sorted(self.placements, key=_board_order)))

    def to_str(self) -> str:
        return " ".join(p.to_str() for p in self.placements)

    @classmethod
    def from_str(cls, text: str) -> PlayTokens:
        return cls(tuple(Placement.from_str(t) for t in text.split()))


@dataclass(frozen=True)
class Exchange:
    """Swap 1–3 rack tokens with the bag (L13); tokens are values or JOKER (16).

    >>> Exchange.from_str("exchange 3 J").tokens
    (3, 16)
    """

    tokens: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(sorted(self.tokens)))

    def to_str(self) -> str:
        return "exchange " + " ".join(str(token_name(t)) for t in self.tokens)

    @classmethod
    def from_str(cls, text: str) -> Exchange:
        words = text.split()
        if not words or words[0] != "exchange" or not 1 <= len(words) - 1 <= RACK_SIZE:
            raise InvalidMoveError(f"not an exchange of 1 to 3 tokens: {text!r}")
        try:
            return cls(tuple(parse_token("J" if w == "J" else int(w), "exchange") for w in words[1:]))
        except ValueError as err:
            raise InvalidMoveError(f"not an exchange: {text!r}") from err


Action = PlayTokens | Exchange | Pass


def action_from_str(text: str) -> Action:
    """Parse the text notation: ``"H8:5 H9:J7"``, ``"exchange 3 J"`` or ``"pass"``.

    >>> action_from_str("pass"), action_from_str("exchange 1").to_str()
    (Pass(), 'exchange 1')
    """
    if text == "pass":
        return Pass()
    if text.startswith("exchange"):
        return Exchange.from_str(text)
    try:
        return PlayTokens.from_str(text)
    except RecordError as err:
        raise InvalidMoveError(str(err)) from err


def parse_action(obj: JSON) -> Action:
    """An action from the docs/records.md notation.

    >>> parse_action({"play": ["H8:5", "H9:10", "H10:J0"]}).to_str()
    'H8:5 H9:10 H10:J0'
    >>> parse_action({"exchange": [3, "J"]})
    Exchange(tokens=(3, 16))
    >>> parse_action({"pass": False})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: pass: expected true
    """
    kind, value = one_entry(obj, ("play", "exchange", "pass"), "action")
    if kind == "pass":
        if value is not True:
            raise RecordError("pass: expected true")
        return Pass()
    if not isinstance(value, list) or not 1 <= len(value) <= RACK_SIZE:
        raise RecordError(f"{kind}: expected a list of 1 to 3 tokens")
    if kind == "play":
        return PlayTokens(tuple(Placement.from_str(t) for t in value))
    return Exchange(tuple(parse_token(t, "exchange") for t in value))


def action_to_json(action: Action) -> JSON:
    """An action in its docs/records.md notation (the inverse of :func:`parse_action`)."""
    if isinstance(action, PlayTokens):
        return {"play": [p.to_str() for p in action.placements]}
    if isinstance(action, Exchange):
        return {"exchange": [token_name(t) for t in action.tokens]}
    return {"pass": True}
