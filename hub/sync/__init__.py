"""Clubs that sync with a federation over NATS JetStream (issue 35, docs/deploy.md).

A hub given ``--sync FILE`` runs in one of two modes, the file (JSON) says which:

- ``{"mode": "club", "club": "a", "nats": "nats://127.0.0.1:4222"}``: every entry the
  hub commits has the global identity (club, id) and is published, after its commit, to
  the club's own JetStream stream on its own nats-server (a leaf node of the
  federation's), message id ``<club>:<id>`` (:mod:`hub.sync.publisher`);
- ``{"mode": "federation", "nats": "nats://federation:…@host:4222", "clubs": ["a", "b"],
  "copies": "clubs.db"}``: the federation's streams source each club's, and the hub
  stores the clubs' entries as read-only copies, once each and in order per club
  (:mod:`hub.sync.federation`, :mod:`hub.sync.copies`).

A hub without ``--sync`` runs exactly as before and never imports nats. This module
imports nothing of nats either: it reads the file.

>>> SyncConfig.parse({"mode": "club", "club": "a", "nats": "nats://127.0.0.1:4222"}).club
'a'
>>> SyncConfig.parse({"mode": "federation", "nats": "nats://x", "clubs": ["a", "b"], "copies": "c.db"}).clubs
('a', 'b')
>>> SyncConfig.parse({"mode": "club", "nats": "nats://x"})
Traceback (most recent call last):
...
hub.sync.natsconf.SyncConfigError: sync config: a club needs "club" (its id)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hub.sync.natsconf import SyncConfigError, club_id

JSONDict = dict[str, Any]


@dataclass(frozen=True)
class SyncConfig:
    mode: str
    nats: str
    club: str = ""
    clubs: tuple[str, ...] = ()
    copies: str = ""
    probe_s: float = 2.0
    """How often a club asks the federation what it holds (its sync status)."""

    @classmethod
    def parse(cls, data: Any) -> SyncConfig:
        if not isinstance(data, dict) or data.get("mode") not in ("club", "federation"):
            raise SyncConfigError('sync config: expected {"mode": "club" | "federation", ...}')
        unknown = set(data) - {"mode", "nats", "club", "clubs", "copies", "probe_s"}
        if unknown:
            raise SyncConfigError(f"sync config: unknown field(s) {sorted(unknown)}")
        if not isinstance(data.get("nats"), str):
            raise SyncConfigError('sync config: "nats" (the nats-server URL) is missing')
        probe = data.get("probe_s", 2.0)
        if isinstance(probe, bool) or not isinstance(probe, (int, float)) or not 0.05 <= probe <= 3600:
            raise SyncConfigError('sync config: "probe_s": expected seconds, 0.05 to 3600')
        if data["mode"] == "club":
            if "club" not in data:
                raise SyncConfigError('sync config: a club needs "club" (its id)')
            return cls("club", data["nats"], club=club_id(data["club"]), probe_s=float(probe))
        clubs = data.get("clubs", [])
        if not isinstance(clubs, list) or not isinstance(data.get("copies"), str):
            raise SyncConfigError('sync config: a federation needs "clubs" (ids) and "copies" (a SQLite file)')
        return cls("federation", data["nats"], clubs=tuple(club_id(c) for c in clubs),
                   copies=data["copies"], probe_s=float(probe))

    @classmethod
    def load(cls, path: str | Path) -> SyncConfig:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as err:
            raise SyncConfigError(f"sync config {path}: {err}") from None
        return cls.parse(data)


class SyncService(Protocol):
    """What the facade asks of a running sync (club or federation)."""

    def status(self) -> JSONDict: ...

    def stop(self) -> None: ...
