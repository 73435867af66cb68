"""Value objects of a tournament: its spec, players, stations and matches.

A tournament is configured once (:class:`Spec`, the body of its ``create`` entry) and
then only changed by log entries (:mod:`hub.tournament.state`). Everything here is plain
data with a JSON form; bad input raises :class:`hub.errors.BadInputError` (a
``ValueError``) and builds nothing.

>>> spec = Spec.parse({"name": "Club night", "game": "trike", "format": "swiss", "rounds": 3})
>>> spec.seats, spec.points, spec.rounds
(2, (1.0, 0.0), 3)
>>> Spec.parse({"name": "x", "game": "trike", "format": "ladder"})
Traceback (most recent call last):
...
hub.errors.BadInputError: format: expected one of elimination, double, pools, swiss, abc
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engines import GAMES
from hub.errors import BadInputError, HubError

JSONDict = dict[str, Any]

FORMATS = ("elimination", "double", "pools", "swiss", "abc")
"""``abc``: the palet and pétanque organizers' AB/ABC (pools of 4 playing two games —
winners against winners, losers against losers — then a third for the two at one win
each; then knock-out tournaments A, B (and C) by pool record)."""
SPLITS = ("AB", "ABC")
TIEBREAKS = ("wins", "score", "diff", "buchholz", "median_buchholz", "head_to_head", "lot")
DEFAULT_TIEBREAKS = ("wins", "buchholz", "score", "head_to_head", "lot")
POOL_TIEBREAKS = ("wins", "head_to_head", "diff", "score", "lot")
"""In a pool everyone meets everyone: opponents' points (Buchholz) tell nothing apart."""
SEEDINGS = ("rating", "registration", "random")
RANKINGS = ("engine", "trigono_detailed")
MAX_SEATS = 8
MAX_STATION_SEATS = 16
"""The most a station seats (a hexagon's six boards and more)."""
BRACKETS = ("main", "consolation", "c", "third", "losers", "grand")
"""The elimination stages: players filled from seeds and results (``third``: 3rd place;
``losers`` and ``grand``: a double elimination's losers bracket and grand final; in an
AB/ABC event ``main``, ``consolation`` and ``c`` are tournaments A, B and C)."""
POOL_TIERS = ("qualifier", "consolation", "c")
POOL_STAGES = ("pools", "playoff")  # the matches the pools' outcome is computed from
POOLED = ("pools", "abc")  # the formats that draw pools at the start and brackets from them
"""Where a pool place leads (the sources of the brackets' first slots): the main bracket
(A), the consolation (B), tournament C (ABC only)."""
SPEC_FIELDS = ("name", "game", "format", "seats", "pool_size", "advance", "consolation",
               "bracket_seats", "rounds", "points", "tiebreaks", "check_in", "seeding", "seed",
               "options", "ranking", "third_place", "grand_final_reset", "split", "playoff")


class TournamentError(HubError):
    """Base of the errors about a tournament request (a ``ValueError``)."""


class UnknownTournamentError(TournamentError):
    """No tournament has this id."""


class UnknownMatchError(TournamentError):
    """The tournament has no such match (or player, or station)."""


