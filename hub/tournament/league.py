"""What persons and seasons read of the tournaments: one pass over the log's results (issue 34).

:func:`build` makes a :class:`Book` from the tournaments and the :class:`~hub.tournament.people.Circuit`:
who each entry is (a person, else ``~<key>``: the player's key, as ratings always knew
them), each game's ratings (:func:`hub.tournament.ratings.rate_timed`, in the order the
tournaments were created, then by match number) and each identity's form after each
match. The season and person views read a book; the service builds one per version of
the log, so any correction, merge or late result re-ranks everything at once.

Pure: no I/O, no clock (``at``, the time a view is seen at, is passed in).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hub.tournament import placings, seasons
from hub.tournament.model import JSONDict
from hub.tournament.people import Circuit, Entry
from hub.tournament.ratings import GameRating, rate_timed, win_chances
from hub.tournament.state import Tournament

UNLINKED = "~"
"""Prefix of an identity that is no person yet: the entry's key (licence, else name in lower case)."""
LAST_MATCHES = 10


@dataclass(slots=True)
class Book:
    identity: dict[Entry, str] = field(default_factory=dict)
    entries: dict[str, list[Entry]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    ratings: dict[str, dict[str, GameRating]] = field(default_factory=dict)
    form: dict[str, list[tuple[float, str, float, str]]] = field(default_factory=dict)
    """identity -> (time, game, ordinal after the match, tournament id), oldest first."""
    places: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    """tournament id -> final ranking by identity (finished tournaments only)."""


def identity_of(circuit: Circuit, tid: str, pid: str, key: str) -> str:
    person = circuit.person_of(tid, pid, key)
    return person if person is not None else UNLINKED + key


def build(tournaments: Mapping[str, Tournament], circuit: Circuit,
          finals: Mapping[str, list[tuple[int, str]]]) -> Book:
    """The book of this version of the log (``finals``: each finished tournament's final
    ranking by player id, :func:`final_places`, cached by the caller)."""
    book = Book()
    for person in circuit.live():
        book.names[person.id] = person.name
    order = sorted(tournaments.values(), key=lambda t: (t.created_at, t.id))
    by_game: dict[str, list[tuple[float, tuple[tuple[str, ...], ...]]]] = {}
    origin_by_game: dict[str, list[str]] = {}
    for t in order:
        ids: dict[str, str] = {}
        for p in t.players.values():
            who = identity_of(circuit, t.id, p.id, p.key)
            ids[p.id] = who
            book.identity[(t.id, p.id)] = who
            book.entries.setdefault(who, []).append((t.id, p.id))
            book.names.setdefault(who, p.name)
        results = by_game.setdefault(t.spec.game, [])
        origins = origin_by_game.setdefault(t.spec.game, [])
        for m in t.matches.values():
            if m.status == "done" and not m.bye and len(m.players) >= 2:
                results.append((t.created_at, tuple(tuple(ids[p] for p in g) for g in m.ranking)))
                origins.append(t.id)
        if t.id in finals:
            book.places[t.id] = [(place, ids[p]) for place, p in finals[t.id]]
    for game, results in by_game.items():
        origins = origin_by_game[game]

        def note(i: int, at: float, changed: list[tuple[str, float]], game: str = game,
                 origins: list[str] = origins) -> None:
            tid = origins[i]
            for who, ordinal in changed:
                book.form.setdefault(who, []).append((at, game, ordinal, tid))

        book.ratings[game] = rate_timed(results, note)
    return book


def final_places(t: Tournament) -> list[tuple[int, str]]:
    """A finished tournament's final ranking (place, player id); [] before its end."""
    if t.status != "finished":
        return []
    return placings.final_ranking(t)


def _season_placings(book: Book, spec: seasons.SeasonSpec) -> list[tuple[str, list[tuple[int, str]]]]:
    return [(tid, book.places[tid]) for tid in spec.tournaments if tid in book.places]


def _best_rating(book: Book, who: str, games: set[str]) -> float:
    values = [book.ratings[g][who].ordinal for g in games if g in book.ratings and who in book.ratings[g]]
    return max(values, default=float("-inf"))


def season_tables(book: Book, circuit: Circuit, tournaments: Mapping[str, Tournament],
                  sid: str) -> list[tuple[str, list[seasons.Line]]]:
    """The season's standings, per division (name, lines), the first the highest; one
    table named "" without divisions."""
    spec = circuit.season(sid)
    placed = _season_placings(book, spec)
    games = {tournaments[t].spec.game for t in spec.tournaments if t in tournaments}
    who_played = {who for _, ranked in placed for _, who in ranked}
    ratings = {w: _best_rating(book, w, games) for w in who_played} if "rating" in spec.tiebreaks else None
    given = divisions_of(book, circuit, tournaments, spec)
    if not given:
        return [("", seasons.standings(spec, placed, ratings))]
    members: list[list[str]] = [[circuit.root(p) if not p.startswith(UNLINKED) else p for p in d] for d in given]
    assigned = {p for d in members for p in d}
    members[-1].extend(sorted(w for w in who_played if w not in assigned))
    names = list(spec.division_names) + [str(i + 1) for i in range(len(spec.division_names), len(members))]
    return [(names[i], seasons.standings(spec, placed, ratings, d)) for i, d in enumerate(members)]


def divisions_of(book: Book, circuit: Circuit, tournaments: Mapping[str, Tournament],
                 spec: seasons.SeasonSpec, depth: int = 0) -> list[list[str]]:
    """The season's divisions: its own, else the previous season's after promotions and relegations."""
    if spec.divisions:
        return [list(d) for d in spec.divisions]
    if spec.previous and depth < 50:
        tables = season_tables(book, circuit, tournaments, spec.previous)
        prev = circuit.season(spec.previous)
        return seasons.next_divisions(prev, [[ln.identity for ln in lines] for _, lines in tables])
    return []


def season_view(book: Book, circuit: Circuit, tournaments: Mapping[str, Tournament], sid: str) -> JSONDict:
    """The public view of a season: its tables (ranks by identity: ``ranks``), its
    tournaments, and at its end who goes up and down (each line's ``move`` is the
    caller's: the service knows the ranks before)."""
    spec = circuit.season(sid)
    tables = season_tables(book, circuit, tournaments, sid)
    ranks = {ln.identity: ln.rank for _, lines in tables for ln in lines}
    licences = {p.id: p.licence for p in circuit.persons.values()}
    clubs = {p.id: p.club for p in circuit.persons.values()}
    ups: dict[str, str] = {}
    if spec.closed and len(tables) > 1:
        after = seasons.next_divisions(spec, [[ln.identity for ln in lines] for _, lines in tables])
        where = {w: i for i, d in enumerate(after) for w in d}
        for i, (_, lines) in enumerate(tables):
            for ln in lines:
                if where.get(ln.identity, i) < i:
                    ups[ln.identity] = "up"
                elif where.get(ln.identity, i) > i:
                    ups[ln.identity] = "down"
    return {
        "season": spec.to_json(),
        "divisions": [{"name": name, "lines": [
            {**ln.to_json(), "name": book.names.get(ln.identity, ln.identity),
             "person": None if ln.identity.startswith(UNLINKED) else ln.identity,
             "licence": licences.get(ln.identity, ""), "club": clubs.get(ln.identity, "") or _club(book, tournaments, ln.identity),
             "move": 0, "end": ups.get(ln.identity)}
            for ln in lines]} for name, lines in tables],
        "tournaments": [{"id": tid, "name": tournaments[tid].spec.name, "game": tournaments[tid].spec.game,
                         "status": tournaments[tid].status, "created_at": tournaments[tid].created_at,
                         "players": len(tournaments[tid].players)}
                        for tid in spec.tournaments if tid in tournaments],
        "ranks": ranks,
    }


def _club(book: Book, tournaments: Mapping[str, Tournament], who: str) -> str:
    for tid, pid in reversed(book.entries.get(who, [])):
        club = tournaments[tid].players[pid].club if tid in tournaments else ""
        if club:
            return club
    return ""


def person_view(book: Book, circuit: Circuit, tournaments: Mapping[str, Tournament], who: str,
                at: float, season_ranks: Mapping[str, Mapping[str, int]]) -> JSONDict:
    """A person's public page: their tournaments, ratings per game (seen at ``at``: widened
    by inactivity), form over time per game, last matches, season ranks."""
    person = circuit.persons.get(who)
    mine = book.entries.get(who, [])
    events = []
    matches: list[tuple[float, int, JSONDict]] = []
    for tid, pid in mine:
        t = tournaments[tid]
        place = next((pl for pl, p in placings_of(book, tid, who)), None)
        events.append({"id": tid, "name": t.spec.name, "game": t.spec.game, "created_at": t.created_at,
                       "status": t.status, "players": len(t.players), "place": place, "player": pid})
        for m in t.matches.values():
            if pid in m.players and m.status == "done" and not m.bye:
                matches.append((t.created_at, m.number, {
                    "tournament": tid, "tournament_name": t.spec.name, "game": t.spec.game, "id": m.id,
                    "number": m.number, "names": [t.name(p) for p in m.players],
                    "others": [t.name(p) for p in m.players if p != pid], "placing": m.placing(pid),
                    "won": m.winner() == pid}))
    matches.sort(key=lambda r: (r[0], r[1]), reverse=True)
    ratings = [{"game": g, **book.ratings[g][who].at(at).to_json()}
               for g in sorted(book.ratings) if who in book.ratings[g]]
    form: dict[str, list[list[Any]]] = {}
    for when, game, ordinal, tid in book.form.get(who, []):
        form.setdefault(game, []).append([when, round(ordinal, 3), tid])
    return {
        "identity": who, "person": person.to_json() if person else None,
        "name": person.name if person else book.names.get(who, who.removeprefix(UNLINKED)),
        "members": [circuit.persons[p].to_json() for p in circuit.members(who) if p != who] if person else [],
        "merged_into": circuit.merged.get(who),
        "tournaments": sorted(events, key=lambda e: e["created_at"], reverse=True),
        "ratings": ratings, "form": form, "last_matches": [r[2] for r in matches[:LAST_MATCHES]],
        "seasons": [{"id": sid, "name": circuit.seasons[sid].name, "rank": ranks[who]}
                    for sid, ranks in season_ranks.items() if who in ranks],
    }


def placings_of(book: Book, tid: str, who: str) -> list[tuple[int, str]]:
    return [(pl, w) for pl, w in book.places.get(tid, []) if w == who]


def match_chances(book: Book, t: Tournament, mid: str, at: float) -> dict[str, float]:
    """Each player's chance to win match ``mid`` (ratings in the tournament's game, seen at ``at``)."""
    m = t.match(mid)
    table = book.ratings.get(t.spec.game, {})
    ids = [book.identity.get((t.id, p), UNLINKED + t.players[p].key) for p in m.players]
    rated = [table[i].at(at) if i in table else None for i in ids]
    if len(rated) < 2:
        return {}
    return dict(zip(m.players, win_chances(rated), strict=True))
