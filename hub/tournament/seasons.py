"""Seasons and leagues: tournaments grouped, points by placing, best N, divisions (issue 34).

A season (:class:`SeasonSpec`) names its tournaments (any format, any game, loaded from
another hub's export or not), a points table by final placing, how many results count
(``best``), the organizer's tie-breaks, and optional divisions (lists of persons) with
how many go up and down at the season's end. Its standings are computed, never stored:
:func:`standings` folds the finished tournaments' final rankings, by person, so a
correction, a merge or a late result re-ranks the whole season.

The default table has a palet circuit's shape (our choice, editable per season: the
winner 100, then one step per round reached in the brackets, a few points for taking
part): 1st 100, 2nd 80, 3rd 65, 4th 55, 5th–8th 40, 9th–16th 25, 17th–32nd 15, every
other 5.

>>> spec = SeasonSpec.parse({"id": "S1", "name": "Circuit", "best": 2})
>>> spec.points_for(1), spec.points_for(6), spec.points_for(100)
(100.0, 40.0, 5.0)
>>> rows = standings(spec, [("T1", [(1, "a"), (2, "b")]), ("T2", [(1, "b"), (2, "a")]),
...                         ("T3", [(1, "b"), (2, "a")])])
>>> [(r.identity, r.points, r.counted) for r in rows]
[('b', 200.0, 2), ('a', 180.0, 2)]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hub.errors import BadInputError
from hub.tournament.model import JSONDict, UnknownMatchError, text

DEFAULT_POINTS: tuple[tuple[int, float], ...] = (
    (1, 100.0), (2, 80.0), (3, 65.0), (4, 55.0), (8, 40.0), (16, 25.0), (32, 15.0), (0, 5.0))
"""(up to this place, points); place 0: every place after the others."""
TIEBREAKS = ("best", "wins", "events", "last", "rating")
"""``best``: the better best placing; ``wins``: more tournaments won; ``events``: more
tournaments played; ``last``: the better placing in the latest tournament both played;
``rating``: the higher rating (ordinal) in the season's game, else over all its games."""
DEFAULT_TIEBREAKS = ("best", "wins", "events")
ID = re.compile(r"^[A-Za-z0-9_-]{1,30}$")


class UnknownSeasonError(UnknownMatchError):
    """No season has this id (a 404)."""


@dataclass(frozen=True, slots=True)
class SeasonSpec:
    id: str
    name: str
    points: tuple[tuple[int, float], ...] = DEFAULT_POINTS
    best: int = 0  # 0: every result counts
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    divisions: tuple[tuple[str, ...], ...] = ()
    division_names: tuple[str, ...] = ()
    promote: int = 0
    relegate: int = 0
    previous: str = ""
    """A season whose end (promotions, relegations) gives this one its divisions."""
    tournaments: tuple[str, ...] = ()
    closed: bool = False

    @classmethod
    def parse(cls, obj: Any) -> SeasonSpec:
        if not isinstance(obj, Mapping):
            raise BadInputError("season: expected an object", "season_bad")
        known = ("id", "name", "points", "best", "tiebreaks", "divisions", "division_names", "promote",
                 "relegate", "previous")
        for key in obj:
            if key not in known:
                raise BadInputError(f"season: unknown field {key!r}", "season_unknown_field", field=str(key))
        sid = obj.get("id")
        if not isinstance(sid, str) or not ID.match(sid):
            raise BadInputError("season id: 1 to 30 letters, digits, - or _", "season_bad_id")
        raw = obj.get("points", [list(p) for p in DEFAULT_POINTS])
        if (not isinstance(raw, list) or not raw or len(raw) > 64
                or any(not isinstance(r, list) or len(r) != 2 or any(isinstance(v, bool) for v in r)
                       or not isinstance(r[0], int) or not isinstance(r[1], (int, float))
                       or r[0] < 0 or not 0 <= r[1] <= 10_000 for r in raw)):
            raise BadInputError("points: expected [[up to place, points], ...] (place 0: all the others)",
                                "season_bad_points")
        points = tuple(sorted(((int(p), float(v)) for p, v in raw), key=lambda r: (r[0] == 0, r[0])))
        best = obj.get("best", 0)
        if isinstance(best, bool) or not isinstance(best, int) or not 0 <= best <= 1000:
            raise BadInputError("best: expected how many results count (0: all)", "season_bad_best")
        tb = obj.get("tiebreaks", list(DEFAULT_TIEBREAKS))
        if not isinstance(tb, list) or any(t not in TIEBREAKS for t in tb) or len(set(tb)) != len(tb):
            raise BadInputError(f"tiebreaks: distinct names among {', '.join(TIEBREAKS)}", "season_bad_tiebreaks",
                                choices=list(TIEBREAKS))
        divisions = obj.get("divisions", [])
        if (not isinstance(divisions, list) or len(divisions) > 20
                or any(not isinstance(d, list) or any(not isinstance(p, str) for p in d) for d in divisions)):
            raise BadInputError("divisions: expected lists of person ids, the first the highest",
                                "season_bad_divisions")
        flat = [p for d in divisions for p in d]
        if len(set(flat)) != len(flat):
            raise BadInputError("divisions: a person is in one division", "season_bad_divisions")
        names = obj.get("division_names", [])
        if not isinstance(names, list) or any(not isinstance(n, str) or len(n) > 40 for n in names):
            raise BadInputError("division_names: expected texts", "season_bad_divisions")
        moves = []
        for key in ("promote", "relegate"):
            value = obj.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
                raise BadInputError(f"{key}: expected 0 to 100", "season_bad_moves", field=key)
            moves.append(value)
        previous = obj.get("previous", "")
        if not isinstance(previous, str) or (previous and not ID.match(previous)):
            raise BadInputError("previous: a season id", "season_bad_id")
        return cls(sid, text(obj.get("name"), "name"), points, best, tuple(tb),
                   tuple(tuple(d) for d in divisions), tuple(names), moves[0], moves[1], previous)

    def to_json(self) -> JSONDict:
        return {"id": self.id, "name": self.name, "points": [[p, v] for p, v in self.points],
                "best": self.best, "tiebreaks": list(self.tiebreaks),
                "divisions": [list(d) for d in self.divisions], "division_names": list(self.division_names),
                "promote": self.promote, "relegate": self.relegate, "previous": self.previous,
                "tournaments": list(self.tournaments), "closed": self.closed}

    def points_for(self, place: int) -> float:
        for upto, value in self.points:
            if upto == 0 or place <= upto:
                return value
        return 0.0