def _int(obj: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadInputError(f"{key}: expected an integer from {low} to {high}", "tour_bad_int",
                            field=key, low=low, high=high)
    return value


def _bool(obj: Mapping[str, Any], key: str, default: bool) -> bool:
    value = obj.get(key, default)
    if not isinstance(value, bool):
        raise BadInputError(f"{key}: expected true or false", "tour_bad_bool", field=key)
    return value


def text(value: Any, what: str, *, max_len: int = 80, optional: bool = False) -> str:
    """A trimmed non-empty string (or "" when ``optional``); BadInputError otherwise.

    >>> text("  Ana ", "name")
    'Ana'
    """
    if value is None and optional:
        return ""
    if not isinstance(value, str) or (not value.strip() and not optional) or len(value) > max_len:
        raise BadInputError(f"{what}: expected a non-empty text of at most {max_len} characters", "tour_bad_text",
                            field=what.replace(" ", "_"), max_len=max_len)
    return value.strip()


@dataclass(frozen=True, slots=True)
class Spec:
    """How a tournament is played.

    ``seats``: players per match (k); ``pool_size``/``advance``/``consolation``: pools
    of that many players, the best ``advance`` of each into the main bracket, the others
    into a consolation bracket; ``bracket_seats``: players per elimination match (the
    winner goes on); ``rounds``: Swiss rounds; ``points``: points for the 1st, 2nd, …
    placing of a match (a shared placing shares the points of the places it spans);
    ``tiebreaks``: after points, in this order (``lot`` is always last: a seeded draw;
    pools default to :data:`POOL_TIEBREAKS`, no Buchholz).
    """

    name: str
    game: str
    format: str
    seats: int = 2
    pool_size: int = 4
    advance: int = 2
    consolation: bool = True
    bracket_seats: int = 2
    rounds: int = 5
    points: tuple[float, ...] = (1.0, 0.0)
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    check_in: bool = True
    seeding: str = "rating"
    seed: int = 0
    options: tuple[tuple[str, Any], ...] = ()
    """The game's options for every match table (e.g. Trike's board size)."""
    ranking: str = "engine"
    """How a finished table ranks its players: ``engine`` (``State.ranking()``: Trigono
    by rounds won, ties sharing a place) or ``trigono_detailed`` (a reading of ours, not
    the rules': rounds won, then who went out later in the last round, then palets held;
    see the game's ``detailed_ranking``, engines/trigono/scoreboard.py)."""
    third_place: bool = False
    """A match for 3rd place between the losing semi-finalists of the main bracket
    (duels; otherwise they share 3rd)."""
    grand_final_reset: bool = True
    """Double elimination: when the losers bracket's winner wins the grand final, the
    two (each with one loss now) play it again."""
    split: str = "ABC"
    """AB/ABC: ``AB`` — the pools' two-win players into A, the others into B; ``ABC`` —
    A, then the 3rd of each pool into B and the 4th into C."""
    playoff: bool = False
    """Pools: when the tie-breaks (all but ``lot``) cannot separate the players on either
    side of a qualifying place, they play a play-off match for it (stage ``playoff``)
    instead of a draw by lot (:func:`hub.tournament.placings.playoffs_needed`)."""

    @classmethod
    def parse(cls, obj: Any) -> Spec:
        """A spec from its JSON form, every field checked."""
        if not isinstance(obj, Mapping):
            raise BadInputError("spec: expected an object", "tour_bad_spec")
        for key in obj:
            if key not in SPEC_FIELDS:
                raise BadInputError(f"spec: unknown field {key!r}", "tour_unknown_field", field=str(key))
        name = text(obj.get("name"), "name")
        game = obj.get("game")
        if game not in GAMES:
            raise BadInputError(f"game: expected one of {', '.join(sorted(GAMES))}", "tour_bad_choice", field="game",
                                choices=sorted(GAMES))
        fmt = obj.get("format")
        if fmt not in FORMATS:
            raise BadInputError(f"format: expected one of {', '.join(FORMATS)}", "tour_bad_choice", field="format",
                                choices=list(FORMATS))
        seats = _int(obj, "seats", 2, 2, MAX_SEATS)
        pool_size = _int(obj, "pool_size", max(4, seats), 2, 12)
        advance = _int(obj, "advance", 2, 1, 12)
        if fmt == "pools" and advance > pool_size:
            raise BadInputError("advance: at most pool_size", "tour_advance_over_pool")
        bracket_seats = _int(obj, "bracket_seats", 2, 2, MAX_SEATS)
        if fmt in ("double", "abc") and bracket_seats != 2:
            raise BadInputError("bracket_seats: a double elimination or AB/ABC is played in duels (2)", "tour_duels_only")
        if fmt == "abc" and seats != 2:
            raise BadInputError("seats: AB/ABC pools are played in duels (2)", "tour_duels_only")
        split = obj.get("split", "ABC")
        if split not in SPLITS:
            raise BadInputError(f"split: expected one of {', '.join(SPLITS)}", "tour_bad_choice", field="split",
                                choices=list(SPLITS))
        rounds = _int(obj, "rounds", 5, 1, 30)
        default_points = [float(seats - 1 - i) for i in range(seats)]
        raw_points = obj.get("points", default_points)
        if (not isinstance(raw_points, list) or not raw_points or len(raw_points) > 2 * MAX_SEATS
                or any(isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1000
                       for p in raw_points)):
            raise BadInputError("points: expected a list of numbers (1st, 2nd, ... placing)", "tour_bad_points")
        raw_tb = obj.get("tiebreaks", list(POOL_TIEBREAKS if fmt in ("pools", "abc") else DEFAULT_TIEBREAKS))
        if (not isinstance(raw_tb, list) or any(t not in TIEBREAKS for t in raw_tb)
                or len(set(raw_tb)) != len(raw_tb)):
            raise BadInputError(f"tiebreaks: expected distinct names among {', '.join(TIEBREAKS)}", "tour_bad_tiebreaks",
                                choices=list(TIEBREAKS))
        tiebreaks = tuple(t for t in raw_tb if t != "lot") + ("lot",)
        seeding = obj.get("seeding", "rating")
        if seeding not in SEEDINGS:
            raise BadInputError(f"seeding: expected one of {', '.join(SEEDINGS)}", "tour_bad_choice", field="seeding",
                                choices=list(SEEDINGS))
        options = obj.get("options", {})
        if not isinstance(options, Mapping) or "players" in options:
            raise BadInputError("options: expected an object of game options (players come from the draw)",
                                "tour_bad_options")
        ranking = obj.get("ranking", "engine")
        if ranking not in RANKINGS or (ranking == "trigono_detailed" and GAMES[game].detailed_ranking is None):
            raise BadInputError(f"ranking: expected one of {', '.join(RANKINGS)} (trigono_detailed: Trigono only)",
                                "tour_bad_ranking_rule", choices=list(RANKINGS))
        return cls(name, game, fmt, seats, pool_size, advance, _bool(obj, "consolation", True),
                   bracket_seats, rounds, tuple(float(p) for p in raw_points), tiebreaks,
                   _bool(obj, "check_in", True), seeding, _int(obj, "seed", 0, 0, 2**53),
                   tuple(sorted(options.items())), ranking, _bool(obj, "third_place", False),
                   _bool(obj, "grand_final_reset", True), split, _bool(obj, "playoff", False))

    def to_json(self) -> JSONDict:
        return {"name": self.name, "game": self.game, "format": self.format,
                "seats": self.seats, "pool_size": self.pool_size, "advance": self.advance,
                "consolation": self.consolation, "bracket_seats": self.bracket_seats,
                "rounds": self.rounds, "points": list(self.points),
                "tiebreaks": list(self.tiebreaks), "check_in": self.check_in,
                "seeding": self.seeding, "seed": self.seed, "options": dict(self.options),
                "ranking": self.ranking, "third_place": self.third_place,
                "grand_final_reset": self.grand_final_reset, "split": self.split,
                "playoff": self.playoff}

    def placing_points(self, place: int, shared: int = 1) -> float:
        """Points for ``shared`` players tied from 1-based ``place`` on (the mean of the
        points of the places they span; places past the list give 0).

        >>> Spec.parse({"name": "x", "game": "trike", "format": "swiss",
        ...             "points": [3, 0]}).placing_points(1, shared=2)
        1.5
        """
        spanned = [self.points[i] if i < len(self.points) else 0.0
                   for i in range(place - 1, place - 1 + shared)]
        return sum(spanned) / shared


@dataclass(slots=True)
class Player:
    """A registered player. ``key`` identifies them across events (ratings): their
    licence number when given, else their name in lower case."""

    id: str
    name: str
    club: str = ""
    key: str = ""
    status: str = "registered"  # registered | present | withdrawn
    late: bool = False
    rating: float | None = None  # ordinal given at registration or start, for seeding

    def __deepcopy__(self, memo: dict[int, Any]) -> Player:
        return replace(self)  # every field is immutable (Tournament.trial copies many)

    def to_json(self) -> JSONDict:
        return {"id": self.id, "name": self.name, "club": self.club, "key": self.key,
                "status": self.status, "late": self.late, "rating": self.rating}


@dataclass(slots=True)
class Station:
    """Where a match is played, seating ``seats``: for Trigono a set of sensor boards,
    ``boards`` in a row (physical ids, bound as B1, B2, …) or a ``hexagon`` of six around
    a jackpot (devices ``<station id>B1`` … ``B6``, :func:`hub.tables.layout.hexagon`)."""

    id: str
    seats: int
    boards: tuple[str, ...] = ()
    active: bool = True
    layout: str = "row"

    def __deepcopy__(self, memo: dict[int, Any]) -> Station:
        return replace(self)  # every field is immutable (Tournament.trial)

    def to_json(self) -> JSONDict:
        return {"id": self.id, "seats": self.seats, "boards": list(self.boards),
                "active": self.active, "layout": self.layout}


Ranking = tuple[tuple[str, ...], ...]
"""A match result: placings in order, each the players sharing it (usually one)."""

Source = tuple[str, Any]
"""Where an elimination slot's player comes from: ("seed", n), ("winner", match id),
("loser", match id) (the 3rd-place match, a losers bracket), ("qualifier", n),
("consolation", n), ("rematch", grand final id) (its two players again, only when the
losers bracket's winner won it)."""


@dataclass(slots=True)
class Match:
    """One table of the tournament.

    ``status``: ``waiting`` (players not known yet), ``ready`` (in the queue),
    ``called`` (sent to a station: started), ``done``, ``cancelled`` (redrawn).
    ``stage``: ``pools``, ``swiss``, ``main``, ``consolation`` or ``third`` (brackets;
    ``third``: the match for 3rd place).
    """

    id: str
    number: int
    stage: str
    round: int
    players: tuple[str, ...] = ()
    pool: str | None = None
    sources: tuple[Source, ...] = ()
    status: str = "waiting"
    station: str | None = None
    table: str | None = None
    ranking: Ranking = ()
    scores: dict[str, float] = field(default_factory=dict)
    forfeits: tuple[str, ...] = ()
    bye: bool = False
    corrected: int = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        # Every field but ``scores`` holds immutable values (str, int, tuples): a trial
        # copy of a tournament (Tournament.trial, before each entry is stored) copies
        # thousands of matches, and the generic deepcopy took 3/4 of its time.
        return replace(self, scores=dict(self.scores))

    @property
    def started(self) -> bool:
        return self.status in ("called", "done")

    def placing(self, player: str) -> int:
        """1-based placing of a player in a done match (players ahead + 1)."""
        ahead = 0
        for group in self.ranking:
            if player in group:
                return ahead + 1
            ahead += len(group)
        raise UnknownMatchError(f"{player} did not play match {self.number}")

    def winner(self) -> str | None:
        """The sole first of a done match, else None."""
        if self.status == "done" and self.ranking and len(self.ranking[0]) == 1:
            return self.ranking[0][0]
        return None

    def to_json(self) -> JSONDict:
        return {"id": self.id, "number": self.number, "stage": self.stage,
                "round": self.round, "pool": self.pool, "players": list(self.players),
                "status": self.status, "station": self.station, "table": self.table,
                "ranking": [list(g) for g in self.ranking], "scores": dict(self.scores),
                "forfeits": list(self.forfeits), "bye": self.bye, "corrected": self.corrected,
                "sources": [list(s) for s in self.sources]}


def parse_ranking(obj: Any, players: Sequence[str]) -> Ranking:
    """A ranking from JSON: ``["p1", "p2"]`` or ``[["p1"], ["p2", "p3"]]`` (ties share
    a placing). It must name each of ``players`` exactly once.

    >>> parse_ranking(["b", ["a", "c"]], ["a", "b", "c"])
    (('b',), ('a', 'c'))
    >>> parse_ranking(["a"], ["a", "b"])
    Traceback (most recent call last):
    ...
    hub.errors.BadInputError: ranking: expected each of a, b exactly once
    """
    if not isinstance(obj, list) or not obj:
        raise BadInputError("ranking: expected a list of placings", "tour_bad_result")
    groups: list[tuple[str, ...]] = []
    for item in obj:
        group = [item] if isinstance(item, str) else item
        if not isinstance(group, list) or not group or not all(isinstance(p, str) for p in group):
            raise BadInputError("ranking: each placing is a player id or a list of them", "tour_bad_result")
        groups.append(tuple(group))
    named = [p for g in groups for p in g]
    if sorted(named) != sorted(players):
        raise BadInputError(f"ranking: expected each of {', '.join(players)} exactly once", "tour_bad_result")
    return tuple(groups)


def parse_scores(obj: Any, players: Sequence[str]) -> dict[str, float]:
    """Optional scores (points, palets) per player of a match."""
    if obj is None:
        return {}
    if not isinstance(obj, Mapping) or any(p not in players for p in obj):
        raise BadInputError("scores: expected an object player id -> number, for this match's players",
                            "tour_bad_scores")
    for value in obj.values():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or abs(value) > 1e6:
            raise BadInputError("scores: expected numbers", "tour_bad_scores")
    return {p: float(v) for p, v in obj.items()}
