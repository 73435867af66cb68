"""Where sync with the federation stands (issue 35), as the admin and console pages show
it: a club's one line ("synced 2 min ago · 0 waiting", "offline since 14:02 · 340
entries waiting") and the federation's table, a row per club. The hub says it through
its facade (``sync_status``); this module only words the times.

>>> sync_view({"mode": "club", "online": True, "last_contact": 1000.0, "offline_since": None,
...            "waiting": 0}, now=1130.0)["ago"]
{'key': 'sync.ago_min', 'n': 2}
>>> sync_view(None, now=0.0) is None
True
"""

from __future__ import annotations

import time
from typing import Any

JSONDict = dict[str, Any]


def ago(seconds: float) -> JSONDict:
    """How long ago, as a catalogue key and its number: seconds under a minute, minutes
    under an hour, hours under two days, then days."""
    s = max(0, int(seconds))
    if s < 60:
        return {"key": "sync.ago_s", "n": s}
    if s < 3600:
        return {"key": "sync.ago_min", "n": s // 60}
    if s < 48 * 3600:
        return {"key": "sync.ago_h", "n": s // 3600}
    return {"key": "sync.ago_d", "n": s // 86400}


def clock_time(ts: float, now: float) -> str:
    """14:02 today, else the date too (an offline stretch of days)."""
    local, today = time.localtime(ts), time.localtime(now)
    if local[:3] == today[:3]:
        return time.strftime("%H:%M", local)
    return time.strftime("%Y-%m-%d %H:%M", local)


def sync_view(status: JSONDict | None, now: float) -> JSONDict | None:
    """The hub's ``sync_status()`` with its times worded for a page."""
    if status is None:
        return None
    if status["mode"] == "club":
        view = dict(status)
        if status["online"] and status["last_contact"] is not None:
            view["ago"] = ago(now - status["last_contact"])
        else:
            view["since"] = clock_time(status["offline_since"] or now, now)
        return view
    rows = []
    for row in status["clubs"]:
        rows.append({**row, "lag_s": None if row["lag_s"] is None else round(row["lag_s"], 1),
                     "last_at_text": clock_time(row["last_at"], now) if row["last_at"] else None,
                     "contact_ago": ago(now - row["last_contact"]) if row["last_contact"] else None})
    conflicts = [{**c, "versions": [{**v, "at_text": clock_time(v["at"], now)} for v in c["versions"]]}
                 for c in status.get("conflicts", [])]
    return {**status, "clubs": rows, "conflicts": conflicts}
