"""Persons across tournaments, and the seasons that group tournaments: one fold (issue 34).

A *person* exists apart from any tournament (name, club, licence — unique when given —
and an avatar colour). A tournament *entry* (a registered player, ``(tournament id,
player id)``) belongs to a person when the organizer linked it (a confirmed name match:
``link``), else when its key is a person's licence; never by a similar name. Merges and
unmerges are entries too: a merge only notes "``gone`` is ``keep`` now", so an unmerge
deletes the note and both persons are exactly as they were, with their history (the
links stay as stored, to whom they were made).

The fold, :class:`Circuit`, reads entries of the hub's log stored by the tournament
service with ``source = "people"`` and the body ``{"people": {...}}``; each has a
``type``:

- ``person`` ``{"person": {"name", "club"?, "licence"?, "colour"?}}`` — a new person ``P<n>``;
- ``link`` ``{"tournament", "player", "person"}`` — the organizer confirmed that this entry is
  this person (``person: null`` takes the link back);
- ``merge`` ``{"keep", "gone"}`` / ``unmerge`` ``{"gone"}``;
- ``season`` ``{"season": {...}}`` — a season created or edited (:mod:`hub.tournament.seasons`);
- ``season_add`` / ``season_remove`` ``{"season", "tournament"}``; ``season_close`` ``{"season"}``.

What a merge may not join (two entries of one tournament, two persons who played at the
same time in different places, two different licences) is checked when the merge is asked
for (:meth:`Circuit.admit_merge`, by the service, which knows the tournaments' times), not by
the fold: a stored log folds as it was written.

Why here, in :mod:`hub.tournament`, and not in a ``hub/people`` wing: a person is read from
tournament entries and a season from tournament placings; both are written by the
tournament service through the hub's one writer and kept in its snapshot. A wing of its own
would import this one and need a second reducer on the writer for nothing.

>>> c = Circuit()
>>> c.apply({"type": "person", "person": {"name": "Inès Morel", "licence": "29001"}})
>>> c.apply({"type": "person", "person": {"name": "Ines Morel"}})
>>> c.apply({"type": "link", "tournament": "T2", "player": "p4", "person": "P2"})
>>> c.person_of("T1", "p1", "29001"), c.person_of("T2", "p4", "ines morel")
('P1', 'P2')
>>> c.apply({"type": "merge", "keep": "P1", "gone": "P2"})
>>> c.person_of("T2", "p4", "ines morel"), c.entries_of("P1")
('P1', [('T2', 'p4')])
>>> c.apply({"type": "unmerge", "gone": "P2"})
>>> c.person_of("T2", "p4", "ines morel")
'P2'
"""

from __future__ import annotations

import copy
import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from hub.errors import BadInputError, RefusedError
from hub.tables.names import look_alike_key
from hub.tournament import seasons
from hub.tournament.model import JSONDict, UnknownMatchError, text

SOURCE = "people"
ENTRY_TYPES = ("person", "link", "merge", "unmerge", "season", "season_add", "season_remove", "season_close")
COLOURS = ("#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98", "#117a65", "#a04000", "#2e4053")
"""Avatar colours (a person without one gets one from their number): dark enough for white initials."""
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
SIMILAR = 0.85
"""Name similarity (difflib's ratio over look-alike keys) from which two persons are proposed as one."""

Entry = tuple[str, str]
"""A tournament entry: (tournament id, player id)."""


class UnknownPersonError(UnknownMatchError):
    """No person has this id (a 404, like an unknown match)."""


@dataclass(frozen=True, slots=True)
class Person:
    id: str
    name: str
    club: str = ""
    licence: str = ""
    colour: str = ""

    def to_json(self) -> JSONDict:
        return {"id": self.id, "name": self.name, "club": self.club, "licence": self.licence,
                "colour": self.colour}


def similar(a: str, b: str) -> bool:
    """Two names that may be one person's (proposed, never linked silently).

    >>> similar("Inès Morel", "Ines  MOREL"), similar("Inès Morel", "Hugo Morel")
    (True, False)
    """
    ka, kb = look_alike_key(a), look_alike_key(b)
    ka, kb = _plain(ka), _plain(kb)
    if ka == kb:
        return True
    match = difflib.SequenceMatcher(None, ka, kb)  # the cheap upper bounds first: most pairs stop there
    return match.real_quick_ratio() >= SIMILAR and match.quick_ratio() >= SIMILAR and match.ratio() >= SIMILAR


def _plain(key: str) -> str:
    """Without accents: "Inès" and "Ines" are typed for one person."""
    return "".join(c for c in unicodedata.normalize("NFD", key) if not unicodedata.combining(c))


