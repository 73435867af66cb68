"""What a table's boards are, from the hub's board health (``Hub.boards()``): a table is
ready only when every board it binds is online and sound — a board that never said hello
(a typo in its id, one not switched on) is *never seen*, not armed.

>>> board_state({"status": "unknown", "last_seen": None})
'never_seen'
>>> board_state({"status": "lost", "last_seen": 10.0})
'offline'
>>> board_state({"status": "online", "last_seen": 10.0, "blocked": ["big"]})
'faulty'
>>> board_state({"status": "online", "last_seen": 10.0, "same_id": {"links": [], "boots": [3, 9]}})
'faulty'
>>> board_state({"status": "online", "last_seen": 10.0})
'online'
"""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]

STATES = ("never_seen", "offline", "faulty", "online")  # worst first


def board_state(health: JSONDict | None) -> str:
    if not health or (health.get("last_seen") is None and health.get("status") != "online"):
        return "never_seen"
    if health.get("status") != "online":
        return "offline"
    if health.get("beam_faults") or health.get("blocked") or health.get("crash") or health.get("overflow"):
        return "faulty"
    if health.get("same_id"):  # two boards claim its id: nothing it sends is scored (issue 32.3)
        return "faulty"
    return "online"


def board_states(health: list[JSONDict]) -> list[JSONDict]:
    """What every page may show of the boards: each one's state and the table binding it,
    ``{"board", "table", "state"}`` by board id (the live feed pushes it when it changes).

    >>> board_states([{"board": "A", "status": "lost", "last_seen": 3.0, "table": "t1", "corrupt": 2}])
    [{'board': 'A', 'table': 't1', 'state': 'offline'}]
    """
    return [{"board": h.get("board"), "table": h.get("table"), "state": board_state(h)} for h in health]


def table_boards(view: JSONDict, health: list[JSONDict]) -> list[JSONDict]:
    """Each board the table binds: ``{"board", "as", "state", "last_seen"}``, in layout order."""
    by_board = {h.get("board"): h for h in health}
    out = []
    for entry in view.get("layout") or []:
        h = by_board.get(entry.get("board"))
        out.append({"board": entry.get("board"), "as": entry.get("as"), "state": board_state(h),
                    "last_seen": (h or {}).get("last_seen")})
    return out


def readiness(view: JSONDict, boards: list[JSONDict]) -> str:
    """The table's readiness: the worst of its boards' states, ``armed`` when every board is
    online and the table's sensors are armed, ``not_armed`` when they are online but not
    armed (between rounds), ``no_boards`` for a table without boards."""
    if not boards:
        return "no_boards"
    worst = min(STATES.index(b["state"]) for b in boards)
    if STATES[worst] != "online":
        return STATES[worst]
    return "armed" if view.get("armed") else "not_armed"


def free_boards(health: list[JSONDict], unregistered: list[JSONDict], busy_tables: set[str]) -> list[JSONDict]:
    """Connected boards a new table may bind: online boards bound to no table, or to a table
    that is over (``busy_tables`` are the tables still in play), and boards heard that no
    table binds. ``{"board", "last_seen", "state"}``, by board id.

    >>> free_boards([{"board": "A", "status": "online", "last_seen": 1.0, "table": "t1"},
    ...              {"board": "B", "status": "online", "last_seen": 2.0, "table": "t2"},
    ...              {"board": "C", "status": "lost", "last_seen": 3.0, "table": None}],
    ...             [{"board": "D", "last_seen": 4.0, "ignored": False}], {"t1"})
    [{'board': 'B', 'last_seen': 2.0, 'state': 'online'}, {'board': 'D', 'last_seen': 4.0, 'state': 'online'}]
    """
    found: dict[str, JSONDict] = {}
    for h in health:
        state = board_state(h)
        if state in ("online", "faulty") and h.get("table") not in busy_tables:
            found[str(h["board"])] = {"board": h["board"], "last_seen": h.get("last_seen"), "state": state}
    for u in unregistered:
        if not u.get("ignored") and str(u.get("board")) not in found:
            found[str(u["board"])] = {"board": u["board"], "last_seen": u.get("last_seen"), "state": "online"}
    return [found[k] for k in sorted(found)]


STATE_ORDER = ("online", "faulty")


def board_choices(health: list[JSONDict], unregistered: list[JSONDict], busy_tables: set[str]) -> list[JSONDict]:
    """The boards a binding page offers (issue 32.21): the connected free boards
    (:func:`free_boards`, ``table`` None), online ones first, then those heard with a
    fault; then the boards bound to a table still in play, shown as taken (``table``: that
    table) — a new table cannot bind them. ``{"board", "last_seen", "state", "table"}``.

    >>> [(c["board"], c["state"], c["table"]) for c in board_choices(
    ...     [{"board": "A", "status": "online", "last_seen": 1.0, "table": "t1"},
    ...      {"board": "B", "status": "online", "last_seen": 2.0, "beam_faults": ["big"]},
    ...      {"board": "C", "status": "online", "last_seen": 3.0}], [], {"t1"})]
    [('C', 'online', None), ('B', 'faulty', None), ('A', 'online', 't1')]
    """
    free = [{**b, "table": None} for b in free_boards(health, unregistered, busy_tables)]
    free.sort(key=lambda b: STATE_ORDER.index(b["state"]))
    taken = [{"board": h["board"], "last_seen": h.get("last_seen"), "state": board_state(h), "table": h["table"]}
             for h in sorted(health, key=lambda h: str(h["board"])) if h.get("table") in busy_tables]
    return free + taken


def busy_tables(summaries: list[JSONDict]) -> set[str]:
    """Tables still in play (``Hub.list_tables``): their boards are not free."""
    return {str(s["id"]) for s in summaries
            if s.get("status") == "playing" and not s.get("winner") and not s.get("archived") and not s.get("abandoned")}
