"""A tournament for the demo (``python -m web.demo``): simulated players on real tables.

:class:`DemoTournament` creates a Swiss Trike tournament of eight players on two
stations and plays every called match with random legal moves at a pace people can
follow; the finished tables report their rankings by themselves (the service's feed
follower), the director calls the next matches and draws the next rounds, and once a
podium is reached a new tournament starts under the next id.
"""

from __future__ import annotations

import logging
import random
import threading
from typing import Any

from engines import game_spec
from engines.records import replay
from hub.errors import HubError
from hub.facade import Hub
from hub.tournament.service import TournamentService
from hub.tournament.sim import player_names

log = logging.getLogger("hub.tournament")

SPEC: dict[str, Any] = {"game": "trike", "format": "swiss", "rounds": 3, "check_in": False,
                        "options": {"size": 5}}
PLAYERS = 8
STATIONS = ("row1", "row2")


class DemoTournament:
    """A tournament that plays itself on ``hub`` (see the module doc); ``move_s`` is the
    pause between two moves of a table."""

    def __init__(self, hub: Hub, seed: int, *, move_s: float = 1.0, service: TournamentService | None = None) -> None:
        self.hub = hub
        self.service = service or hub.tournaments
        self.rng = random.Random(seed)
        self.seed = seed
        self.move_s = move_s
        self.current = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> str:
        """Create the first tournament and start playing; returns its id."""
        self.current = self._new(1)
        self._thread = threading.Thread(target=self._run, name="demo-tournament", daemon=True)
        self._thread.start()
        return self.current

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _new(self, n: int) -> str:
        tid = f"demo{n}"
        if tid not in self.service.ids():
            self.service.create({**SPEC, "name": f"Demo Trike #{n}", "seed": self.seed + n}, tournament_id=tid)
            for name in player_names(PLAYERS):
                self.service.submit(tid, {"type": "register", "player": {"name": name}})
            for station in STATIONS:
                self.service.submit(tid, {"type": "station", "station": {"id": station, "seats": 2}})
            self.service.submit(tid, {"type": "start"})
        return tid

    def _run(self) -> None:
        n = 1
        while not self._stop.wait(self.move_s):
            try:
                view = self.service.view(self.current)
                if view["status"] == "finished":
                    if self._stop.wait(10 * self.move_s):  # the podium stays up a moment
                        return
                    n += 1
                    self.current = self._new(n)
                    continue
                for m in view["matches"]:
                    if m["status"] == "called" and m["table"]:
                        self._move(m["table"])
            except (HubError, ValueError) as err:
                log.warning("demo tournament: %s", err)

    def _move(self, table_id: str) -> None:
        """One random legal move on the table (its result reports itself at the end)."""
        if self.hub.game_over(table_id):
            self.service.table_changed(table_id)  # in case the follower missed it
            return
        state = replay(self.hub.export(table_id))
        action = self.rng.choice(state.legal_actions())
        move = game_spec(state.game.name).action_to_json(action)
        self.hub.submit(table_id, {"move": move, "by": "demo"})
