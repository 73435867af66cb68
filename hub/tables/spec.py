"""What a table is made of, parsed and validated once: :class:`TableSpec`.

The API's body, the admin form, ``trigono hub --table JSON`` and the simulator all build
one, so a table is checked the same way whichever door it comes in by. A malformed spec
raises a :class:`hub.errors.HubError` (a ``ValueError``) naming the field; the engine's
own checks of the options happen when the hub creates the table.

>>> spec = TableSpec.from_json({"id": "t1", "game": "trigono", "seats": ["Ana", "Ben"],
...                             "boards": ["B1"], "referee": {"settle_s": 0.5}})
>>> spec.table_id, [s.name for s in spec.seats or []], spec.boards[0]["holes"], spec.settle_s
('t1', ['Ana', 'Ben'], {'big': 'B1.big', 'small': 'B1.small'}, 0.5)
>>> TableSpec.from_json({"game": "trigono", "colour": "red"})
Traceback (most recent call last):
...
hub.errors.BadInputError: table: unknown field 'colour' (known: id, game, options, seats, boards, seed, referee)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engines import GAMES
from hub.devices import board_id
from hub.errors import BadInputError, UnknownGameError
from hub.tables.layout import default_holes, place, row_boards
from hub.tables.names import player_name

JSONDict = dict[str, Any]
SPEC_FIELDS = ("id", "game", "options", "seats", "boards", "seed", "referee")
REFEREE_FIELDS = ("settle_s", "landing_s")
MAX_SETTLE_S = 30.0


@dataclass(frozen=True)
class Seat:
    """One seat, in play order: a person or a computer player (``bot``)."""

    name: str
    bot: bool = False

    def to_json(self) -> JSONDict:
        return {"name": self.name, "bot": self.bot}


@dataclass(frozen=True)
class TableSpec:
    """A table to create: game, options, seats, bound boards, seed, id, referee settings.

    ``seats`` None: the game's default players, all people. ``boards`` (Trigono): the
    bindings of physical boards (see :mod:`hub.tables.layout`). ``seed`` None: a random one
    (stored). ``table_id`` None: the next free ``tN``. ``settle_s`` None: the hub's
    default knock-in window.
    """

    game: str
    options: JSONDict = field(default_factory=dict)
    seats: list[Seat] | None = None
    boards: list[JSONDict] = field(default_factory=list)
    seed: int | None = None
    table_id: str | None = None
    settle_s: float | None = None
    landing_s: float | None = None  # a throw seen at the line waits this long for a sensor

    @classmethod
    def build(cls, game: Any, *, options: Any = None, seats: Any = None, boards: Any = None,
              seed: Any = None, table_id: Any = None, referee: Any = None, layout: Any = None) -> TableSpec:
        """Validate each part; raises :class:`UnknownGameError` or :class:`BadInputError`.

        ``layout``, instead of ``boards``: the boards placed on the admin's grid
        (``[{"id", "cell", "device"}]``, :func:`hub.tables.layout.place`), which give both
        the bindings and, unless the options name them, the engine's ``boards``.

        >>> spec = TableSpec.build("trigono", layout=[{"id": "B1", "cell": [0, 0, "up"], "device": "pico-7"}])
        >>> spec.options["boards"], spec.boards[0]["board"]
        ([{'id': 'B1', 'cell': [0, 0, 'up']}], 'pico-7')
        """
        game = check_game(game)
        if options is not None and not isinstance(options, Mapping):
            raise BadInputError("options: expected an object")
        if layout is not None:
            if boards is not None:
                raise BadInputError("layout: give the boards placed or bound, not both")
            placed, boards = place(layout)
            options = {"boards": placed, **(options or {})}
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise BadInputError("seed: expected an integer")
        if table_id is not None:
            check_table_id(table_id)
        bindings = parse_bindings(boards)
        if bindings and not GAMES[game].game_type.sensor_boards:
            raise BadInputError(f"boards: a {game} table has no sensor boards", "no_sensor_boards", game=game)
        return cls(game, dict(options or {}), parse_seats(seats), bindings, seed, table_id,
                   parse_referee(referee), parse_landing(referee))

    @classmethod
    def from_json(cls, data: Any) -> TableSpec:
        """From a JSON object with the fields of :data:`SPEC_FIELDS` (the API body,
        ``--table``)."""
        if not isinstance(data, Mapping):
            raise BadInputError("table: expected a JSON object")
        unknown = [k for k in data if k not in SPEC_FIELDS]
        if unknown:
            raise BadInputError(f"table: unknown field {unknown[0]!r} (known: {', '.join(SPEC_FIELDS)})")
        if "game" not in data:
            raise BadInputError("table: missing field 'game'")
        return cls.build(data["game"], options=data.get("options"), seats=data.get("seats"),
                         boards=data.get("boards"), seed=data.get("seed"), table_id=data.get("id"),
                         referee=data.get("referee"))

    @classmethod
    def from_text(cls, text: str) -> TableSpec:
        """From JSON text (``--table``)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise BadInputError(f"table: not JSON ({err.msg})") from None
        return cls.from_json(data)

    def entry_body(self, seed: int, default_settle_s: float) -> JSONDict:
        """The body of the table's ``create`` log entry, defaults resolved: seats become
        ``options["players"]``; Trigono boards bound but not placed (no
        ``options["boards"]``) go in a side-connected row.

        >>> TableSpec.build("trigono", seats=["Ana", "Ben"], boards=["B1"]).entry_body(7, 1.0)["options"]
        {'boards': [{'id': 'B1', 'cell': [0, 0, 'up']}], 'players': ['Ana', 'Ben']}
        """
        opts = dict(self.options)
        if self.boards and "boards" not in opts:  # bound boards: a sensor-board game (build checks)
            opts["boards"] = row_boards(self.boards)
        seats = ([s.to_json() for s in self.seats] if self.seats is not None
                 else [{"name": p, "bot": False} for p in opts.get("players") or []])
        if seats:
            opts["players"] = [s["name"] for s in seats]
        settle = self.settle_s if self.settle_s is not None else default_settle_s
        referee: JSONDict = {"settle_s": float(settle)}
        if self.landing_s is not None:
            referee["landing_s"] = self.landing_s
        return {"game": self.game, "options": opts, "seed": seed, "seats": seats,
                "boards": [dict(b) for b in self.boards], "referee": referee}

    def to_json(self) -> JSONDict:
        """The JSON object :meth:`from_json` reads back."""
        out: JSONDict = {"game": self.game}
        if self.table_id is not None:
            out["id"] = self.table_id
        if self.options:
            out["options"] = dict(self.options)
        if self.seats is not None:
            out["seats"] = [s.to_json() for s in self.seats]
        if self.boards:
            out["boards"] = [dict(b) for b in self.boards]
        if self.seed is not None:
            out["seed"] = self.seed
        if self.settle_s is not None:
            out["referee"] = {"settle_s": self.settle_s}
        if self.landing_s is not None:
            out["referee"] = {**out.get("referee", {}), "landing_s": self.landing_s}
        return out


