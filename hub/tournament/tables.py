"""The hub tables a :class:`~hub.tournament.service.TournamentService` plays its matches
on: a called match's table is created on its station's boards, a finished table's
ranking comes back as the match's ``result``; the table of a match decided off it (by
hand, a forfeit) ends with that result, one sent back to the queue is abandoned, so the
station's boards are free again (the service's module doc tells the whole story).

:class:`MatchTables` is the service's link to the hub's tables; the service decides
when (:meth:`~hub.tournament.service.TournamentService.table_changed`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from engines import GAMES
from engines.records import replay
from hub.errors import ConflictError, HubError
from hub.log.changes import ChangeFeed
from hub.log.store import EventStore
from hub.log.writer import LogWriter
from hub.tables.layout import hexagon
from hub.tournament.model import JSONDict, Station
from hub.tournament.state import Tournament

log = logging.getLogger("hub.tournament")


class TableHub(Protocol):
    """What the service needs from :class:`hub.facade.Hub`."""

    store: EventStore
    feed: ChangeFeed
    """The hub's change feed, which the service follows (a table's game ends)."""
    writer: LogWriter
    """The hub's one door into its log: a tournament entry is stored, applied and
    announced (on :attr:`feed`: the web's live stream) through it, under the hub's lock."""

    def create_table(self, game: str, *, options: Mapping[str, Any] | None = None,
                     seats: list[Any] | None = None, boards: list[Any] | None = None,
                     seed: int | None = None, table_id: str | None = None,
                     referee: Mapping[str, Any] | None = None) -> JSONDict: ...

    def game_over(self, table_id: str) -> bool: ...

    def export(self, table_id: str) -> JSONDict: ...

    def last_change_id(self) -> int: ...

    def changes_since(self, last_id: int, timeout: float) -> list[JSONDict]: ...

    @property
    def closed(self) -> bool: ...

    def submit(self, table_id: str, inp: Mapping[str, Any]) -> JSONDict: ...


class MatchTables:
    """The hub tables of one service's matches: which table plays which match
    (``by_table``), opening a called match's table, reading a finished table's result,
    ending the tables of matches decided otherwise. ``hub`` None (tests, a CLI
    export) or ``writes`` False (a read-only replica): no table is opened or abandoned."""

    def __init__(self, hub: TableHub | None, *, create_tables: bool, writes: bool) -> None:
        self.hub = hub
        self.create_tables = create_tables and hub is not None and writes
        self.writes = writes and hub is not None
        self.by_table: dict[str, tuple[str, str]] = {}  # table id -> (tournament, match)

    def index(self, t: Tournament) -> None:
        """Note the tables of the tournament's matches."""
        for m in t.matches.values():
            if m.table:
                self.by_table[m.table] = (t.id, m.id)

    def release(self, tournaments: Mapping[str, Tournament], tables: Iterable[str], by: str) -> None:
        """End the hub tables whose matches are no longer played there, so their
        station's boards can be bound to the next match's table: a match decided off its
        table (a result by hand, a forfeit) closes it with that result (hub input
        ``decided``: the table ends with the match's ranking, player names); one sent
        back to the queue or reset by a correction is abandoned. A table whose game is
        over is left as it is. A refusal is logged: the tournament entry is stored already."""
        if self.hub is None or not self.writes:
            return
        for table_id in sorted(tables):
            tid, mid = self.by_table.get(table_id, ("", ""))
            t = tournaments.get(tid)
            m = t.matches.get(mid) if t is not None else None
            inp: JSONDict = {"abandon": True, "by": by}
            if t is not None and m is not None and m.status == "done" and m.table == table_id and m.ranking:
                inp = {"decided": {"ranking": [[t.name(p) for p in g] for g in m.ranking]}, "by": by}
            try:
                if not self.hub.game_over(table_id):
                    self.hub.submit(table_id, inp)
            except HubError as err:
                log.warning("table %s: cannot end it: %s", table_id, err)

    def open_table(self, t: Tournament, call: JSONDict) -> JSONDict:
        """Create the match's table on the hub (its station's boards bound) and name it in
        the call; a table the hub refuses leaves the match to a result entered by hand."""
        if not self.create_tables or self.hub is None:
            return call
        m = t.matches[call["match"]]
        seats = [t.name(p) for p in m.players]
        base = f"{t.id}-{m.id}"
        for attempt in range(5):
            table_id = base if attempt == 0 else f"{base}-{attempt}"
            options, boards = table_layout(t, t.stations[call["station"]], table_id)
            try:
                self.hub.create_table(t.spec.game, options=options, seats=seats, boards=boards,
                                      table_id=table_id, seed=t.spec.seed + m.number)
            except ConflictError as err:
                if "table id" in str(err):
                    continue
                log.warning("match %s of %s: %s (result by hand)", m.number, t.id, err)
                return call
            except HubError as err:
                log.warning("match %s of %s: no table: %s (result by hand)", m.number, t.id, err)
                return call
            return {**call, "table": table_id}
        return call

    def finished_result(self, table_id: str, detailed: bool) -> tuple[list[list[str]], dict[str, float]] | None:
        """A finished table's ranking (player names, best first) and scores; None while
        it plays on or when it cannot be read (logged)."""
        if self.hub is None or not self.writes:
            return None
        try:
            if not self.hub.game_over(table_id):
                return None
            state = replay(self.hub.export(table_id))
            finer = GAMES[state.game.name].detailed_ranking
            names = finer(state.to_json()) if detailed and finer is not None else state.ranking()
            return [list(g) for g in names], {n: float(v) for n, v in state.scores().items()}
        except (HubError, ValueError) as err:
            log.warning("table %s: cannot read its result: %s", table_id, err)
            return None


def result_entry(t: Tournament, match_id: str, table_id: str, names: list[list[str]],
                 scores: dict[str, float]) -> JSONDict:
    """The ``result`` entry of a finished table: its ranking by player id (names of
    players no longer in the match dropped), its scores."""
    ids = {p.name: p.id for p in t.players.values()}
    playing = [p for p in t.matches[match_id].players if p not in t.matches[match_id].forfeits]
    ranking = [[ids[n] for n in group if ids.get(n) in playing] for group in names]
    return {"type": "result", "match": match_id, "ranking": [g for g in ranking if g],
            "scores": {ids[n]: v for n, v in scores.items() if ids.get(n) in playing},
            "table": table_id}


def tables_in_play(t: Tournament) -> set[str]:
    """The hub tables of the tournament's called matches."""
    return {m.table for m in t.matches.values() if m.status == "called" and m.table}


def table_layout(t: Tournament, station: Station, table_id: str) -> tuple[JSONDict, list[JSONDict] | None]:
    """The options and board bindings of a match table on ``station``: a Trigono
    station's sensor boards (a row bound as B1, B2, …, or a hexagon with its jackpot);
    nothing for the other games, which have no sensor boards. ``{table}`` in a board id
    stands for the table's id (the simulator names its boards after their table).

    >>> from hub.tournament.model import Spec
    >>> t = Tournament("T", Spec.parse({"name": "x", "game": "trigono", "format": "swiss"}))
    >>> table_layout(t, Station("row2", 4, ("pico-3", "pico-4")), "T-m1")[1]
    [{'board': 'pico-3', 'as': 'B1'}, {'board': 'pico-4', 'as': 'B2'}]
    >>> table_layout(t, Station("sim", 2, ("{table}B1",)), "T-m1")[1]
    [{'board': 'T-m1B1', 'as': 'B1'}]
    >>> options, boards = table_layout(t, Station("hexa", 6, layout="hexagon"), "T-m1")
    >>> len(options["boards"]), boards[0]["board"], boards[0]["holes"]["jackpot"]
    (6, 'hexaB1', 'jackpot')
    """
    options = dict(t.spec.options)
    if not GAMES[t.spec.game].game_type.sensor_boards:
        return options, None
    if station.layout == "hexagon":
        options["boards"], bindings = hexagon(station.id)
        return options, bindings
    bindings = [{"board": b.replace("{table}", table_id), "as": f"B{k}"} for k, b in enumerate(station.boards, 1)]
    return options, bindings or None

