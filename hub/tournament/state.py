"""A tournament is the fold of its log: ``Tournament.replay(entries)`` (boardgame.io style).

Each entry body has a ``type``:

- ``create`` ``{"spec": {...}}`` — the first entry (:class:`hub.tournament.model.Spec`);
- ``register`` ``{"player": {"name", "club"?, "key"?, "rating"?}}`` — before the start,
  or after it for a Swiss tournament (a late entry, drawn from the next round on);
- ``check_in`` / ``withdraw`` ``{"player": id}`` — a withdrawn player forfeits every
  match of theirs not yet done;
- ``station`` ``{"station": {"id", "seats", "boards"?, "active"?, "layout"?}}`` — add or change one
  (``active: false``: out of order, its match in play goes back to the queue);
- ``start`` ``{"order": [ids]}`` — the seeding of the present players; builds the pools,
  brackets (whose later slots fill themselves from results) or nothing yet (Swiss);
- ``round`` ``{"round": r, "groups": [[ids]], "bye": id | None}`` — a Swiss round drawn
  (the draw is computed by :meth:`Tournament.draw_round` and stored, so a replay never
  depends on the pairing code);
- ``redraw`` ``{"round": r, "groups": [[ids]]}`` — the not-yet-started matches of round
  ``r`` drawn again after a correction (started matches stay);
- ``call`` ``{"match", "station", "table"?}`` — a match is sent to a free station;
  ``uncall`` ``{"match"}`` — back to the queue (a station failed);
- ``result`` / ``correct`` ``{"match", "ranking", "scores"?}`` — a match's ranking
  (:func:`hub.tournament.model.parse_ranking`), entered by hand or reported by its table;
- ``forfeit`` ``{"match", "player"}`` — a no-show, ranked last of that match.

Everything else — who plays the next bracket match, byes, standings, the podium — is
derived, so it always equals a recomputation from the log. :meth:`Tournament.apply`
checks an entry completely before changing anything; a refused entry raises a
:class:`hub.errors.HubError` and changes nothing.

>>> t = Tournament.replay("t16", [
...     {"type": "create", "spec": {"name": "Demo", "game": "trike", "format": "elimination",
...                                 "check_in": False}},
...     {"type": "register", "player": {"name": "Ana"}},
...     {"type": "register", "player": {"name": "Ben"}},
...     {"type": "register", "player": {"name": "Chloé"}},
...     {"type": "start", "order": ["p1", "p2", "p3"]}])
>>> [(m.number, m.players, m.status) for m in t.matches.values()]
[(1, ('p1',), 'done'), (2, ('p2', 'p3'), 'ready'), (3, (), 'waiting')]
>>> t.apply({"type": "result", "match": "m2", "ranking": ["p3", "p2"]})
>>> t.matches["m3"].players, t.matches["m3"].status
(('p1', 'p3'), 'ready')
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterable, Mapping
from typing import Any

from hub.errors import BadInputError, RefusedError
from hub.tournament import formats, placings, scheduling, swiss
from hub.tournament.model import (
    JSONDict,
    Match,
    Player,
    Ranking,
    Source,
    Spec,
    Station,
    UnknownMatchError,
    parse_ranking,
    parse_scores,
    text,
)

BRACKETS = ("main", "consolation")
ENTRY_TYPES = ("create", "register", "check_in", "withdraw", "station", "start", "round",
               "redraw", "call", "uncall", "result", "correct", "forfeit")
EMPTY = ""  # a bracket slot nobody fills (a bye)


class Tournament:
    """The state of one tournament (see the module doc)."""

    def __init__(self, tournament_id: str, spec: Spec, created_at: float = 0.0) -> None:
        self.id = tournament_id
        self.spec = spec
        self.created_at = created_at
        self.status = "registration"  # registration | running | finished
        self.players: dict[str, Player] = {}
        self.stations: dict[str, Station] = {}
        self.matches: dict[str, Match] = {}
        self.order: list[str] = []
        self.pools: list[list[str]] = []
        self.round = 0
        self.calls: list[JSONDict] = []
        self.log: list[JSONDict] = []
        self.applied = 0

    # Whole ideas of their own modules, as methods (each module's doc says what it does):
    _on_station, _on_call, _on_uncall = scheduling.on_station, scheduling.on_call, scheduling.on_uncall
    busy_players, queue = scheduling.busy_players, scheduling.queue
    next_calls, follow_up = scheduling.next_calls, scheduling.follow_up
    _on_round, _on_redraw = swiss.on_round, swiss.on_redraw
    draw_round, redraw_entry, met, byes = swiss.draw_round, swiss.redraw_entry, swiss.met, swiss.byes
    standings, pool_standings = placings.standings, placings.pool_standings
    bracket_ranking, final_ranking, podium = placings.bracket_ranking, placings.final_ranking, placings.podium

    # -- building from the log --------------------------------------------------------
    @classmethod
    def create(cls, tournament_id: str, body: Mapping[str, Any], at: float = 0.0) -> Tournament:
        """A new tournament from its ``create`` entry."""
        if not isinstance(body, Mapping) or body.get("type") != "create":
            raise BadInputError("the first entry of a tournament is its create entry")
        t = cls(tournament_id, Spec.parse(body.get("spec")), at)
        t.log.append({"type": "create", "spec": t.spec.to_json()})
        t.applied = 1
        return t

    @classmethod
    def replay(cls, tournament_id: str, bodies: Iterable[Mapping[str, Any]]) -> Tournament:
        """Fold a whole log (entry bodies, oldest first)."""
        it = iter(bodies)
        t = cls.create(tournament_id, next(it))
        for body in it:
            t.apply(body)
        return t

    def apply(self, body: Mapping[str, Any], at: float = 0.0) -> None:
        """Apply one entry; raise (changing nothing) when it is malformed or not allowed now."""
        if not isinstance(body, Mapping):
            raise BadInputError("an entry is an object")
        kind = body.get("type")
        if kind not in ENTRY_TYPES or kind == "create":
            raise BadInputError(f"type: expected one of {', '.join(ENTRY_TYPES[1:])}")
        handler = getattr(self, f"_on_{kind}")
        handler(body, at)
        self._resolve()
        self.log.append(copy.deepcopy(dict(body)))  # the caller's object may change later
        self.applied += 1

    # -- lookups ----------------------------------------------------------------------
    def player(self, player_id: Any) -> Player:
        if not isinstance(player_id, str) or player_id not in self.players:
            raise UnknownMatchError(f"no player {player_id!r}")
        return self.players[player_id]

    def match(self, match_id: Any) -> Match:
        if not isinstance(match_id, str) or match_id not in self.matches:
            raise UnknownMatchError(f"no match {match_id!r}")
        return self.matches[match_id]

    def name(self, player_id: str) -> str:
        p = self.players.get(player_id)
        return p.name if p is not None else player_id

    def eligible(self) -> list[str]:
        """Players who may be drawn now (present, not withdrawn), in registration order."""
        return [p.id for p in self.players.values() if p.status == "present"]

    # -- registration -------------------------------------------------------------------
    def _on_register(self, body: Mapping[str, Any], at: float) -> None:
        if self.status == "finished":
            raise RefusedError("the tournament is over")
        if self.status == "running" and self.spec.format != "swiss":
            raise RefusedError("late entries join Swiss tournaments only (pools and brackets are drawn at the start)")
        raw = body.get("player")
        if not isinstance(raw, Mapping) or any(k not in ("name", "club", "key", "rating") for k in raw):
            raise BadInputError("player: expected {name, club?, key?, rating?}")
        name = text(raw.get("name"), "name", max_len=40)
        if any(p.name.casefold() == name.casefold() for p in self.players.values()):
            raise RefusedError(f"a player named {name!r} is already registered")
        club = text(raw.get("club"), "club", optional=True)
        key = text(raw.get("key"), "key", optional=True) or name.casefold()
        if any(p.key == key for p in self.players.values()):
            raise RefusedError(f"licence {key!r} is already registered (ratings follow it)")
        rating = raw.get("rating")
        if rating is not None and (isinstance(rating, bool) or not isinstance(rating, (int, float))
                                   or not math.isfinite(rating)):
            raise BadInputError("rating: expected a number")
        pid = f"p{len(self.players) + 1}"
        late = self.status == "running"
        status = "present" if late or not self.spec.check_in else "registered"
        self.players[pid] = Player(pid, name, club, key, status, late,
                                   None if rating is None else float(rating))

    def _on_check_in(self, body: Mapping[str, Any], at: float) -> None:
        p = self.player(body.get("player"))
        if p.status == "withdrawn":
            raise RefusedError(f"{p.name} has withdrawn")
        p.status = "present"

    def _on_withdraw(self, body: Mapping[str, Any], at: float) -> None:
        p = self.player(body.get("player"))
        if p.status == "withdrawn":
            raise RefusedError(f"{p.name} has already withdrawn")
        p.status = "withdrawn"
        for m in self.matches.values():
            if p.id not in m.players or p.id in m.forfeits:
                continue
            # A bracket match not started is simply filled again without them (_resolve).
            if m.status == "called" or (m.status == "ready" and m.stage not in BRACKETS):
                self._forfeit(m, p.id)

    # -- start and draws ------------------------------------------------------------------
    def seeding(self, ratings: Mapping[str, float] | None = None) -> list[str]:
        """The eligible players in seeding order: by rating (``ratings`` by player key,
        else the rating given at registration; unrated last), by registration, or
        shuffled with the tournament seed."""
        ids = self.eligible()
        if self.spec.seeding == "random":
            random.Random(self.spec.seed).shuffle(ids)
        elif self.spec.seeding == "rating":
            def rating(pid: str) -> float:
                p = self.players[pid]
                value = (ratings or {}).get(p.key, p.rating)
                return float("-inf") if value is None else value
            ids.sort(key=lambda pid: -rating(pid))
        return ids

    def start_entry(self, ratings: Mapping[str, float] | None = None) -> JSONDict:
        """The ``start`` entry for now (seeding computed once, then stored)."""
        return {"type": "start", "order": self.seeding(ratings)}

    def _on_start(self, body: Mapping[str, Any], at: float) -> None:
        if self.status != "registration":
            raise RefusedError("the tournament has already started")
        order = body.get("order")
        eligible = self.eligible()
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(eligible) or len(set(order)) != len(order):
            raise BadInputError("start: order must list every present player once")
        if len(order) < 2:
            raise RefusedError("start: at least two present players are needed")
        self.order = list(order)
        self.status = "running"
        if self.spec.format == "elimination":
            self._bracket("main", [("seed", s) for s in range(1, len(order) + 1)])
        elif self.spec.format == "pools":
            self._build_pools()

    def _new_match(self, stage: str, rnd: int, players: tuple[str, ...] = (),
                   pool: str | None = None, sources: tuple[Source, ...] = ()) -> Match:
        number = len(self.matches) + 1
        m = Match(f"m{number}", number, stage, rnd, players, pool, sources,
                  "ready" if players else "waiting")
        self.matches[m.id] = m
        return m

    def _build_pools(self) -> None:
        count = formats.pool_count(len(self.order), self.spec.pool_size)
        self.pools = formats.snake_pools(self.order, count)
        schedules = [formats.pool_rounds(pool, self.spec.seats) for pool in self.pools]
        # Pools play their rounds side by side: round 1 of every pool, then round 2...
        for r in range(max(len(s) for s in schedules)):
            for i, schedule in enumerate(schedules):
                for group in schedule[r] if r < len(schedule) else []:
                    self._new_match("pools", r + 1, group, pool=chr(ord("A") + i))
        qualified = sum(min(self.spec.advance, len(p)) for p in self.pools)
        self._bracket("main", [("qualifier", s) for s in range(1, qualified + 1)])
        if self.spec.consolation and len(self.order) - qualified >= 2:
            self._bracket("consolation", [("consolation", s) for s in range(1, len(self.order) - qualified + 1)])

    def _bracket(self, stage: str, seeds: list[Source]) -> None:
        k = self.spec.bracket_seats
        size = formats.bracket_size(len(seeds), k)
        slots: list[Source] = [seeds[s - 1] if s <= len(seeds) else ("empty", None)
                               for s in formats.bracket_order(size, k)]
        rnd = 1
        while len(slots) > 1:
            feeders = [self._new_match(stage, rnd, sources=tuple(slots[i:i + k])).id
                       for i in range(0, len(slots), k)]
            slots = [("winner", mid) for mid in feeders]
            rnd += 1

    # -- results ---------------------------------------------------------------------------
    def _ranking_for(self, m: Match, body: Mapping[str, Any]) -> tuple[Ranking, dict[str, float]]:
        playing = [p for p in m.players if p not in m.forfeits]
        ranking = parse_ranking(body.get("ranking"), playing)
        if m.forfeits:
            ranking = (*ranking, tuple(m.forfeits))
        if m.stage in BRACKETS and len(ranking[0]) != 1:
            raise BadInputError("ranking: an elimination match needs a single winner")
        return ranking, parse_scores(body.get("scores"), m.players)

    def _on_result(self, body: Mapping[str, Any], at: float) -> None:
        m = self.match(body.get("match"))
        if m.status not in ("ready", "called"):
            raise RefusedError(f"match {m.number} is {m.status}: use a correction")
        m.ranking, m.scores = self._ranking_for(m, body)
        table = body.get("table")
        if isinstance(table, str):
            m.table = table
        m.status = "done"

    def _on_correct(self, body: Mapping[str, Any], at: float) -> None:
        m = self.match(body.get("match"))
        if m.status != "done" or m.bye:
            raise RefusedError(f"match {m.number} has no result to correct")
        ranking, scores = self._ranking_for(m, body)
        if m.stage in BRACKETS and ranking[0] != m.ranking[0]:
            # The winner went on: only while that next match has not started.
            nxt = self._next_in_bracket(m)
            if nxt is not None and nxt.started and not nxt.bye:
                raise RefusedError(f"match {nxt.number}, which the winner went on to, has started")
        m.ranking, m.scores = ranking, scores
        m.corrected += 1

    def _next_in_bracket(self, m: Match) -> Match | None:
        for n in self.matches.values():
            if ("winner", m.id) in n.sources:
                return n
        return None

    def _forfeit(self, m: Match, player: str) -> None:
        m.forfeits = (*m.forfeits, player)
        left = [p for p in m.players if p not in m.forfeits]
        if len(left) <= 1:
            m.ranking = ((*left,), tuple(m.forfeits)) if left else (tuple(m.forfeits),)
            m.status = "done"

    def _on_forfeit(self, body: Mapping[str, Any], at: float) -> None:
        m = self.match(body.get("match"))
        player = body.get("player")
        if m.status not in ("ready", "called"):
            raise RefusedError(f"match {m.number} is {m.status}")
        if player not in m.players or player in m.forfeits:
            raise BadInputError(f"forfeit: {player!r} is not playing match {m.number}")
        self._forfeit(m, player)

    # -- derived ---------------------------------------------------------------------------
    def _resolve(self) -> None:
        """Fill bracket slots from seeds and results (matches not started only), play
        byes through, and end the tournament when its last match is done."""
        if self.status == "registration":
            return
        pools_done: dict[str, list[str]] | None = None
        for m in self.matches.values():
            if m.stage not in BRACKETS or (m.started and not (m.bye or not m.players)):
                continue
            players: list[str] = []
            known = True
            for kind, ref in m.sources:
                if kind == "winner":
                    feeder = self.matches[ref]
                    if feeder.status != "done":
                        known = False
                        continue
                    slot = feeder.winner() or EMPTY
                elif kind == "seed":
                    slot = self.order[ref - 1]
                elif kind in ("qualifier", "consolation"):
                    if pools_done is None:
                        pools_done = placings.pool_outcome(self)
                    if not pools_done:
                        known = False
                        continue
                    seeded = pools_done[kind]
                    slot = seeded[ref - 1] if ref <= len(seeded) else EMPTY
                else:
                    slot = EMPTY
                if slot and self.players[slot].status != "withdrawn":
                    players.append(slot)
            if not known:
                m.players, m.status, m.ranking, m.bye = (), "waiting", (), False
            elif len(players) >= 2:
                m.players, m.ranking, m.bye = tuple(players), (), False
                m.status = "ready"
            else:
                m.players = tuple(players)
                m.ranking = ((players[0],),) if players else ()
                m.status, m.bye = "done", bool(players)
        finished = all(m.status in ("done", "cancelled") for m in self.matches.values())
        if self.spec.format == "swiss":
            finished = finished and self.round >= self.spec.rounds
        self.status = "finished" if finished and self.matches else "running"

    # -- views -------------------------------------------------------------------------------
    def match_json(self, m: Match, names: Mapping[str, str] | None = None) -> JSONDict:
        out = m.to_json()
        out["names"] = [names[p] for p in m.players] if names else [self.name(p) for p in m.players]
        return out

    def to_json(self) -> JSONDict:
        """The whole public view of the tournament (plain JSON)."""
        lines = self.standings()
        ranking = self.final_ranking(lines)
        names = {p.id: p.name for p in self.players.values()}
        return {
            "id": self.id, "spec": self.spec.to_json(), "status": self.status,
            "round": self.round, "created_at": self.created_at,
            "players": [p.to_json() for p in self.players.values()],
            "stations": [s.to_json() for s in self.stations.values()],
            "matches": [self.match_json(m, names) for m in self.matches.values() if m.status != "cancelled"],
            "standings": [{**s.to_json(), "name": names[s.player]} for s in lines],
            "pools": [{"name": chr(ord("A") + i), "standings": [{**s.to_json(), "name": names[s.player]}
                                                                for s in pool]}
                      for i, pool in enumerate(self.pool_standings())],
            "ranking": [{"place": place, "player": p, "name": names[p]} for place, p in ranking],
            "podium": [{"place": place, "player": p, "name": names[p]} for place, p in self.podium(ranking)],
            "queue": [m.id for m in self.queue()],
            "calls": list(self.calls),
            "entries": self.applied,
        }

