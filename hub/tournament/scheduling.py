"""Stations and the calling of matches to them, for a
:class:`~hub.tournament.state.Tournament`: the ``station``, ``call`` and ``uncall``
entries, the queue of ready matches, and the director's follow-ups (redraws, the next
Swiss round, calls of ready matches to free stations).

Functions of the tournament; the ``station``, ``call`` and ``uncall`` handlers are
registered in :data:`hub.tournament.state.HANDLERS`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.errors import BadInputError, RefusedError
from hub.tournament import swiss
from hub.tournament.model import (
    MAX_STATION_SEATS,
    JSONDict,
    Match,
    Station,
    UnknownMatchError,
    text,
)

if TYPE_CHECKING:
    from hub.tournament.state import Tournament

CALLS_KEPT = 30


def on_station(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    raw = body.get("station")
    if not isinstance(raw, Mapping) or any(k not in ("id", "seats", "boards", "active", "layout") for k in raw):
        raise BadInputError("station: expected {id, seats, boards?, active?, layout?}", "tour_bad_station")
    layout = raw.get("layout", "row")
    if layout not in ("row", "hexagon"):
        raise BadInputError("station layout: expected row or hexagon", "tour_bad_choice", field="station_layout",
                            choices=["row", "hexagon"])
    sid = text(raw.get("id"), "station id", max_len=30)
    seats = raw.get("seats")
    if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= MAX_STATION_SEATS:
        raise BadInputError(f"station seats: expected 2 to {MAX_STATION_SEATS}", "tour_bad_int", field="station_seats",
                            low=2, high=MAX_STATION_SEATS)
    boards = raw.get("boards", [])
    if not isinstance(boards, list) or not all(isinstance(b, str) and b for b in boards):
        raise BadInputError("station boards: expected a list of board ids", "tour_bad_station")
    active = raw.get("active", True)
    if not isinstance(active, bool):
        raise BadInputError("station active: expected true or false", "tour_bad_station")
    t.stations[sid] = Station(sid, seats, tuple(boards), active, layout)
    if not active:  # out of order: its match in play goes back to the queue
        for m in t.matches.values():
            if m.status == "called" and m.station == sid:
                m.status, m.station, m.table = "ready", None, None


def _station_busy(t: Tournament, station: str) -> bool:
    return any(m.status == "called" and m.station == station for m in t.matches.values())


def busy_players(t: Tournament) -> set[str]:
    return {p for m in t.matches.values() if m.status == "called" for p in m.players
            if p not in m.forfeits}


def on_call(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    m = t.match(body.get("match"))
    if m.status != "ready":
        raise RefusedError(f"match {m.number} is {m.status}, not waiting for a station", "tour_match_not_ready",
                           number=m.number, match_status=m.status)
    sid = body.get("station")
    station = t.stations.get(sid) if isinstance(sid, str) else None
    if station is None or not station.active:
        raise UnknownMatchError(f"no active station {sid!r}", "tour_no_station", station=sid)
    if _station_busy(t, station.id):
        raise RefusedError(f"station {station.id} is busy", "tour_station_busy", station=station.id)
    if len(m.players) > station.seats:
        raise RefusedError(f"station {station.id} seats {station.seats}, match {m.number} has {len(m.players)} players",
                           "tour_station_seats", station=station.id, seats=station.seats, number=m.number,
                           count=len(m.players))
    busy = busy_players(t).intersection(m.players)
    if busy:
        raise RefusedError(f"{', '.join(t.name(p) for p in sorted(busy))} already playing", "tour_players_busy",
                           names=[t.name(p) for p in sorted(busy)])
    table = body.get("table")
    if table is not None and not isinstance(table, str):
        raise BadInputError("table: expected a table id")
    m.status, m.station, m.table = "called", station.id, table
    t.calls.append({"match": m.id, "number": m.number, "station": station.id,
                       "players": [t.name(p) for p in m.players], "at": at})
    del t.calls[:-CALLS_KEPT]


def on_uncall(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    """A called match goes back to the queue (its station failed, the players were
    sent to the wrong one); the director calls it again to a free station."""
    m = t.match(body.get("match"))
    if m.status != "called":
        raise RefusedError(f"match {m.number} is {m.status}, not called", "tour_match_not_called",
                           number=m.number, match_status=m.status)
    m.status, m.station, m.table = "ready", None, None


def queue(t: Tournament) -> list[Match]:
    """Matches ready to be sent to a station, in calling order."""
    stage_order = {"pools": 0, "swiss": 0, "playoff": 0, "main": 1, "consolation": 1, "c": 1, "third": 1,
                   "losers": 1, "grand": 2}
    ready = [m for m in t.matches.values() if m.status == "ready"]
    return sorted(ready, key=lambda m: (stage_order[m.stage], m.round, m.number))


def next_calls(t: Tournament) -> list[JSONDict]:
    """``call`` entries for the free stations now: each ready match (in queue order)
    whose players are all free goes to the smallest free station that seats it."""
    busy = busy_players(t)
    free = sorted((s for s in t.stations.values()
                   if s.active and not _station_busy(t, s.id)), key=lambda s: (s.seats, s.id))
    calls: list[JSONDict] = []
    for m in queue(t):
        if busy.intersection(m.players):
            continue
        station = next((s for s in free if s.seats >= len(m.players)), None)
        if station is None:
            continue
        free.remove(station)
        busy.update(m.players)
        calls.append({"type": "call", "match": m.id, "station": station.id})
    return calls


def follow_up(t: Tournament, after: Mapping[str, Any]) -> JSONDict | None:
    """The next entry the tournament director writes by itself after ``after``
    (apply it, then ask again with it): the redraw of the current Swiss round's
    matches not started after a correction of an earlier round, the next Swiss round
    once the last is over, then a call of a ready match to each free station."""
    if after.get("type") == "correct" and t.redraw_due:
        redraw = swiss.redraw_entry(t)
        if redraw is not None:
            return redraw
    if t.spec.format == "swiss" and t.status == "running":
        try:
            return swiss.draw_round(t)
        except RefusedError:
            pass  # the round is not over (or all are drawn)
    calls = next_calls(t)
    return calls[0] if calls else None


def club_key(t: Tournament, player: str) -> str:
    """A player's club as the draw compares clubs (case aside); none: the player alone."""
    return t.players[player].club.casefold() or "\0" + player