def check_game(name: Any) -> str:
    """A registered game's name; :class:`UnknownGameError` otherwise."""
    if not isinstance(name, str) or name not in GAMES:
        raise UnknownGameError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})", "unknown_game",
                               game=str(name))
    return name



def check_table_id(table_id: Any) -> str:
    """A table id is part of page addresses (``/tables/<id>``): no ``/`` or ``\\``, no
    control characters, at most 64 characters.

    >>> check_table_id("t1")
    't1'
    >>> check_table_id("a/b")
    Traceback (most recent call last):
    ...
    hub.errors.BadInputError: id: no '/' or '\\' (it is part of page addresses)
    """
    if not isinstance(table_id, str) or not table_id:
        raise BadInputError("id: expected a non-empty string", "bad_table_id")
    if "/" in table_id or "\\" in table_id:
        raise BadInputError("id: no '/' or '\\' (it is part of page addresses)", "bad_table_id")
    if len(table_id) > 64 or not table_id.isprintable():
        raise BadInputError("id: at most 64 printable characters", "bad_table_id")
    return table_id


def parse_seats(seats: Any) -> list[Seat] | None:
    """Seats from ``["Ana", {"name": "Robo", "bot": true}]``; None stays None.

    >>> parse_seats(["Ana", {"name": "Robo", "bot": True}])
    [Seat(name='Ana', bot=False), Seat(name='Robo', bot=True)]
    """
    if seats is None:
        return None
    if not isinstance(seats, list):
        raise BadInputError("seats: expected a list")
    out = []
    for seat in seats:
        if isinstance(seat, str):
            seat = {"name": seat}
        if not isinstance(seat, Mapping):
            raise BadInputError("seat: expected a name or an object")
        unknown = [k for k in seat if k not in ("name", "bot")]
        if unknown:
            raise BadInputError(f"seat: unknown field {unknown[0]!r}")
        name = player_name(seat.get("name"), "seat")  # NFC, nothing invisible (hub/tables/names.py)
        out.append(Seat(name, bool(seat.get("bot", False))))
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise BadInputError("seats: two seats have the same name", "duplicate_seat")
    return out


