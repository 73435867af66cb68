"""The fleet at a glance: one row per board seen or configured, sorted by trouble (pure).

A row says what the hub knows of a board (:class:`hub.devices.health.BoardHealth`) in
the terms an organizer acts on: is it running the target firmware and config, is it
there, did it reboot today and why, how well it hears (Wi-Fi) and sees (each beam: its
state, last crossing, self-test), how much it holds unacknowledged (journal), how far
its clock drifts, which table and position it serves and whether a match is live on it.
``trouble`` is a number (higher: look first) and ``troubles`` its reasons as kinds with
no words (the web's catalogue words them, ``fleet.trouble.<kind>``).

>>> rows = fleet_rows([{"board": "B1", "status": "online", "fw": "1.0", "last_seen": 90.0},
...                    {"board": "B2", "status": "lost", "fw": "1.1", "last_seen": 10.0}],
...                   Target(fw="1.1"), now=100.0)
>>> [(r["board"], r["troubles"]) for r in rows]
[('B2', ['offline']), ('B1', ['outdated'])]
>>> [r["board"] for r in select(rows, "outdated")], [r["board"] for r in select(rows, "offline")]
(['B1'], ['B2'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

JSONDict = dict[str, Any]

# How much each trouble weighs in the sort (higher first): what stops a match first.
TROUBLES = {
    "offline": 100,      # the board is not heard: its holes score nothing
    "never_seen": 90,    # configured (bound to a table) but never heard
    "same_id": 80,       # two boards claim its id
    "update_failed": 70,  # the last update of this board failed
    "beam_fault": 60,    # a beam failed its self-test or is dead
    "blocked": 50,       # a beam is held cut
    "crashed": 40,       # rebooted today after a crash or a watchdog reset
    "outdated": 30,      # firmware or config is not the target
    "journal": 20,       # holds many unacknowledged events
    "weak_wifi": 15,     # Wi-Fi signal below WEAK_RSSI
    "clock_skew": 10,    # its clock drifted more than SKEW_MS from the hub's
    "rebooted": 5,       # rebooted today (no crash told)
}
WEAK_RSSI = -80  # dBm
SKEW_MS = 500.0
JOURNAL_DEEP = 16  # unacknowledged events (the outbox holds 64)
FILTERS = ("all", "outdated", "offline", "live", "trouble")
NOISE_COUNTERS = ("a_missed", "edge_overflow", "bad_input", "line_one_plane")


@dataclass(frozen=True)
class Target:
    """The firmware version and config hash the fleet should run (None: any)."""

    fw: str | None = None
    config: str | None = None


@dataclass(frozen=True)
class Placement:
    """Where a board serves: its table, its position there (the engine board it stands
    for) and whether a match is live on that table."""

    table: str
    position: str | None
    live: bool


def selftest_results(health: Mapping[str, Any], before: int | None) -> dict[str, str]:
    """Each beam's self-test result as the board's health says it, once the board has
    completed a self-test of every hole since it was asked: its ``selftests`` counter
    was ``before`` then (the firmware counts each hole's completed test). ``fault`` or
    ``ok`` from then on, ``pending`` before; ``{}`` when none was asked.

    >>> h = {"holes": ["big", "small"], "beams": {"big": "open", "small": "fault"}, "beam_faults": ["small"],
    ...      "counters": {"selftests": 6}}
    >>> selftest_results(h, 4), selftest_results(h, 5)
    ({'big': 'ok', 'small': 'fault'}, {'big': 'pending', 'small': 'pending'})
    """
    if before is None:
        return {}
    holes = list(health.get("holes") or []) or sorted(health.get("beams") or {})
    done = (health.get("counters") or {}).get("selftests", 0)
    if done < before + len(holes):
        return dict.fromkeys(holes, "pending")
    beams = health.get("beams") or {}
    faults = set(health.get("beam_faults") or [])
    return {h: "fault" if beams.get(h) == "fault" or h in faults else "ok" for h in holes}


def fleet_rows(health: Iterable[Mapping[str, Any]], target: Target, now: float, *,
               placements: Mapping[str, Placement] | None = None, day_start: float | None = None,
               selftests: Mapping[str, int] | None = None,
               updates: Mapping[str, Mapping[str, Any]] | None = None) -> list[JSONDict]:
    """One row per board of ``health`` (``BoardHealth.to_json`` values, with the boards
    configured but never heard as ``{"board": id}``), most trouble first, then by id.
    ``placements``: where each board serves; ``day_start``: when "today" began (reboots
    counted from there; default: the last 24 h); ``selftests``: board → its self-test
    counter when a self-test was asked; ``updates``: board → its state in the current rollout."""
    placements = placements or {}
    since = now - 86400 if day_start is None else day_start
    rows = [_row(h, target, now, placements.get(h["board"]), since, (selftests or {}).get(h["board"]),
                 (updates or {}).get(h["board"]))
            for h in health]
    # The worst trouble first (an offline board before any number of small ones), then the sum.
    rows.sort(key=lambda r: (-(TROUBLES[r["troubles"][0]] if r["troubles"] else 0), -r["trouble"], r["board"]))
    return rows


def _row(h: Mapping[str, Any], target: Target, now: float, placement: Placement | None, since: float,
         selftest_at: int | None, update: Mapping[str, Any] | None) -> JSONDict:
    status = h.get("status", "unknown")
    seen = h.get("last_seen")
    fw, config = h.get("fw"), h.get("config")
    fw_ok = target.fw is None or fw == target.fw
    config_ok = target.config is None or config == target.config
    known = h.get("starts") or []
    starts = [s for s in known if s["at"] >= since]
    # The first start the hub knows of is the board's power-on, not a reboot.
    reboots = len(starts) - (1 if starts and starts[0] is known[0] else 0)
    crashes = [s["crash"] for s in starts if s.get("crash")]
    counters = h.get("counters") or {}
    rssi = h.get("rssi")
    skew = h.get("clock_skew_ms")
    results = selftest_results(h, selftest_at)
    holes = list(h.get("holes") or []) or sorted(h.get("beams") or {})
    beams = [{"hole": hole, "state": (h.get("beams") or {}).get(hole, "unknown"),
              "last_crossing": (h.get("crossings") or {}).get(hole),
              "selftest": results.get(hole)} for hole in holes]
    troubles = []
    if seen is None:
        troubles.append("never_seen")
    elif status != "online":
        troubles.append("offline")
    if h.get("same_id"):
        troubles.append("same_id")
    if update is not None and update.get("state") == "failed":
        troubles.append("update_failed")
    if h.get("beam_faults") or any(b["state"] == "fault" for b in beams):
        troubles.append("beam_fault")
    if h.get("blocked"):
        troubles.append("blocked")
    if crashes:
        troubles.append("crashed")
    elif reboots:
        troubles.append("rebooted")
    if seen is not None and not (fw_ok and config_ok):
        troubles.append("outdated")
    journal = counters.get("unacked")
    if journal is not None and journal >= JOURNAL_DEEP:
        troubles.append("journal")
    if isinstance(rssi, int) and rssi < WEAK_RSSI:
        troubles.append("weak_wifi")
    if isinstance(skew, (int, float)) and abs(skew) > SKEW_MS:
        troubles.append("clock_skew")
    troubles.sort(key=lambda k: -TROUBLES[k])
    return {
        "board": h["board"],
        "status": "never_seen" if seen is None else status,
        "online": status == "online",
        "last_seen": seen,
        "silent_s": None if seen is None else round(max(0.0, now - seen), 1),
        "fw": fw, "fw_ok": fw_ok, "config": config, "config_ok": config_ok,
        "outdated": seen is not None and not (fw_ok and config_ok),
        "reboots_today": reboots,
        "crashes": crashes,
        "crash": h.get("crash"),
        "rssi": rssi,
        "link": h.get("link"),
        "beams": beams,
        "noise": {k: counters[k] for k in NOISE_COUNTERS if k in counters},
        "journal": journal,
        "overflow": h.get("overflow", 0),
        "clock_skew_ms": skew,
        "uptime_s": h.get("uptime_s"),
        "table": placement.table if placement else h.get("table"),
        "position": placement.position if placement else None,
        "live": bool(placement and placement.live),
        "rollout": dict(update) if update is not None else None,
        "trouble": sum(TROUBLES[k] for k in troubles),
        "troubles": troubles,
    }


def select(rows: Iterable[JSONDict], which: str) -> list[JSONDict]:
    """The rows a filter keeps: ``outdated``, ``offline`` (never seen too), ``live`` (a
    match is live on it), ``trouble`` (any), ``all``."""
    if which not in FILTERS:
        raise ValueError(f"fleet filter {which!r}: expected one of {', '.join(FILTERS)}")
    keep: dict[str, Callable[[JSONDict], bool]] = {
        "all": lambda r: True,
        "outdated": lambda r: bool(r["outdated"]),
        "offline": lambda r: not r["online"],
        "live": lambda r: bool(r["live"]),
        "trouble": lambda r: bool(r["trouble"] > 0),
    }
    test = keep[which]
    return [r for r in rows if test(r)]


def summary(rows: list[JSONDict]) -> JSONDict:
    """Counts for the page's header and filters."""
    return {"boards": len(rows), "online": sum(r["online"] for r in rows),
            "outdated": sum(r["outdated"] for r in rows), "offline": sum(not r["online"] for r in rows),
            "live": sum(r["live"] for r in rows), "trouble": sum(r["trouble"] > 0 for r in rows)}