def launch_preview(t: Tournament, start: Mapping[str, Any]) -> JSONDict:
    """What the ``start`` entry would build, changing nothing: the pools (names of their
    players, best seed first; ``members``: each with their club, ``clash`` when another of
    that club is in the pool — the draw could not keep them apart, or a swap put them
    together), the matches per stage, the active stations and how many
    matches they start at once; ``stations`` 0 means nothing could be called; with
    play-offs, how many one of them seats (``playoff_seats``) beside the largest pool."""
    trial = copy.deepcopy(t)
    trial.apply(start)
    stages: dict[str, int] = {}
    for m in trial.matches.values():
        if not m.bye:
            stages[m.stage] = stages.get(m.stage, 0) + 1
    active = [s.id for s in trial.stations.values() if s.active]
    return {"players": len(trial.order), "format": t.spec.format,
            "pools": [{"name": chr(ord("A") + i), "players": [trial.name(p) for p in pool],
                       "members": [{"player": p, "name": trial.name(p), "club": trial.players[p].club,
                                    "clash": sum(1 for q in pool if club_key(trial, q) == club_key(trial, p)) > 1}
                                   for p in pool]}
                      for i, pool in enumerate(trial.pools)],
            "matches": stages, "rounds": t.spec.rounds if t.spec.format == "swiss" else None,
            "per_round": len(trial.order) // t.spec.seats if t.spec.format == "swiss" else None,
            "stations": active, "at_once": len(next_calls(trial)),
            "playoff_seats": trial.playoff_seats if t.spec.playoff and trial.pools else None,
            "largest_pool": max((len(pool) for pool in trial.pools), default=0)}
