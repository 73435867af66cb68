"""A tournament is the fold of its log: ``Tournament.replay(entries)`` (boardgame.io style).

Each entry body has a ``type``:

- ``create`` ``{"spec": {...}}`` — the first entry (:class:`hub.tournament.model.Spec`);
- ``register`` ``{"player": {"name", "club"?, "key"?, "rating"?}}`` — before the start,
  or after it for a Swiss tournament (a late entry, drawn from the next round on);
- ``check_in`` / ``withdraw`` ``{"player": id}`` — a withdrawn player forfeits every
  match of theirs not yet done;
- ``station`` ``{"station": {"id", "seats", "boards"?, "active"?, "layout"?}}`` — add or change one
  (``active: false``: out of order, its match in play goes back to the queue);
- ``swap`` ``{"players": [a, b]}`` — before the start of a pools or AB/ABC tournament:
  the organizer puts ``a`` in ``b``'s pool and ``b`` in ``a``'s, whatever the draw
  gives them (the launch preview shows the draw with its swaps);
- ``start`` ``{"order": [ids], "pools"?: [[ids]], "playoff_seats"?: n}`` — the seeding
  of the present players; builds the pools, brackets (whose later slots fill themselves
  from results) or nothing yet (Swiss); ``pools``: the draw (:meth:`Tournament.draw_pools`:
  clubs apart, the swaps made), stored so a replay never depends on the drawing code —
  a start stored without it folds as the plain serpentine it was;
  ``playoff_seats``: the most one play-off match seats;
- ``round`` ``{"round": r, "groups": [[ids]], "bye": id | None}`` — a Swiss round drawn
  (the draw is computed by :meth:`Tournament.draw_round` and stored, so a replay never
  depends on the pairing code);
- ``redraw`` ``{"round": r, "groups": [[ids]]}`` — the not-yet-started matches of round
  ``r`` drawn again after a correction (started matches stay);
- ``call`` ``{"match", "station", "table"?}`` — a match is sent to a free station;
  ``uncall`` ``{"match"}`` — back to the queue (a station failed);
- ``result`` ``{"match", "ranking", "scores"?}`` — a match's ranking
  (:func:`hub.tournament.model.parse_ranking`), entered by hand or reported by its table;
- ``correct`` ``{"match", "ranking", "scores"?, "reset"?: [ids], "keep_draw"?: bool}`` —
  a done match's ranking changed (a pool's with ``keep_draw``: the brackets keep their
  draw, only the players whose pool place changed move — else they are seeded again); the started matches that depended on the old one (a bracket match
  its winner or a pool's qualifier went on to) are reset only when listed in ``reset``
  (the organizer confirmed them), else the correction is refused naming them
  (:mod:`hub.tournament.corrections`: what a correction changes, before it is made);
  a new one whose scores (given, or kept when it names none) contradict its ranking is
  refused (:meth:`Tournament.admit`);
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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engines import game_spec
from hub.errors import BadInputError, RefusedError
from hub.tables.names import look_alike_key
from hub.tournament import corrections, formats, placings, scheduling, swiss
from hub.tournament.model import (
    BRACKETS,
    MAX_STATION_SEATS,
    POOL_STAGES,
    POOL_TIERS,
    POOLED,
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

ENTRY_TYPES = ("create", "register", "check_in", "withdraw", "station", "swap", "start", "round",
               "redraw", "call", "uncall", "result", "correct", "forfeit")
RESULT_ENTRIES = ("result", "correct", "forfeit")
Handler = Callable[["Tournament", Mapping[str, Any], float], None]
EMPTY = ""  # a bracket slot nobody fills (a bye)


class Tournament:
    """The state of one tournament (see the module doc)."""

    def __init__(self, tournament_id: str, spec: Spec, created_at: float = 0.0) -> None:
        self.id = tournament_id
        self.spec = spec
        self.created_at = created_at
        self.status = "registration"  # registration | running | finished
        self.players: dict[str, Player] = {}
        self._names: set[str] = set()  # casefolded names and keys registered: one lookup each
        self._keys: set[str] = set()
        self.stations: dict[str, Station] = {}
        self.matches: dict[str, Match] = {}
        self.order: list[str] = []
        self.pools: list[list[str]] = []
        self.round = 0
        self.calls: list[JSONDict] = []
        self.log: list[JSONDict] = []
        self.applied = 0
        self.revision = 0
        """Bumped by every entry that can change the pools' outcome (cached by it)."""
        self._outcome: tuple[int, dict[str, list[str]]] = (-1, {})
        self.left_in_pools: set[str] = set()
        """Players who withdrew before any bracket match was started: their pool place
        goes to the next one (later, a place no longer moves: matches were played on it)."""
        self.playoff_seats = spec.seats
        """The most players one play-off match seats (spec ``playoff``), fixed by the
        ``start`` entry (:meth:`start_entry`); a start stored without it: a pool match's
        seats, as play-offs were before (issue 32.13)."""
        self.kept_draw: dict[str, list[str]] | None = None
        """Set by a pool correction that keeps the draw (``keep_draw``): the brackets'
        seeds as pool places ("A:1"), so only the players whose place changed move
        (:func:`placings.pool_outcome`); None: seeded from the results, as always."""
        self.swaps: list[tuple[str, str]] = []
        """The organizer's ``swap`` entries before the start, in order (:meth:`draw_pools`)."""
        self.redraw_due = False
        """Set by a ``correct`` entry that changed a Swiss result of an earlier round: the
        current round's matches not started are drawn again (:func:`swiss.redraw_entry`)."""

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

    def trial(self) -> Tournament:
        """A copy to try entries on (before they are stored, a correction's
        consequences): the log's entries are shared, never changed once appended."""
        return copy.deepcopy(self, {id(self.log): list(self.log)})

    def admit(self, body: Mapping[str, Any]) -> None:
        """Check what a *new* entry must keep beyond what :meth:`apply` checks: rules made
        after entries were stored without them (a correction's scores agree with its
        ranking: :func:`corrections.admit`). The service calls it before an entry is
        tried and stored; a replay does not, so an older log folds as it was written.
        Raises (changing nothing) when the entry is refused."""
        if isinstance(body, Mapping) and body.get("type") == "correct":
            corrections.admit(self, body)

    def apply(self, body: Mapping[str, Any], at: float = 0.0) -> None:
        """Apply one entry; raise (changing nothing) when it is malformed or not allowed now.
        Only the tournament writes its :attr:`status` and its cache key :attr:`revision`."""
        if not isinstance(body, Mapping):
            raise BadInputError("an entry is an object")
        kind = body.get("type")
        if kind not in ENTRY_TYPES or kind == "create":
            raise BadInputError(f"type: expected one of {', '.join(ENTRY_TYPES[1:])}")
        HANDLERS[kind](self, body, at)
        touched = self.matches.get(str(body.get("match")))
        if kind in ("withdraw", "start") or (kind in RESULT_ENTRIES and touched is not None):
            self._outcome_changed(touched)
        self.resolve()
        self.log.append(copy.deepcopy(dict(body)))  # the caller's object may change later
        self.applied += 1

    # -- lookups ----------------------------------------------------------------------
    def player(self, player_id: Any) -> Player:
        if not isinstance(player_id, str) or player_id not in self.players:
            raise UnknownMatchError(f"no player {player_id!r}", "tour_no_player", player=player_id)
        return self.players[player_id]

    def match(self, match_id: Any) -> Match:
        if not isinstance(match_id, str) or match_id not in self.matches:
            raise UnknownMatchError(f"no match {match_id!r}", "tour_no_match", match=match_id)
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
            raise RefusedError("the tournament is over", "tour_over")
        if self.status == "running" and self.spec.format != "swiss":
            raise RefusedError("late entries join Swiss tournaments only (pools and brackets are drawn at the start)",
                               "tour_late_entry")
        raw = body.get("player")
        if not isinstance(raw, Mapping) or any(k not in ("name", "club", "key", "rating") for k in raw):
            raise BadInputError("player: expected {name, club?, key?, rating?}", "tour_bad_player")
        name = text(raw.get("name"), "name", max_len=40)
        if name.casefold() in self._names:
            raise RefusedError(f"a player named {name!r} is already registered", "tour_name_taken", name=name)
        club = text(raw.get("club"), "club", optional=True)
        key = text(raw.get("key"), "key", optional=True) or name.casefold()
        if key in self._keys:
            raise RefusedError(f"licence {key!r} is already registered (ratings follow it)", "tour_licence_taken",
                               key=key)
        rating = raw.get("rating")
        if rating is not None and (isinstance(rating, bool) or not isinstance(rating, (int, float))
                                   or not math.isfinite(rating)):
            raise BadInputError("rating: expected a number", "tour_bad_rating")
        pid = f"p{len(self.players) + 1}"
        late = self.status == "running"
        status = "present" if late or not self.spec.check_in else "registered"
        self.players[pid] = Player(pid, name, club, key, status, late,
                                   None if rating is None else float(rating))
        self._names.add(name.casefold())
        self._keys.add(key)

    def _on_check_in(self, body: Mapping[str, Any], at: float) -> None:
        p = self.player(body.get("player"))
        if p.status == "withdrawn":
            raise RefusedError(f"{p.name} has withdrawn", "tour_withdrawn", name=p.name)
        p.status = "present"

    def _on_withdraw(self, body: Mapping[str, Any], at: float) -> None:
        p = self.player(body.get("player"))
        if p.status == "withdrawn":
            raise RefusedError(f"{p.name} has already withdrawn", "tour_already_withdrawn", name=p.name)
        p.status = "withdrawn"
        if not any(m.stage in BRACKETS and m.started and not m.bye for m in self.matches.values()):
            self.left_in_pools.add(p.id)
        for m in self.matches.values():
            if p.id not in m.players or p.id in m.forfeits:
                continue
            # A bracket match not started is simply filled again without them (resolve).
            if m.status == "called" or (m.status == "ready" and (not m.sources or m.stage == "pools")):
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
        """The ``start`` entry for now (seeding computed once, then stored; the pools'
        draw: :meth:`draw_pools`; with play-offs, how many one play-off match seats:
        :meth:`playoff_capacity`)."""
        entry: JSONDict = {"type": "start", "order": self.seeding(ratings)}
        if self.spec.format in POOLED:
            entry["pools"] = self.draw_pools(entry["order"])
        if self.spec.playoff and self.spec.format in ("pools", "abc"):
            entry["playoff_seats"] = self.playoff_capacity()
        return entry

    def pool_total(self, players: int) -> int:
        """How many pools ``players`` make in this format."""
        if self.spec.format == "abc":
            return len(formats.group_sizes(players, 4))
        return formats.pool_count(players, self.spec.pool_size)

    def draw_pools(self, order: list[str]) -> list[list[str]]:
        """The pools of the seeded ``order``: the serpentine with clubs kept apart where
        the draw can (:func:`formats.club_pools`), then the organizer's swaps, each pool
        best seed first."""
        clubs = {p: self.players[p].club.casefold() for p in order}  # as scheduling.club_key
        pools = formats.club_pools(order, self.pool_total(len(order)), clubs)
        where = {p: i for i, pool in enumerate(pools) for p in pool}
        for a, b in self.swaps:
            if a in where and b in where:
                where[a], where[b] = where[b], where[a]
        seed = {p: i for i, p in enumerate(order)}
        return [sorted((p for p in order if where[p] == i), key=seed.__getitem__) for i in range(len(pools))]

    def _on_swap(self, body: Mapping[str, Any], at: float) -> None:
        if self.status != "registration":
            raise RefusedError("the tournament has already started", "tour_started")
        if self.spec.format not in POOLED:
            raise RefusedError("only a tournament with pools has pools to swap", "tour_swap_no_pools")
        pair = body.get("players")
        if not isinstance(pair, list) or len(pair) != 2 or pair[0] == pair[1]:
            raise BadInputError("swap: expected two different players", "tour_swap_two_players")
        a, b = (self.player(p) for p in pair)
        for p in (a, b):
            if p.status == "withdrawn":
                raise RefusedError(f"{p.name} has withdrawn", "tour_withdrawn", name=p.name)
        self.swaps.append((a.id, b.id))

    def _pools_of(self, body: Mapping[str, Any], order: list[str]) -> list[list[str]]:
        """The start's pools: as stored, checked (every player once, as many pools as the
        format makes, of the serpentine's sizes), else the plain serpentine (a start
        stored before the draw kept clubs apart)."""
        count = self.pool_total(len(order))
        pools = body.get("pools")
        if pools is None:
            return formats.snake_pools(order, count)
        sizes = sorted(len(p) for p in formats.snake_pools(order, count))
        if (not isinstance(pools, list) or not all(isinstance(p, list) for p in pools)
                or sorted(str(x) for pool in pools for x in pool) != sorted(order)
                or sorted(len(p) for p in pools) != sizes):
            raise BadInputError(f"start: pools must place every player once, in {count} pools of the draw's sizes",
                                "tour_bad_pools", count=count)
        seed = {p: i for i, p in enumerate(order)}
        return [sorted((str(x) for x in pool), key=seed.__getitem__) for pool in pools]

    def playoff_capacity(self) -> int:
        """How many players one play-off match can seat now: as many as the game takes
        (its ``max_players``; none said: any number, the boards decide) and the largest
        active station seats — never fewer than a pool match."""
        most = game_spec(self.spec.game).game_type.max_players or MAX_STATION_SEATS
        biggest = max((s.seats for s in self.stations.values() if s.active), default=self.spec.seats)
        return max(self.spec.seats, min(most, biggest))

    def _on_start(self, body: Mapping[str, Any], at: float) -> None:
        if self.status != "registration":
            raise RefusedError("the tournament has already started", "tour_started")
        order = body.get("order")
        eligible = self.eligible()
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(eligible) or len(set(order)) != len(order):
            raise BadInputError("start: order must list every present player once", "tour_bad_order")
        if len(order) < 2:
            raise RefusedError("start: at least two present players are needed", "tour_too_few")
        seats = body.get("playoff_seats", self.spec.seats)
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.spec.seats <= seats <= MAX_STATION_SEATS:
            raise BadInputError(f"playoff_seats: expected an integer from {self.spec.seats} to {MAX_STATION_SEATS}",
                                "tour_bad_int", field="playoff_seats", low=self.spec.seats, high=MAX_STATION_SEATS)
        pools = self._pools_of(body, list(order)) if self.spec.format in POOLED else []
        self.order = list(order)
        self.pools = pools
        self.playoff_seats = seats
        self.status = "running"
        if self.spec.format == "elimination":
            self._bracket("main", [("seed", s) for s in range(1, len(order) + 1)])
        elif self.spec.format == "double":
            self._double([("seed", s) for s in range(1, len(order) + 1)])
        elif self.spec.format == "pools":
            self._build_pools()
        elif self.spec.format == "abc":
            self._build_abc()

    def new_match(self, stage: str, rnd: int, players: tuple[str, ...] = (),
                   pool: str | None = None, sources: tuple[Source, ...] = ()) -> Match:
        number = len(self.matches) + 1
        m = Match(f"m{number}", number, stage, rnd, players, pool, sources,
                  "ready" if players else "waiting")
        self.matches[m.id] = m
        return m

    def _build_pools(self) -> None:
        schedules = [formats.pool_rounds(pool, self.spec.seats) for pool in self.pools]
        # Pools play their rounds side by side: round 1 of every pool, then round 2...
        for r in range(max(len(s) for s in schedules)):
            for i, schedule in enumerate(schedules):
                for group in schedule[r] if r < len(schedule) else []:
                    self.new_match("pools", r + 1, group, pool=chr(ord("A") + i))
        qualified = sum(min(self.spec.advance, len(p)) for p in self.pools)
        self._bracket("main", [("qualifier", s) for s in range(1, qualified + 1)])
        if self.spec.consolation and len(self.order) - qualified >= 2:
            self._bracket("consolation", [("consolation", s) for s in range(1, len(self.order) - qualified + 1)])

    def _build_abc(self) -> None:
        """AB/ABC: pools of 4 (3 or 2 where the count asks: :func:`formats.group_sizes`)
        spread by seed; a pool of 4 plays its 1st against its 4th and its 2nd against its
        3rd, then winners against winners and losers against losers, then the two at one
        win each play the third game (matches filled from results, like a bracket's); a
        smaller pool plays a round robin. Then tournaments A, B (and C) by pool place
        (:func:`formats.abc_tiers`), each a knock-out whose first round is a play-in
        (cadrage) when its count is not a power of two."""
        schedules = [formats.abc_pool_games(pool) for pool in self.pools]
        ids: list[list[str]] = [[] for _ in self.pools]  # each pool's matches, in game order
        for r in range(max(len(s) for s in schedules)):
            for i, schedule in enumerate(schedules):
                for game in schedule[r] if r < len(schedule) else []:
                    if all(isinstance(x, str) for x in game):
                        m = self.new_match("pools", r + 1, tuple(str(x) for x in game), pool=chr(ord("A") + i))
                    else:  # ("winner" | "loser", index of an earlier game of this pool)
                        sources = tuple((str(x[0]), ids[i][int(x[1])]) for x in game)
                        m = self.new_match("pools", r + 1, pool=chr(ord("A") + i), sources=sources)
                    ids[i].append(m.id)
        counts = formats.abc_tier_counts([len(p) for p in self.pools], self.spec.split)
        for stage, tier, count in zip(("main", "consolation", "c"), POOL_TIERS, counts, strict=True):
            if count >= 2:
                self._bracket(stage, [(tier, s) for s in range(1, count + 1)])

    def _bracket(self, stage: str, seeds: list[Source]) -> None:
        k = self.spec.bracket_seats
        size = formats.bracket_size(len(seeds), k)
        slots: list[Source] = [seeds[s - 1] if s <= len(seeds) else ("empty", None)
                               for s in formats.bracket_order(size, k)]
        rnd = 1
        while len(slots) > 1:
            feeders = [self.new_match(stage, rnd, sources=tuple(slots[i:i + k])).id
                       for i in range(0, len(slots), k)]
            if len(feeders) == 2 and k == 2 and stage == "main" and self.spec.third_place:
                self.new_match("third", rnd + 1, sources=(("loser", feeders[0]), ("loser", feeders[1])))
            slots = [("winner", mid) for mid in feeders]
            rnd += 1

    def _double(self, seeds: list[Source]) -> None:
        """A double elimination: the winners bracket (stage ``main``), the losers
        bracket fed by its losers round by round (stage ``losers``: a round of the
        losers among themselves, then one against those who just lost in the winners
        bracket, their order reversed every other time to keep rematches late), the grand
        final and, with ``grand_final_reset``, its replay (stage ``grand``)."""
        size = formats.bracket_size(len(seeds), 2)
        slots: list[Source] = [seeds[s - 1] if s <= len(seeds) else ("empty", None)
                               for s in formats.bracket_order(size, 2)]
        wb: list[list[str]] = []
        while len(slots) > 1:
            wb.append([self.new_match("main", len(wb) + 1, sources=tuple(slots[i:i + 2])).id
                       for i in range(0, len(slots), 2)])
            slots = [("winner", mid) for mid in wb[-1]]
        lb_round = 0
        champion: Source = ("loser", wb[0][0])  # two players: the winners final's loser
        if len(wb) > 1:
            drop: list[Source] = [("loser", mid) for mid in wb[0]]
            lb_round += 1
            lb = [self.new_match("losers", lb_round, sources=(drop[i], drop[i + 1])).id
                  for i in range(0, len(drop), 2)]
            for r in range(1, len(wb)):
                drop = [("loser", mid) for mid in wb[r]]
                if r % 2:
                    drop.reverse()
                lb_round += 1
                lb = [self.new_match("losers", lb_round, sources=(("winner", lb[i]), drop[i])).id
                      for i in range(len(lb))]
                if len(lb) > 1:
                    lb_round += 1
                    lb = [self.new_match("losers", lb_round, sources=(("winner", lb[i]), ("winner", lb[i + 1]))).id
                          for i in range(0, len(lb), 2)]
            champion = ("winner", lb[0])
        final = self.new_match("grand", 1, sources=(("winner", wb[-1][0]), champion))
        if self.spec.grand_final_reset:
            self.new_match("grand", 2, sources=(("rematch", final.id), ("rematch", final.id)))

    # -- results ---------------------------------------------------------------------------
    def ranking_for(self, m: Match, body: Mapping[str, Any]) -> tuple[Ranking, dict[str, float]]:
        """The ranking and scores an entry gives match ``m``, checked: every player once;
        a single winner in a bracket and in a game that always has one."""
        playing = [p for p in m.players if p not in m.forfeits]
        ranking = parse_ranking(body.get("ranking"), playing)
        if m.forfeits:
            ranking = (*ranking, tuple(m.forfeits))
        if len(ranking[0]) != 1:
            if m.stage in BRACKETS or m.stage == "playoff" or self.spec.format == "abc":
                raise BadInputError("ranking: an elimination match needs a single winner", "tour_elimination_tie")
            if game_spec(self.spec.game).always_a_winner:
                raise BadInputError(f"ranking: a game of {self.spec.game} always has a single winner", "tour_game_tie",
                                    game=self.spec.game)
        return ranking, parse_scores(body.get("scores"), m.players)

    def _on_result(self, body: Mapping[str, Any], at: float) -> None:
        m = self.match(body.get("match"))
        if m.status not in ("ready", "called"):
            raise RefusedError(f"match {m.number} is {m.status}: use a correction", "tour_match_use_correction",
                               number=m.number, match_status=m.status)
        self.rerank(m, *self.ranking_for(m, body))
        table = body.get("table")
        if isinstance(table, str):
            m.table = table
        m.status = "done"

    def _outcome_changed(self, m: Match | None) -> None:
        """The pools' outcome (cached by :attr:`revision`) is to be computed again after
        a change to ``m`` (None: to the players), unless ``m`` cannot change it (a
        bracket's or a Swiss round's match: recomputing at each of those cost a 128-player
        ABC event most of its time)."""
        if m is None or m.stage in POOL_STAGES:
            self.revision += 1

    def rerank(self, m: Match, ranking: Ranking, scores: dict[str, float]) -> None:
        """Set a match's ranking and scores (a result, a correction, or the trial of one
        in :func:`corrections.dependents`)."""
        m.ranking, m.scores = ranking, scores
        self._outcome_changed(m)

    def reset(self, m: Match) -> None:
        """A started bracket match whose players are no longer those its sources give
        (a correction upstream): back to waiting, its result and station forgotten;
        :meth:`resolve` fills it again (and the pools' outcome is computed again: a
        reset AB/ABC pool game changes it)."""
        m.status, m.players, m.ranking, m.scores = "waiting", (), (), {}
        m.station, m.table, m.forfeits, m.bye = None, None, (), False
        self._outcome_changed(m)

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
            raise RefusedError(f"match {m.number} is {m.status}", "tour_match_closed", number=m.number,
                               match_status=m.status)
        if player not in m.players or player in m.forfeits:
            raise BadInputError(f"forfeit: {player!r} is not playing match {m.number}", "tour_forfeit_not_playing",
                                number=m.number)
        self._forfeit(m, player)

    # -- derived ---------------------------------------------------------------------------
    def pool_outcome(self) -> dict[str, list[str]]:
        """:func:`placings.pool_outcome`, computed once per :attr:`revision`."""
        if self._outcome[0] != self.revision:
            self._outcome = (self.revision, placings.pool_outcome(self))
        return self._outcome[1]

    def slot_players(self, m: Match, outcome: dict[str, list[str]] | None) -> tuple[bool, list[str]]:
        """Who a bracket match's sources give now: (all known, players, withdrawn ones
        included). ``outcome``: :func:`placings.pool_outcome`, when computed already."""
        players: list[str] = []
        known = True
        for index, (kind, ref) in enumerate(m.sources):
            if kind == "winner":
                feeder = self.matches[ref]
                if feeder.status != "done":
                    known = False
                    continue
                slot = feeder.winner() or EMPTY
            elif kind == "loser":
                feeder = self.matches[ref]
                if feeder.status != "done":
                    known = False
                    continue
                slot = next((p for p in feeder.players if p != feeder.winner()), EMPTY) if not feeder.bye else EMPTY
            elif kind == "rematch":  # the grand final again, if its winner came from the losers
                final = self.matches[ref]
                if final.status != "done":
                    known = False
                    continue
                top = self.matches[final.sources[0][1]].winner()  # the winners bracket's winner
                again = len(final.players) == 2 and final.winner() != top
                slot = final.players[index] if again else EMPTY
            elif kind == "seed":
                slot = self.order[ref - 1]
            elif kind in POOL_TIERS:
                if outcome is None:
                    outcome = self.pool_outcome()
                if not outcome:
                    known = False
                    continue
                seeded = outcome[kind]
                slot = seeded[ref - 1] if ref <= len(seeded) else EMPTY
            else:
                slot = EMPTY
            if slot:
                players.append(slot)
        return known, players

    def resolve(self) -> None:
        """Fill bracket slots from seeds and results (matches not started only), play
        byes through, and end the tournament when its last match is done."""
        if self.status == "registration":
            return
        if self.spec.playoff and self.pools:
            placings.sync_playoffs(self)
        outcome: dict[str, list[str]] | None = None
        for m in self.matches.values():
            if not m.sources or (m.started and not (m.bye or not m.players)):
                continue
            if outcome is None and any(kind in POOL_TIERS for kind, _ in m.sources):
                outcome = self.pool_outcome()
            known, slots = self.slot_players(m, outcome)
            # An AB/ABC pool game keeps a player who withdrew, who forfeits it: the pool's
            # results (its places, the brackets' seeds) never change behind a bracket.
            players = [p for p in slots if m.stage == "pools" or self.players[p].status != "withdrawn"]
            if not known:
                m.players, m.status, m.ranking, m.bye = (), "waiting", (), False
            elif len(players) >= 2:
                m.players, m.ranking, m.bye = tuple(players), (), False
                m.status = "ready"
                for p in players:
                    if self.players[p].status == "withdrawn" and p not in m.forfeits and m.status != "done":
                        self._forfeit(m, p)
            else:
                m.players = tuple(players)
                m.ranking = ((players[0],),) if players else ()
                m.status, m.bye = "done", bool(players)
        finished = all(m.status in ("done", "cancelled") for m in self.matches.values())
        if self.spec.format == "swiss":
            finished = finished and self.round >= self.spec.rounds
        self.status = "finished" if finished and self.matches else "running"

    # -- views -------------------------------------------------------------------------------
    def look_alikes(self) -> list[list[JSONDict]]:
        """Players whose names only look different (full-width letters, compatibility
        forms, case, spaces: hub/tables/names.py), grouped: perhaps one person registered
        twice (issue 32.12). Flagged on the organizer's page, not refused: two people may
        share a name.
        """
        groups: dict[str, list[JSONDict]] = {}
        for p in self.players.values():
            if p.status != "withdrawn":
                groups.setdefault(look_alike_key(p.name), []).append({"player": p.id, "name": p.name})
        return [group for group in groups.values() if len(group) > 1]

    def match_json(self, m: Match, names: Mapping[str, str] | None = None) -> JSONDict:
        out = m.to_json()
        out["names"] = [names[p] for p in m.players] if names else [self.name(p) for p in m.players]
        return out

    def to_json(self) -> JSONDict:
        """The whole public view of the tournament (plain JSON)."""
        lines = placings.standings(self)
        ranking = placings.final_ranking(self, lines)
        names = {p.id: p.name for p in self.players.values()}
        shown = [m for m in self.matches.values() if m.status != "cancelled"]
        rounds: defaultdict[str, Counter[int]] = defaultdict(Counter)  # stage -> round -> matches
        for m in shown:
            rounds[m.stage][m.round] += 1
        round_names = formats.round_names(rounds, double=self.spec.format == "double")
        within = {p: (letter, place) for letter, ranked in placings.concours_places(self).items()
                  for place, p in ranked}  # AB/ABC: a place is said within its concours
        return {
            "id": self.id, "spec": self.spec.to_json(), "status": self.status,
            "round": self.round, "created_at": self.created_at,
            "players": [p.to_json() for p in self.players.values()],
            "look_alikes": self.look_alikes(),
            "stations": [s.to_json() for s in self.stations.values()],
            "matches": [{**self.match_json(m, names), "round_name": round_names[(m.stage, m.round)]}
                        for m in shown],
            "standings": [{**s.to_json(), "name": names[s.player]} for s in lines],
            "pools": [{"name": chr(ord("A") + i), "standings": [{**s.to_json(), "name": names[s.player]}
                                                                for s in pool]}
                      for i, pool in enumerate(placings.pool_standings(self))],
            "ranking": [{"place": place, "player": p, "name": names[p],
                         "withdrawn": self.players[p].status == "withdrawn",
                         "concours": within[p][0] if p in within else None,
                         "concours_place": within[p][1] if p in within else None} for place, p in ranking],
            "concours": [{"name": letter, "finished": finished,
                          "podium": [{"place": place, "player": p, "name": names[p]} for place, p in top]}
                         for letter, finished, top in placings.concours_podiums(self)],
            "playoff_seats": self.playoff_seats,
            "ties_by_lot": [{"pool": pool, "players": list(group), "names": [names[p] for p in group],
                             "seats": self.playoff_seats} for pool, group in placings.unseated_ties(self)],
            "podium": [{"place": place, "player": p, "name": names[p]} for place, p in placings.podium(self, ranking)],
            "queue": [m.id for m in scheduling.queue(self)],
            "calls": list(self.calls),
            "pending_calls": [c for c in self.calls if self.matches[c["match"]].status == "called"
                              and self.matches[c["match"]].station == c["station"]],
            "entries": self.applied,
        }



HANDLERS: dict[str, Handler] = {
    "register": Tournament._on_register, "check_in": Tournament._on_check_in,
    "withdraw": Tournament._on_withdraw, "swap": Tournament._on_swap, "start": Tournament._on_start,
    "result": Tournament._on_result, "forfeit": Tournament._on_forfeit,
    "correct": corrections.on_correct,
    "round": swiss.on_round, "redraw": swiss.on_redraw,
    "station": scheduling.on_station, "call": scheduling.on_call, "uncall": scheduling.on_uncall,
}
"""Each entry type's handler: ``handler(tournament, body, at)`` checks the entry, then
changes the tournament (each in the module of its idea)."""
