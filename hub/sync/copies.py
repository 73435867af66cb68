"""The federation's copies of its clubs' entries (issue 35): one SQLite file, read-only
copies tagged with the club, each (hub, seq) at most once and, per hub, in order.

:meth:`ClubCopies.add` takes what the consumer received in one batch and says, for each,
whether it was stored, already held (a repeat: acknowledged and dropped) or early (its
predecessor is not here yet: left unacknowledged, JetStream delivers it again).

>>> copies = ClubCopies(":memory:")
>>> def e(seq): return {"hub": "a", "seq": seq, "at": 1.0, "source": "console", "table_id": None, "body": {}}
>>> copies.add("a", [e(1), e(3), e(2), e(2)], received=5.0)
['stored', 'early', 'stored', 'repeat']
>>> copies.last_seqs()
{'a': 2}
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from hub.log.store import Entry

JSONDict = dict[str, Any]
SCHEMA = """
CREATE TABLE IF NOT EXISTS club_entry (
    hub TEXT NOT NULL,
    seq INTEGER NOT NULL,
    club TEXT NOT NULL,
    at REAL NOT NULL,
    source TEXT NOT NULL,
    table_id TEXT,
    body TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (hub, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS club_entry_read_only BEFORE UPDATE ON club_entry
BEGIN SELECT RAISE(ABORT, 'copies of club entries are read-only'); END;
CREATE TRIGGER IF NOT EXISTS club_entry_no_delete BEFORE DELETE ON club_entry
BEGIN SELECT RAISE(ABORT, 'copies of club entries are read-only'); END;
"""


class ClubCopies:
    """Thread-safe (one connection under a lock)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # JetStream holds them again if lost
        self._db.executescript(SCHEMA)
        self._last = {hub: int(seq) for hub, seq in
                      self._db.execute("SELECT hub, MAX(seq) FROM club_entry GROUP BY hub")}
        self.refused = 0
        """Messages refused: another hub's id in a club's stream (a forged entry)."""

    def last_seqs(self) -> dict[str, int]:
        with self._lock:
            return dict(self._last)

    def add(self, club: str, items: Sequence[JSONDict], received: float) -> list[str]:
        """Store a batch of one club's entries (one transaction); per item ``stored``,
        ``repeat`` or ``early``."""
        verdicts: list[str] = []
        with self._lock:
            rows = []
            last = self._last.get(club, 0)
            for item in items:
                seq = int(item["seq"])
                if seq <= last:
                    verdicts.append("repeat")
                elif seq > last + 1:
                    verdicts.append("early")
                else:
                    last = seq
                    rows.append((club, seq, club, float(item["at"]), str(item["source"]),
                                 item.get("table_id"), json.dumps(item["body"], separators=(",", ":")),
                                 received))
                    verdicts.append("stored")
            if rows:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT INTO club_entry VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
                self._db.execute("COMMIT")
                self._last[club] = last
        return verdicts

    def entries(self, club: str, after: int = 0) -> Iterator[Entry]:
        """A club's copies in order, as entries (``id`` is the club's own)."""
        with self._lock:
            rows = self._db.execute("SELECT seq, at, source, table_id, body FROM club_entry"
                                    " WHERE hub = ? AND seq > ? ORDER BY seq", (club, after)).fetchall()
        for seq, at, source, table_id, body in rows:
            yield Entry(int(seq), at, source, table_id, json.loads(body))

    def newest(self, club: str) -> tuple[int, float, float] | None:
        """(seq, at, received) of a club's newest copy."""
        with self._lock:
            row = self._db.execute("SELECT seq, at, received FROM club_entry WHERE hub = ?"
                                   " ORDER BY seq DESC LIMIT 1", (club,)).fetchone()
        return None if row is None else (int(row[0]), float(row[1]), float(row[2]))

    def close(self) -> None:
        with self._lock:
            self._db.close()