@dataclass(slots=True)
class Line:
    """One identity's season: its results (tournament, place, points), those counted."""

    identity: str
    results: list[tuple[str, int, float]] = field(default_factory=list)
    points: float = 0.0
    counted: int = 0
    rank: int = 0
    counted_ids: tuple[str, ...] = ()

    def to_json(self) -> JSONDict:
        return {"identity": self.identity, "points": self.points, "counted": self.counted,
                "events": len(self.results), "rank": self.rank,
                "results": [{"tournament": t, "place": p, "points": v, "counted": t in self.counted_ids}
                            for t, p, v in self.results]}


Placings = Sequence[tuple[str, Sequence[tuple[int, str]]]]
"""Each finished tournament of the season, in order: (id, [(final place, identity)])."""


def standings(spec: SeasonSpec, placings: Placings, ratings: Mapping[str, float] | None = None,
              members: Sequence[str] | None = None) -> list[Line]:
    """The season's lines, best first (equal lines share a rank). ``members``: keep only
    these identities (a division)."""
    lines: dict[str, Line] = {}
    for tid, ranked in placings:
        seen: set[str] = set()
        for place, who in ranked:
            if who in seen:  # one person twice in one event (an old log): their best place counts
                continue
            seen.add(who)
            lines.setdefault(who, Line(who)).results.append((tid, place, spec.points_for(place)))
    if members is not None:
        keep = set(members)
        lines = {k: v for k, v in lines.items() if k in keep}
        for m in members:
            lines.setdefault(m, Line(m))
    order = {tid: i for i, (tid, _) in enumerate(placings)}
    for line in lines.values():
        best_first = sorted(line.results, key=lambda r: (-r[2], order[r[0]]))
        chosen = best_first[:spec.best] if spec.best else best_first
        line.points = sum(r[2] for r in chosen)
        line.counted = len(chosen)
        line.counted_ids = tuple(r[0] for r in chosen)
    keyed = sorted(lines.values(), key=lambda ln: (_key(spec, ln, ratings or {}), ln.identity))
    rank = 0
    previous: tuple[Any, ...] | None = None
    for i, line in enumerate(keyed):
        k = _key(spec, line, ratings or {})
        if k != previous:
            rank, previous = i + 1, k
        line.rank = rank
    return keyed


def _key(spec: SeasonSpec, line: Line, ratings: Mapping[str, float]) -> tuple[Any, ...]:
    """The sort key: points, then the organizer's tie-breaks (smaller sorts first)."""
    out: list[Any] = [-line.points]
    for tb in spec.tiebreaks:
        places = [p for _, p, _ in line.results]
        if tb == "best":
            out.append(min(places, default=10**9))
        elif tb == "wins":
            out.append(-places.count(1))
        elif tb == "events":
            out.append(-len(places))
        elif tb == "last":
            out.append(line.results[-1][1] if line.results else 10**9)
        elif tb == "rating":
            out.append(-ratings.get(line.identity, float("-inf")))
    return tuple(out)


def division_of(spec: SeasonSpec, identity: str, given: Sequence[Sequence[str]]) -> int:
    """The division index of an identity (``given``: the season's divisions, its own or
    from the previous season's end); a newcomer joins the lowest."""
    for i, members in enumerate(given):
        if identity in members:
            return i
    return max(len(given) - 1, 0)


def next_divisions(spec: SeasonSpec, tables: Sequence[Sequence[str]]) -> list[list[str]]:
    """The divisions after the season: in each division's final order (``tables``, best
    first), the best ``promote`` go up one, the last ``relegate`` down one.

    >>> s = SeasonSpec.parse({"id": "L", "name": "League", "promote": 1, "relegate": 1})
    >>> next_divisions(s, [["a", "b", "c"], ["d", "e", "f"]])
    [['a', 'b', 'd'], ['c', 'e', 'f']]
    """
    out: list[list[str]] = [[] for _ in tables]
    for i, table in enumerate(tables):
        ups = list(table[:spec.promote]) if i > 0 else []
        downs = list(table[len(table) - spec.relegate:]) if i < len(tables) - 1 and spec.relegate else []
        for who in table:
            if who in ups:
                out[i - 1].append(who)
            elif who in downs:
                out[i + 1].append(who)
            else:
                out[i].append(who)
    return out


def moves(before: Sequence[tuple[str, int]], after: Sequence[tuple[str, int]]) -> dict[str, int]:
    """Rank changes (positive: up) of the identities ranked both times.

    >>> moves([("ines", 3), ("hugo", 1)], [("ines", 1), ("hugo", 2)])
    {'ines': 2, 'hugo': -1}
    """
    old = dict(before)
    return {who: old[who] - rank for who, rank in after if who in old and old[who] != rank}