class Circuit:
    """Persons, their links, merges and the seasons: the fold of the ``people`` entries."""

    def __init__(self) -> None:
        self.persons: dict[str, Person] = {}
        self.links: dict[Entry, str] = {}
        self.merged: dict[str, str] = {}  # gone -> keep (as the merge entry said)
        self.merges: list[tuple[str, str]] = []  # (keep, gone) in force, oldest first
        self.licences: dict[str, str] = {}  # licence -> person
        self.seasons: dict[str, seasons.SeasonSpec] = {}
        self.log: list[JSONDict] = []

    def copy(self) -> Circuit:
        """A copy to try an entry on (a merge's preview)."""
        return copy.deepcopy(self, {id(self.log): list(self.log)})

    # -- reading ---------------------------------------------------------------------------
    def root(self, person: str) -> str:
        """The person ``person`` is now (following merges)."""
        seen = 0
        while person in self.merged and seen < 10_000:
            person = self.merged[person]
            seen += 1
        return person

    def person(self, person_id: Any) -> Person:
        if not isinstance(person_id, str) or person_id not in self.persons:
            raise UnknownPersonError(f"no person {person_id!r}", "people_no_person", person=str(person_id))
        return self.persons[person_id]

    def person_of(self, tournament: str, player: str, key: str) -> str | None:
        """The person an entry is (its link, else its key as a licence), merges followed; None: nobody yet."""
        linked = self.links.get((tournament, player))
        if linked is None:
            linked = self.licences.get(key)
        return None if linked is None else self.root(linked)

    def entries_of(self, person: str) -> list[Entry]:
        """The entries linked to this person or to those merged into it (by link only: the
        service adds those found by licence, :meth:`hub.tournament.service.TournamentService.entries_of`)."""
        return [e for e, p in self.links.items() if self.root(p) == person]

    def members(self, person: str) -> list[str]:
        """The person and everyone merged into them."""
        return [p for p in self.persons if self.root(p) == person]

    def live(self) -> list[Person]:
        """The persons not merged into another, in creation order."""
        return [p for p in self.persons.values() if p.id not in self.merged]

    # -- folding ---------------------------------------------------------------------------
    def apply(self, body: Mapping[str, Any]) -> None:
        """Apply one entry; raise (changing nothing) when it is malformed or not allowed."""
        if not isinstance(body, Mapping) or body.get("type") not in ENTRY_TYPES:
            raise BadInputError(f"type: expected one of {', '.join(ENTRY_TYPES)}", "people_bad_entry")
        HANDLERS[str(body["type"])](self, body)
        self.log.append(copy.deepcopy(dict(body)))

    def _on_person(self, body: Mapping[str, Any]) -> None:
        raw = body.get("person")
        if not isinstance(raw, Mapping) or any(k not in ("name", "club", "licence", "colour") for k in raw):
            raise BadInputError("person: expected {name, club?, licence?, colour?}", "people_bad_person")
        name = text(raw.get("name"), "name", max_len=40)
        club = text(raw.get("club"), "club", optional=True)
        licence = text(raw.get("licence"), "licence", optional=True, max_len=30)
        colour = raw.get("colour") or ""
        if colour and (not isinstance(colour, str) or not COLOUR.match(colour)):
            raise BadInputError("colour: expected #rrggbb", "people_bad_colour")
        if licence and licence in self.licences:
            raise RefusedError(f"licence {licence} is {self.persons[self.licences[licence]].name}'s",
                               "people_licence_taken", licence=licence,
                               name=self.persons[self.licences[licence]].name)
        pid = f"P{len(self.persons) + 1}"
        self.persons[pid] = Person(pid, name, club, licence, colour or COLOURS[len(self.persons) % len(COLOURS)])
        if licence:
            self.licences[licence] = pid

    def _on_link(self, body: Mapping[str, Any]) -> None:
        tid, player, person = body.get("tournament"), body.get("player"), body.get("person")
        if not isinstance(tid, str) or not isinstance(player, str):
            raise BadInputError("link: expected {tournament, player, person}", "people_bad_link")
        if person is None:
            self.links.pop((tid, player), None)
            return
        self.person(person)
        if person in self.merged:
            raise RefusedError(f"{person} is merged into {self.root(person)}", "people_merged",
                               person=person, into=self.root(person))
        self.links[(tid, player)] = person

    def _on_merge(self, body: Mapping[str, Any]) -> None:
        keep, gone = self.person(body.get("keep")).id, self.person(body.get("gone")).id
        if keep == gone or gone in self.merged or keep in self.merged or self.root(keep) == gone:
            raise RefusedError("merge: two distinct persons, neither merged already", "people_bad_merge")
        self.merged[gone] = keep
        self.merges.append((keep, gone))

    def _on_unmerge(self, body: Mapping[str, Any]) -> None:
        gone = self.person(body.get("gone")).id
        if gone not in self.merged:
            raise RefusedError(f"{gone} is not merged", "people_not_merged", person=gone)
        keep = self.merged.pop(gone)
        self.merges.remove((keep, gone))

    def _on_season(self, body: Mapping[str, Any]) -> None:
        spec = seasons.SeasonSpec.parse(body.get("season"))
        old = self.seasons.get(spec.id)
        if old is not None:
            spec = replace(spec, tournaments=old.tournaments, closed=old.closed)
        if spec.previous and spec.previous not in self.seasons:
            raise RefusedError(f"no season {spec.previous!r}", "season_unknown", season=spec.previous)
        self.seasons[spec.id] = spec

    def season(self, season_id: Any) -> seasons.SeasonSpec:
        if not isinstance(season_id, str) or season_id not in self.seasons:
            raise seasons.UnknownSeasonError(f"no season {season_id!r}", "season_unknown", season=str(season_id))
        return self.seasons[season_id]

    def _on_season_add(self, body: Mapping[str, Any]) -> None:
        s, tid = self.season(body.get("season")), body.get("tournament")
        if not isinstance(tid, str) or tid in s.tournaments:
            raise RefusedError(f"tournament {tid!r} is in season {s.id} already", "season_has_it", tournament=str(tid))
        if s.closed:
            raise RefusedError(f"season {s.id} is closed", "season_closed", season=s.id)
        self.seasons[s.id] = replace(s, tournaments=(*s.tournaments, tid))

    def _on_season_remove(self, body: Mapping[str, Any]) -> None:
        s, tid = self.season(body.get("season")), body.get("tournament")
        if tid not in s.tournaments:
            raise RefusedError(f"tournament {tid!r} is not in season {s.id}", "season_lacks_it", tournament=str(tid))
        self.seasons[s.id] = replace(s, tournaments=tuple(t for t in s.tournaments if t != tid))

    def _on_season_close(self, body: Mapping[str, Any]) -> None:
        s = self.season(body.get("season"))
        self.seasons[s.id] = replace(s, closed=not bool(body.get("reopen")))

    # -- merges: what may be joined ------------------------------------------------------------
    def admit_merge(self, keep: str, gone: str, entries: Callable[[str], Iterable[Entry]],
                    spans: Mapping[str, tuple[float, float]]) -> None:
        """Refuse (RefusedError) a merge of two persons who cannot be one: both in one
        tournament, or playing at the same time in different tournaments (``spans``: each
        tournament's first and last entry times), or holding two different licences."""
        a, b = self.person(keep), self.person(gone)
        if a.licence and b.licence and a.licence != b.licence:
            raise RefusedError("two different licences are two persons", "people_two_licences",
                               a=a.licence, b=b.licence)
        mine, theirs = {t for t, _ in entries(keep)}, {t for t, _ in entries(gone)}
        for ta in mine:
            for tb in theirs:
                if ta == tb:
                    raise RefusedError(f"both played in tournament {ta}", "people_same_event", tournament=ta)
                (a0, a1), (b0, b1) = spans.get(ta, (0.0, 0.0)), spans.get(tb, (0.0, 0.0))
                if a0 <= b1 and b0 <= a1:
                    raise RefusedError(f"{ta} and {tb} were played at the same time", "people_same_time",
                                       a=ta, b=tb)

    def duplicates(self, entries: Callable[[str], Iterable[Entry]],
                   spans: Mapping[str, tuple[float, float]]) -> list[tuple[str, str]]:
        """Pairs of live persons whose names are similar and who could be one (oldest kept)."""
        out: list[tuple[str, str]] = []
        live = self.live()
        by_initial: dict[str, list[Person]] = {}
        for p in live:  # similar names share their first letter (a cheap first cut)
            by_initial.setdefault(_plain(look_alike_key(p.name))[:1], []).append(p)
        for group in by_initial.values():
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    if not similar(a.name, b.name):
                        continue
                    try:
                        self.admit_merge(a.id, b.id, entries, spans)
                    except RefusedError:
                        continue
                    out.append((a.id, b.id))
        return out


HANDLERS: dict[str, Callable[[Circuit, Mapping[str, Any]], None]] = {
    "person": Circuit._on_person, "link": Circuit._on_link, "merge": Circuit._on_merge,
    "unmerge": Circuit._on_unmerge, "season": Circuit._on_season, "season_add": Circuit._on_season_add,
    "season_remove": Circuit._on_season_remove, "season_close": Circuit._on_season_close,
}
