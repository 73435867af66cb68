"""Trigono throws from sensor drops, as pure functions of plain values (the referee,
:mod:`hub.tables.referee`, holds the state and calls these).

An open *throw* is ``{"player", "drops": [DROP, …], "invalid", "closes_at"}``; a drop is
``{"hole", "from", "entry", "kind", "board", "boot", "t_us"}``. An *action item* of a
table is ``{"action": JSON, "src": [entry ids], "by": str}``.

>>> drops = [{"hole": "B1.small", "from": "B1", "entry": 7}, {"hole": "B1.big", "from": "B1", "entry": 8}]
>>> [r[0]["throw"]["to"] for r in readings({"player": "Ana", "drops": drops, "invalid": False})]
['B1.small', 'B1.big']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware import protocol

JSONDict = dict[str, Any]
BoardClock = Callable[[str, int], "int | None"]  # (board, boot) -> t_us shown, all stored up to it

DECIDE_S = 0.4  # a board reports a passage ~confirm_ms (300 ms) after its leading edge
FALLBACK_S = 10.0  # a board that shows nothing more: the window closes on the hub's clock


def readings(throw: JSONDict) -> list[tuple[JSONDict, list[int]]]:
    """Each way to read the drops as one throw, most likely first: the first drop is the
    thrown palet and the others were knocked in (T12), then each other drop as the
    thrown one. Returns (action, source entry ids) pairs."""
    drops = throw["drops"]
    out = []
    for k in range(len(drops)):
        thrown, others = drops[k], drops[:k] + drops[k + 1:]
        action: JSONDict = {"player": throw["player"], "to": thrown["hole"]}
        if throw["invalid"]:
            action["invalid"] = True
        if others:
            action["knocked"] = [{"from": d["from"], "to": d["hole"]} for d in others]
        out.append(({"throw": action}, [d["entry"] for d in [thrown, *others]]))
    return out


def past_window(throw: JSONDict, msg: JSONDict, settle_s: float) -> bool:
    """Whether a sensor message shows the open throw's settle window is over.

    The window is measured on the board's own clock (``t_us``), so a backlog that
    arrives all at once (after a Wi-Fi drop or a hub restart) is refereed exactly as it
    happened. A message from another board (or boot) always closes it: the two clocks
    cannot be compared, and a knock-in across boards is for the referee to amend.

    >>> throw = {"drops": [{"board": "B1", "boot": 1, "t_us": 1_000_000}]}
    >>> [past_window(throw, {"board": b, "boot": 1, "t_us": t}, 1.0)
    ...  for b, t in (("B1", 1_500_000), ("B1", 2_500_000), ("B2", 1_500_000))]
    [False, True, True]
    """
    first = throw["drops"][0]
    elapsed = protocol.t_us_diff(msg.get("t_us", 0), first.get("t_us") or 0)  # t_us wraps at 2**30
    return bool(msg.get("board") != first.get("board") or msg.get("boot") != first.get("boot")
                or not 0 <= elapsed <= settle_s * 1e6)


def last_hole_throw(actions: list[JSONDict]) -> int | None:
    """Index of the last throw that ended in a hole (the one a late ``invalid``, T10,
    marks), or None.

    >>> last_hole_throw([{"action": {"throw": {"to": "B1.big"}}}, {"action": {"throw": {"to": "floor"}}}])
    0
    """
    for index in range(len(actions) - 1, -1, -1):
        throw = actions[index]["action"].get("throw")
        if throw is not None and throw["to"] != "floor" and not throw["to"].startswith("board:"):
            return index
    return None


def settle_over(throw: JSONDict, settle_s: float, now: float, clock: BoardClock | None) -> bool:
    """Whether the open throw's settle window is over.

    With ``clock`` (the hub's: the newest ``t_us`` of a board boot up to which every
    event is stored), the window is over only when the board has *shown* that its own
    time passed it (+ :data:`DECIDE_S`, the firmware's decision delay) — a knock-in
    delayed by the network (a broker restart, a resend) still joins it (issue 13,
    finding 6) — or, for a board that went silent, :data:`FALLBACK_S` after the window
    on the hub's clock. Without ``clock`` the hub's clock closes it.
    """
    first = throw["drops"][0]
    if clock is None:
        return bool(now >= throw["closes_at"])
    shown = clock(first["board"], first["boot"]) if first.get("t_us") is not None else None
    return bool((shown is not None and protocol.t_us_diff(shown, first["t_us"]) > (settle_s + DECIDE_S) * 1e6)
                or now >= throw["closes_at"] + FALLBACK_S)


def without_entry(actions: list[JSONDict], entry_id: int) -> list[JSONDict] | None:
    """The action items once sensor entry ``entry_id`` is voided: the action it made is
    removed (it was the thrown palet, or not a throw), or it leaves the knock-ins; None
    when no action came from it.

    >>> items = [{"action": {"throw": {"player": "Ana", "to": "B1.small",
    ...           "knocked": [{"from": "B1", "to": "B1.big"}]}}, "src": [7, 8], "by": "sensors"}]
    >>> without_entry(items, 8)[0]["action"], without_entry(items, 7), without_entry(items, 9)
    ({'throw': {'player': 'Ana', 'to': 'B1.small'}}, [], None)
    """
    for index, item in enumerate(actions):
        if entry_id not in item["src"]:
            continue
        throw = item["action"].get("throw")
        if throw is None or item["src"][0] == entry_id:
            return actions[:index] + actions[index + 1:]
        position = item["src"].index(entry_id) - 1
        rest = [k for n, k in enumerate(throw.get("knocked") or []) if n != position]
        new = {k: v for k, v in throw.items() if k != "knocked"}
        if rest:
            new["knocked"] = rest
        changed = list(actions)
        changed[index] = {**item, "action": {"throw": new},
                          "src": [s for s in item["src"] if s != entry_id]}
        return changed
    return None


def mark_events(events: list[JSONDict], voidable: set[int], voided: list[int]) -> list[JSONDict]:
    """Events with ``voidable`` (a void of it would be accepted now: the referee's
    :meth:`~hub.tables.referee.TrigonoTable.voids_accepted`) and ``voided`` (the referee
    voided it).

    >>> [(e["voidable"], e["voided"]) for e in mark_events([{"id": 4}, {"id": 5}], {5}, [4])]
    [(False, True), (True, False)]
    """
    gone = set(voided)
    return [{**e, "voided": e["id"] in gone, "voidable": e["id"] in voidable} for e in events]


def prompt(prompt_id: str, kind: str, player: str | None, choices: list[str],
           default: str | None = None, **params: Any) -> JSONDict:
    """A question for the referee: its ``kind`` and ``params``, no words (the web says
    them in the page's language; the command line in English: hub/tables/wording.py)."""
    return {"id": prompt_id, "kind": kind, "player": player, "choices": choices, "default": default,
            "params": params}
