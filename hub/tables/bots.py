"""The bot worker: one thread that plays the computer seats of every table.

The hub asks :meth:`BotWorker.request` whenever a table with bot seats changed. The
worker takes a copy of the position from the hub (:meth:`BotHost.bot_turn`), lets the
game's bot think on it *outside* the hub's lock (a move takes up to the budget), then
hands the move back (:meth:`BotHost.bot_played`); the hub plays it only if the table has
not moved meanwhile. A bot's randomness comes from ``Random(f"{seed}:{move number}")``,
so a table with bots replays the same way.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from engines.core import State

log = logging.getLogger("hub")


class Bot(Protocol):
    """What the worker needs of a game's bot (``engines.<game>.bot``)."""

    def choose(self, state: Any, rng: random.Random, budget_s: float) -> Any: ...


@dataclass(frozen=True)
class BotTurn:
    """A bot seat to move: a copy of the position and what is needed to check it later."""

    table_id: str
    state: State[Any]
    version: int
    """Number of actions played when the copy was taken."""
    seed: int
    bot: Bot


class BotHost(Protocol):
    """The hub, as the worker sees it."""

    def bot_turn(self, table_id: str) -> BotTurn | None:
        """The position if a bot seat of the table is to move, else None."""

    def bot_played(self, turn: BotTurn, action: Any) -> None:
        """Play the bot's action if the table is still at ``turn.version``."""

    def bot_thinking(self, table_id: str) -> None:
        """The bot started or stopped thinking (announce the table)."""


class BotWorker:
    """Plays bot seats in a background thread; :meth:`thinking` tells the views."""

    def __init__(self, host: BotHost, budget_s: float, pause_s: float = 0.0) -> None:
        self.host = host
        self.budget_s = budget_s
        self.pause_s = pause_s
        """Rest after each move (the demo: people watching bots play can follow, and the
        search leaves the interpreter to the other threads)."""
        self._queue: queue.Queue[str] = queue.Queue()
        self._thinking: set[str] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="hub-bots", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._queue.put("")
        if self._thread is not None:
            self._thread.join(timeout)

    def request(self, table_id: str) -> None:
        """Look at this table: a bot seat may be to move."""
        self._queue.put(table_id)

    def thinking(self, table_id: str) -> bool:
        with self._lock:
            return table_id in self._thinking

    def _loop(self) -> None:
        while not self._stop.is_set():
            table_id = self._queue.get()
            if not table_id:
                continue
            try:
                if self.move(table_id) and self.pause_s:
                    self._stop.wait(self.pause_s)
            except Exception:  # noqa: BLE001 - a faulty bot must not stop the others
                log.exception("bot move on %s failed", table_id)

    def move(self, table_id: str) -> bool:
        """Think and play one move on the table if a bot seat is to move (the worker's
        thread calls this; tests may call it directly). True if a bot thought."""
        turn = self.host.bot_turn(table_id)
        if turn is None:
            return False
        with self._lock:
            self._thinking.add(table_id)
        self.host.bot_thinking(table_id)
        try:
            rng = random.Random(f"{turn.seed}:{turn.version}")
            action = turn.bot.choose(turn.state, rng, self.budget_s)
        finally:
            with self._lock:
                self._thinking.discard(table_id)
        self.host.bot_played(turn, action)
        return True
