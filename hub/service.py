"""The hub's facade: the one object the web layer (and the CLI) talks to.

:class:`Hub` is thread-safe: every public method may be called from any thread (Flask
request threads, the SSE stream, transports). Everything that changes a table goes
through the durable event store first (DESIGN.md §6, R1): an input is validated, stored,
committed, and only then applied; a bad input raises a :class:`hub.errors.HubError`
(a ``ValueError``) and changes nothing.

Shapes the web layer can rely on (all plain JSON values):

*Table summary* (:meth:`Hub.list_tables`)::

    {"id": "t1", "game": "trigono", "status": "playing", "to_move": "Ana",
     "players": ["Ana", "Ben"], "boards": ["B1"], "prompts": 1, "alerts": 0,
     "winner": None, "round": 1}

*Table view* (:meth:`Hub.table_view`, also returned by :meth:`Hub.submit`)::

    {"id", "game", "options", "seed", "created_at",
     "seats": [{"name": "Ana", "bot": False}, ...],
     "players": [...],                 # seat order
     "state": {...},                   # the engine's printed state (RECORDS.md)
     "status", "to_move", "winner",    # copied from state for convenience
     "armed": bool,                    # Trigono: sensor drops are being refereed
     "layout": [{"board": "B1", "as": "B1", "holes": {"big": "B1.big", ...},
                 "online": True}],     # [] for games without boards
     "prompts": [{"id": "p7", "kind": "landed", "question": "...",
                  "player": "Ana", "choices": ["board:B1", "floor"],
                  "default": None}],   # what the referee console must answer
     "throw": None | {"player", "drops": [...], "invalid", "closes_at"},
     "alerts": [{"id": 12, "level": "warning", "text": "...", "board": "B1"}],
     "events": [{"id": 40, "at": 1700000000.0, "source": "device", "text": "..."}],
     "hint": None | {"action": ..., "why": "..."},
     "bot_thinking": bool,
     "change_id": 1234}                # the feed id this view is current as of

*Inputs* (:meth:`Hub.submit`): a dict with one of these keys (plus optional ``"by"``,
who sent it, and ``"player"``, the player it is sent for: a move sent for a player who
is not to move is refused):

- ``{"answer": {"prompt": "p7", "choice": X}}`` — answer an open prompt;
- ``{"landed": "board:B1" | "floor" | HOLE}`` — Trigono: where the palet of the player
  to throw came to rest (a hole when the sensors missed it);
- ``{"invalid": True}`` — Trigono: the open (or else the last) drop bounced on the
  floor first (T10);
- ``{"undo": True}`` — take back the last action (a new log entry, R1);
- ``{"void": ENTRY_ID}`` — Trigono: a sensor event did not happen (its drop, knock-in or
  block is removed from what was derived from it);
- ``{"recount": {"board": "B1", "count": 3}}`` — Trigono: palets counted on a board; a
  mismatch raises an alert naming the difference;
- ``{"amend": {"index": K, "action": ACTION}}`` — replace action K of the game record;
- ``{"target": HOLE}`` — Trigono: the finalist's target (T17);
- ``{"next_round": True}`` — Trigono: palets are collected, arm the sensors again;
- ``{"move": ACTION}`` — a move in the game's record notation (any game);
- ``{"hint": True}`` — ask the game's bot for a hint (shown in the view's ``hint``).

*Board health* (:meth:`Hub.boards`)::

    {"board": "B1", "status": "online" | "lost" | "unknown", "link": "serial:/dev/ttyACM0",
     "last_seen": 1700000000.0, "boot": 3, "last_seq": 120, "quality": 0.98,
     "rssi": -60, "resends": 2, "gaps": 0, "corrupt": 1, "overflow": 0,
     "beam_faults": ["big"], "blocked": [], "fw": "1.0", "holes": ["big", "small"],
     "table": "t1", "uptime_s": 100, "mem_free": 20000}

*Change feed* (:meth:`Hub.changes_since`): ``[{"id": N, "kind": "table", "table": "t1"}
| {"id": N, "kind": "board", "board": "B1"} | {"id": N, "kind": "tables"}
| {"id": N, "kind": "reset"}]``. Ids increase strictly, also across hub restarts. A
``reset`` item means "you missed too much: fetch everything again".
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hub.errors import (
    BadInputError,
    ConflictError,
    HubError,
    RefusedError,
    UnknownGameError,
    UnknownTableError,
)

__all__ = [
    "Hub",
    "HubError",
    "BadInputError",
    "ConflictError",
    "RefusedError",
    "UnknownGameError",
    "UnknownTableError",
]

JSONDict = dict[str, Any]


class Hub:
    """The running hub: event store, tables, referees, board health, transports.

    ``Hub(db)`` opens (or creates) the SQLite event store at ``db`` (``":memory:"`` for
    a throwaway hub) and rebuilds every table from it. Call :meth:`start` to run the
    background threads (ingest, settle-window timers, bots) and :meth:`close` to stop.
    """

    def __init__(
        self,
        db: str | Path,
        *,
        settle_s: float = 1.0,
        bot_budget_s: float = 1.0,
        lost_after_s: float = 30.0,
    ) -> None:
        raise NotImplementedError

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        """Start the background threads (idempotent)."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop transports and threads, close the store. Safe to call twice."""
        raise NotImplementedError

    # -- tables ------------------------------------------------------------------------
    def games(self) -> list[str]:
        """Names of the registered games (``engines.GAMES``)."""
        raise NotImplementedError

    def list_tables(self) -> list[JSONDict]:
        """A summary of every table, oldest first (see the module doc)."""
        raise NotImplementedError

    def table_view(self, table_id: str) -> JSONDict:
        """The full view of one table; :class:`UnknownTableError` if there is none."""
        raise NotImplementedError

    def create_table(
        self,
        game: str,
        *,
        options: Mapping[str, Any] | None = None,
        seats: list[Any] | None = None,
        boards: list[Any] | None = None,
        seed: int | None = None,
        table_id: str | None = None,
    ) -> JSONDict:
        """Create a table and return its view.

        ``seats``: seat order, each a name or ``{"name": "Ana", "bot": False}``; they
        become ``options["players"]`` (default: the game's default players, all human).
        ``boards`` (Trigono): the physical boards and how their holes map onto the
        engine's layout — each ``"B1"`` (same id, holes big/small/jackpot) or
        ``{"board": "B7", "as": "B1", "holes": {"big": "B1.big", "small": "B1.small",
        "jackpot": "jackpot"}}``; the engine's ``options["boards"]`` cells come from
        ``options`` (default: one board per bound board, in a row). ``seed`` defaults to
        a random one (stored). Raises :class:`UnknownGameError`, :class:`BadInputError`
        (the engine's own option errors included) or :class:`ConflictError` (a board is
        bound to another table, or the id is taken).
        """
        raise NotImplementedError

    def submit(self, table_id: str, inp: Mapping[str, Any]) -> JSONDict:
        """Apply one console/player input (see the module doc) and return the new view.

        Stored before it is applied; on any :class:`HubError` nothing is stored or
        changed. A hint request is answered in the view's ``hint`` and is not stored.
        """
        raise NotImplementedError

    def export(self, table_id: str) -> JSONDict:
        """The table as a RECORDS.md game record (``game``, ``options``, ``seed``,
        ``actions``), replayable with ``trigono replay``."""
        raise NotImplementedError

    # -- boards ------------------------------------------------------------------------
    def boards(self) -> list[JSONDict]:
        """Health of every board seen or bound, sorted by board id (see the module doc)."""
        raise NotImplementedError

    # -- live feed ---------------------------------------------------------------------
    def last_change_id(self) -> int:
        """The id of the newest change (start an SSE stream from here)."""
        raise NotImplementedError

    def changes_since(self, last_id: int, timeout: float) -> list[JSONDict]:
        """Changes with id > ``last_id``, oldest first; waits up to ``timeout`` seconds
        for one when there are none (then returns ``[]``)."""
        raise NotImplementedError
