"""Clubs and a federation on this machine (issue 35): real nats-server processes on free
ports (tests/natsd.py), real hubs on SQLite files, their sync threads running."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from hub.sync import SyncConfig
from hub.sync.copies import ClubCopies
from hub.sync.federation import FederationSync
from hub.sync.publisher import Publisher
from hub.sync.service import start_sync
from hub.tournament.sim import play_table
from tests.natsd import Club, Federation, NatsServer

pytestmark = pytest.mark.nats


def wait_for(what: str, condition: Callable[[], Any], deadline_s: float = 30.0) -> Any:
    """Poll ``condition`` until it is true (a short pause between polls), or fail naming
    ``what``: no fixed sleeps."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class ClubSide:
    """A club: its nats-server (a leaf node of the federation's) and its hub with sync."""

    def __init__(self, root: Path, club: str, federation: Federation) -> None:
        self.club, self.root = club, root
        self.server = Club(root / "nats", club, federation)
        self.server.start()
        self.db = root / "club.db"
        self.hub: Hub | None = None
        self.open()

    def open(self) -> Hub:
        self.hub = Hub(self.db)
        start_sync(self.hub, SyncConfig("club", self.server.url, club=self.club, probe_s=0.2))
        return self.hub

    @property
    def publisher(self) -> Publisher:
        assert self.hub is not None and isinstance(self.hub.sync, Publisher)
        return self.hub.sync

    def close(self) -> None:
        if self.hub is not None:
            self.hub.close()
            self.hub = None


class FederationSide:
    def __init__(self, root: Path, clubs: list[str]) -> None:
        self.server = Federation(root / "nats", clubs)
        self.server.start()
        self.hub = Hub(root / "federation.db")
        # Its streams' duplicate window far shorter than any cut of the tests: a cut longer
        # than the window once wedged the sourcing for good (hub/sync/publisher.py).
        self.sync = FederationSync(ClubCopies(str(root / "copies.db")), self.server.user_url(), clubs,
                                   writer=self.hub.writer, store=self.hub.store, duplicate_window_s=0.2)
        self.sync.start()
        self.hub.attach_sync(self.sync)

    def close(self) -> None:
        self.hub.close()
        self.server.stop()


@pytest.fixture
def league(tmp_path: Path) -> Iterator[Callable[[list[str]], tuple[FederationSide, dict[str, ClubSide]]]]:
    made: list[Any] = []

    def make(clubs: list[str]) -> tuple[FederationSide, dict[str, ClubSide]]:
        fed = FederationSide(tmp_path / "federation", clubs)
        made.append(fed)
        sides = {}
        for club in clubs:
            sides[club] = ClubSide(tmp_path / club, club, fed.server)
            made.append(sides[club])
        return fed, sides

    yield make
    for thing in reversed(made):
        if isinstance(thing, ClubSide):
            thing.close()
            thing.server.stop()
        else:
            thing.close()


SPEC = {"game": "trike", "format": "elimination", "options": {"size": 3}, "check_in": False}


def play_tournament(hub: Hub, tid: str, players: list[tuple[str, str]], seed: int) -> None:
    """A small elimination tournament of Trike played out on ``hub`` (random moves):
    ``players`` as (name, licence)."""
    service = hub.tournaments
    service.create({**SPEC, "name": tid, "seed": seed}, tournament_id=tid)
    for name, licence in players:
        service.submit(tid, {"type": "register", "player": {"name": name, "key": licence}})
    service.submit(tid, {"type": "station", "station": {"id": "row1", "seats": 2}})
    service.submit(tid, {"type": "start"})
    rng = random.Random(seed)
    for _ in range(20):
        if service.view(tid)["status"] == "finished":
            return
        for m in [m for m in service.view(tid)["matches"] if m["status"] == "called"]:
            play_table(hub, m["table"], rng)
            service.table_changed(m["table"])
    raise AssertionError("the tournament did not finish")


def register_some(hub: Hub, tid: str, names: list[str]) -> None:
    """Entries cheaply: a tournament and its registrations (one entry each)."""
    service = hub.tournaments
    if tid not in service.ids():
        service.create({**SPEC, "name": tid}, tournament_id=tid)
    for name in names:
        service.submit(tid, {"type": "register", "player": {"name": name}})


__all__ = ["ClubSide", "FederationSide", "NatsServer", "play_tournament", "register_some", "wait_for"]