def parse_bindings(boards: Any) -> list[JSONDict]:
    """Bound boards as ``[{"board", "as", "holes"}]``; holes default to big/small.

    >>> parse_bindings(["B1"])
    [{'board': 'B1', 'as': 'B1', 'holes': {'big': 'B1.big', 'small': 'B1.small'}}]
    """
    if boards is None:
        return []
    if not isinstance(boards, list):
        raise BadInputError("boards: expected a list")
    out: list[JSONDict] = []
    for item in boards:
        if isinstance(item, str):
            item = {"board": item}
        if not isinstance(item, Mapping):
            raise BadInputError("boards: expected a board id or an object")
        unknown = [k for k in item if k not in ("board", "as", "holes")]
        if unknown:
            raise BadInputError(f"boards: unknown field {unknown[0]!r}")
        board = item.get("board")
        if not isinstance(board, str):
            raise BadInputError("boards: board must be a string")
        refused = board_id.refusal(board)
        if refused is not None:  # the device links refuse it too: it would never be heard
            raise BadInputError(f"boards: {refused}", "bad_board_id", board=board)
        engine_board = item.get("as", board)
        if not isinstance(engine_board, str):
            raise BadInputError("boards: 'as' must be a board id")
        holes = item.get("holes", default_holes(engine_board))
        if not isinstance(holes, dict) or not all(isinstance(v, str) for v in holes.values()):
            raise BadInputError("boards: holes must map hole names to engine hole ids")
        out.append({"board": board, "as": engine_board, "holes": dict(holes)})
    names = [b["board"] for b in out]
    if len(set(names)) != len(names):
        raise BadInputError("boards: a board is bound twice", "duplicate_board")
    return out


def parse_referee(referee: Any) -> float | None:
    """The referee settings: ``{"settle_s": 0 to 30}``; returns settle_s (None: default)."""
    if referee is None:
        return None
    if not isinstance(referee, Mapping):
        raise BadInputError("referee: expected an object")
    for key in referee:
        if key not in REFEREE_FIELDS:
            raise BadInputError(f"referee: unknown field {key!r}")
    settle = referee.get("settle_s")
    if settle is None:
        return None
    if isinstance(settle, bool) or not isinstance(settle, (int, float)) or not 0 <= settle <= MAX_SETTLE_S:
        raise BadInputError("referee: settle_s must be 0 to 30 seconds")
    return float(settle)


def parse_landing(referee: Any) -> float | None:
    """``referee["landing_s"]`` (0.5 to 30 s: how long a throw seen at the throw line
    waits for a drop or a weight change before it is on the floor), None: the default.

    >>> parse_landing({"landing_s": 2}), parse_landing(None)
    (2.0, None)
    """
    landing = referee.get("landing_s") if isinstance(referee, Mapping) else None
    if landing is None:
        return None
    if isinstance(landing, bool) or not isinstance(landing, (int, float)) or not 0.5 <= landing <= MAX_SETTLE_S:
        raise BadInputError("referee: landing_s must be 0.5 to 30 seconds")
    return float(landing)
