"""Trigono options (docs/records.md), with named switches for the rule readings marked [ours].

>>> o = Options.from_json({"players": ["Ana", "Ben", "Chloé"]})
>>> o.palets_per_player, o.rounds_to_win, o.layout.board_ids
(5, 2, ('B1',))
>>> Options.from_json({"players": ["A", "B", "C", "D", "E"]})
Traceback (most recent call last):
...
engines.core.RecordError: players: 5 players need at least 2 boards (at most 4 per board, T3)
>>> Options.from_json({"rounds": 3})
Traceback (most recent call last):
...
engines.core.RecordError: options: unknown field 'rounds'

Referee switches (defaults are this project's readings of trigono.md):

- ``throw_line_m`` (3.0, T1) and ``step_back_m`` (0.30, T16: one shoe length per
  elimination with more than 4 players; 0 turns the step back off);
- ``draw_starter``: ``"same"`` (T4 [ours]: after a drawn round its starter starts again)
  or ``"next"`` (the next player in seat order);
- ``finals``: ``"auto"`` (T17: with more than 4 players, and always in a hexagon
  layout), ``"always"`` (every round that starts with 3+ players) or ``"never"``;
- ``final_holes_take``: false (T17 [ours]: during a final no hole takes anything) or true
  (holes other than the target keep their T6–T8 rules during a final).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.core import JSON, RecordError, check_keys, flag_option
from engines.trigono.layout import DEFAULT_BOARDS, PLAYERS_PER_BOARD, Layout

DEFAULT_PLAYERS = ["P1", "P2"]
OPTION_FIELDS = (
    "players",
    "boards",
    "palets_per_player",
    "rounds_to_win",
    "first",
    "throw_line_m",
    "step_back_m",
    "draw_starter",
    "finals",
    "final_holes_take",
)
DRAW_STARTERS = ("same", "next")
FINALS = ("auto", "always", "never")
NORMAL, LAST_CHANCE, FINAL = "normal", "last_chance", "final"  # a round's phases (T14, T17)
MANY_PLAYERS_ABOVE = 4  # T16 step back and T17 finals: "with more than 4 players"


def _int(value: JSON, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RecordError(f"{what}: expected an integer >= {minimum}, got {value!r}")
    return value


def _metres(value: JSON, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
        raise RecordError(f"{what}: expected a distance in metres (0 to 100), got {value!r}")
    return float(value)


def _choice(value: JSON, what: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise RecordError(f"{what}: expected one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def _players(value: JSON) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) < 2:
        raise RecordError("players: expected a list of at least 2 names")
    for name in value:
        # '>' separates the player from the destination in the text notation.
        if not isinstance(name, str) or not name.strip() or ">" in name or not name.isprintable():
            raise RecordError(
                f"players: a name is a non-empty printable string without '>', got {name!r}"
            )
    if len(set(value)) != len(value):
        raise RecordError("players: names must be unique")
    return tuple(value)


@dataclass(frozen=True)
class Options:
    players: tuple[str, ...]
    layout: Layout
    palets_per_player: int
    rounds_to_win: int
    first: str | None
    throw_line_m: float = 3.0
    step_back_m: float = 0.30
    draw_starter: str = "same"
    finals: str = "auto"
    final_holes_take: bool = False

    @classmethod
    def from_json(cls, obj: JSON) -> Options:
        raw = check_keys(obj if obj is not None else {}, OPTION_FIELDS, "options")
        players = _players(raw.get("players", DEFAULT_PLAYERS))
        layout = Layout.from_json(raw.get("boards", DEFAULT_BOARDS))
        seats = PLAYERS_PER_BOARD * len(layout.boards)
        if len(players) > seats:
            need = -(-len(players) // PLAYERS_PER_BOARD)
            raise RecordError(
                f"players: {len(players)} players need at least {need} boards "
                f"(at most {PLAYERS_PER_BOARD} per board, T3)"
            )
        default_palets = 10 if len(players) == 2 else 5  # T2
        palets = _int(raw.get("palets_per_player", default_palets), "palets_per_player", 1)
        rounds = _int(raw.get("rounds_to_win", 2), "rounds_to_win", 1)
        first = raw.get("first")
        if first is not None and first not in players:
            raise RecordError(f"first: {first!r} is not one of the players")
        holes_take = flag_option(raw.get("final_holes_take", False), "final_holes_take")
        return cls(
            players=players,
            layout=layout,
            palets_per_player=palets,
            rounds_to_win=rounds,
            first=first,
            throw_line_m=_metres(raw.get("throw_line_m", 3.0), "throw_line_m"),
            step_back_m=_metres(raw.get("step_back_m", 0.30), "step_back_m"),
            draw_starter=_choice(raw.get("draw_starter", "same"), "draw_starter", DRAW_STARTERS),
            finals=_choice(raw.get("finals", "auto"), "finals", FINALS),
            final_holes_take=holes_take,
        )

    def to_json(self) -> dict[str, Any]:
        """Every option spelled out (defaults included)."""
        return {
            "players": list(self.players),
            "boards": self.layout.to_json(),
            "palets_per_player": self.palets_per_player,
            "rounds_to_win": self.rounds_to_win,
            "first": self.first,
            "throw_line_m": self.throw_line_m,
            "step_back_m": self.step_back_m,
            "draw_starter": self.draw_starter,
            "finals": self.finals,
            "final_holes_take": self.final_holes_take,
        }

    @property
    def steps_back(self) -> bool:
        """T16: the throw line moves back at each elimination with more than 4 players."""
        return len(self.players) > MANY_PLAYERS_ABOVE

    @property
    def has_finals(self) -> bool:
        """T17: whether a round that falls to two players becomes a final."""
        if len(self.players) < 3 or self.finals == "never":
            return False
        return (
            self.finals == "always"
            or len(self.players) > MANY_PLAYERS_ABOVE
            or bool(self.layout.jackpots)
        )
