"""What each audience may see of a table view (the hub's shapes: hub/service.py).

The public (dashboard, stream, API without login) never sees what a player hides:
the seed (it fixes every future draw) and the other players' racks (each hidden tile
becomes ``null``, so a rack keeps its length). A seated player sees their own rack.

>>> view = {"id": "t1", "seed": 7, "state": {"racks": {"Ana": ["0-1-2"], "Ben": ["1-1-1", "2-3-4"]}}}
>>> public_view(view)["state"]["racks"]
{'Ana': [None], 'Ben': [None, None]}
>>> public_view(view, you="Ben")["state"]["racks"]
{'Ana': [None], 'Ben': ['1-1-1', '2-3-4']}
>>> "seed" in public_view(view)
False
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from engines.core import GameError
from engines.records import replay

JSONDict = dict[str, Any]

PRIVATE_FIELDS = ("seed",)


def public_view(view: JSONDict, you: str | None = None) -> JSONDict:
    """A copy of ``view`` without hidden information (``you`` keeps their own rack)."""
    shown = {k: v for k, v in view.items() if k not in PRIVATE_FIELDS}
    state = view.get("state")
    if isinstance(state, dict) and isinstance(state.get("racks"), dict):
        state = copy.copy(state)
        state["racks"] = {
            player: (list(rack) if player == you else [None] * len(rack))
            if isinstance(rack, list)
            else rack
            for player, rack in state["racks"].items()
        }
        shown["state"] = state
    return shown


def seat_names(view: JSONDict) -> list[str]:
    return [str(s.get("name")) for s in view.get("seats", []) if isinstance(s, dict)]


def human_seats(view: JSONDict) -> list[str]:
    return [str(s.get("name")) for s in view.get("seats", []) if isinstance(s, dict) and not s.get("bot")]


class LegalActions:
    """Legal actions of a table's position, in the record notation.

    The hub's view carries the printed state only; the engine state is rebuilt once per
    table change from the hub's game record (``Hub.export``) and cached by change id.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[Any, list[Any]]] = {}

    def for_view(self, hub: Any, view: JSONDict) -> list[Any]:
        table_id = str(view["id"])
        key = view.get("change_id")
        with self._lock:
            cached = self._cache.get(table_id)
        if cached is not None and cached[0] == key:
            return cached[1]
        actions = self._compute(hub, table_id)
        with self._lock:
            self._cache[table_id] = (key, actions)
        return actions

    @staticmethod
    def _compute(hub: Any, table_id: str) -> list[Any]:
        record = hub.export(table_id)
        try:
            state = replay(record)
        except GameError:
            return []
        if state.is_terminal():
            return []
        return [state.game.action_to_json(a) for a in state.legal_actions()]
