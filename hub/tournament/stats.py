"""Statistics the sensors already know (issue 34.4), from the log: per tournament entry,
what its matches' tables recorded, counted by each game's own
:class:`engines.core.PlayerStats` (Trigono's holes, floor, knock-ins, rounds and finals;
Triominos' points per tile; Trike's wins by colour; Triolet's trios).

Keyed by *entries*: an entry is ``(tournament id, player id)``; :func:`aggregate` sums
over a LIST of them, so a person (every entry of one player across events) is one call
with all their entries. Shares are shares of the sums (``PlayerStats.ratios``), never
averages of per-match shares. A match entered by hand (no table) counts as a match with
no throws; a table that cannot be read is skipped and named in ``unread``.

>>> rows = [StatRow("T1", "m1", 1, "trike", "Ana", {"games": 1, "wins": 1}),
...         StatRow("T2", "m4", 4, "trike", "Ana", {"games": 1, "wins": 0})]
>>> aggregate(rows)["games"]["trike"]["counts"]
{'games': 2, 'wins': 1}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from engines import GAMES
from engines.records import initial_state

JSONDict = dict[str, Any]
EntryRef = tuple[str, str]
"""A tournament entry: (tournament id, player id)."""


@dataclass(frozen=True)
class StatRow:
    """One match of one entry: what its table's log says of the player (``counts``)."""

    tournament: str
    match: str
    number: int
    game: str
    player: str
    counts: Mapping[str, int]
    table: str | None = None


def count_record(record: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """``{player name: {counter: n}}`` of one table's record (its export), by its game's
    :attr:`engines.core.GameSpec.player_stats`; ``{}`` for a game without."""
    spec = GAMES[str(record["game"])]
    if spec.player_stats is None:
        return {}
    return spec.player_stats.count(initial_state(record), list(record.get("actions", [])))


def ratio(num: int, den: int) -> float | None:
    """``num / den`` rounded to 4 places, None when there is nothing to divide by."""
    return round(num / den, 4) if den else None


def aggregate(rows: Iterable[StatRow]) -> JSONDict:
    """The sums per game over ``rows`` and their shares (module doc)."""
    games: dict[str, JSONDict] = {}
    for row in rows:
        game = games.setdefault(row.game, {"matches": 0, "counts": {}})
        game["matches"] += 1
        for key, n in row.counts.items():
            game["counts"][key] = game["counts"].get(key, 0) + int(n)
    for name, game in games.items():
        spec = GAMES.get(name)
        ratios = spec.player_stats.ratios if spec is not None and spec.player_stats is not None else ()
        counts = game["counts"]
        game["ratios"] = {r: ratio(counts.get(num, 0), counts.get(den, 0)) for r, num, den in ratios}
    return {"games": games}


def entry_rows(t: Any, player_id: str) -> list[StatRow]:
    """The done matches of one entry of tournament ``t`` (a
    :class:`hub.tournament.state.Tournament`), counts not read yet (:func:`counted`)."""
    name = t.name(player_id)
    return [StatRow(t.id, m.id, m.number, t.spec.game, name, {}, m.table) for m in t.matches.values()
            if m.status == "done" and not m.bye and player_id in m.players and player_id not in m.forfeits]


def counted(rows: list[StatRow], record_of: Callable[[str], Mapping[str, dict[str, int]] | None]
            ) -> tuple[list[StatRow], list[str]]:
    """The rows with their tables' counts for their player (``record_of(table)``: the
    counts by player name, None when unreadable); a match without a table (a result by
    hand) keeps none. Returns (rows, tables not read)."""
    out: list[StatRow] = []
    unread: list[str] = []
    for row in rows:
        found = record_of(row.table) if row.table else {}
        if found is None:
            unread.append(str(row.table))
            found = {}
        out.append(replace(row, counts=found.get(row.player, {})))
    return out, unread


def to_json(entries: list[JSONDict], rows: list[StatRow], unread: list[str]) -> JSONDict:
    """The statistics document (the JSON export): the entries, per-game sums and shares,
    one line per match."""
    return {"format": "trigono-stats", "version": 1, "entries": entries, **aggregate(rows),
            "matches": [{"tournament": r.tournament, "match": r.match, "number": r.number, "game": r.game,
                         "player": r.player, "table": r.table, "counts": dict(r.counts)} for r in rows],
            "unread": unread}

