"""Small readers of a table view (the hub's shapes: hub/facade.py). What each audience
may see is the hub's business (:meth:`hub.facade.Hub.public_view`, from the engine's
``observation``): the web never filters hidden information itself.

>>> view = {"seats": [{"name": "Ana", "bot": False}, {"name": "Robo", "bot": True}]}
>>> seat_names(view), human_seats(view)
(['Ana', 'Robo'], ['Ana'])
>>> [t["id"] for t in live_first([{"id": "a", "status": "over"}, {"id": "b", "status": "playing"},
...                               {"id": "c", "status": "playing", "archived": True}])]
['b', 'a', 'c']
"""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]


def seat_names(view: JSONDict) -> list[str]:
    return [str(s.get("name")) for s in view.get("seats", []) if isinstance(s, dict)]


def human_seats(view: JSONDict) -> list[str]:
    return [str(s.get("name")) for s in view.get("seats", []) if isinstance(s, dict) and not s.get("bot")]


def live_first(summaries: list[JSONDict]) -> list[JSONDict]:
    """Table summaries (``Hub.list_tables``) with the tables in play first, then the
    finished ones, then the archived or abandoned ones; oldest first within each."""

    def place(summary: JSONDict) -> int:
        if summary.get("archived") or summary.get("abandoned"):
            return 2
        return 0 if summary.get("status") == "playing" and not summary.get("winner") else 1

    return sorted(summaries, key=place)  # sorted() is stable: the hub's order stays within a group
