"""What each audience may see of a table view (the hub's shapes: hub/service.py).

The public (dashboard, stream, API without login) never sees what a player hides:
the seed (it fixes every future draw), the other players' racks (each hidden tile
becomes ``null``, so a rack keeps its length), the tiles they put back in an exchange,
and the bot's hint (it names a tile of the asker's rack). A seated player sees their own
rack and exchanges; the play view adds the hint for the player to move.

>>> view = {"id": "t1", "seed": 7, "state": {"racks": {"Ana": ["0-1-2"], "Ben": ["1-1-1", "2-3-4"]}}}
>>> public_view(view)["state"]["racks"]
{'Ana': [None], 'Ben': [None, None]}
>>> public_view(view, you="Ben")["state"]["racks"]
{'Ana': [None], 'Ben': ['1-1-1', '2-3-4']}
>>> "seed" in public_view(view)
False
>>> log = [{"player": "Ana", "action": {"exchange": [3, 5]}, "points": 0}]
>>> public_view({"state": {"log": log}})["state"]["log"][0]["action"]
{'exchange': [None, None]}
>>> public_view({"state": {"log": log}}, you="Ana")["state"]["log"][0]["action"]
{'exchange': [3, 5]}
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from engines.core import GameError
from engines.records import replay

JSONDict = dict[str, Any]

PRIVATE_FIELDS = ("seed", "hint")


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
    if isinstance(state, dict) and isinstance(state.get("log"), list):
        state = copy.copy(state)
        state["log"] = [hide_exchange(entry, you) for entry in state["log"]]
        shown["state"] = state
    return shown


def hide_exchange(entry: Any, you: str | None) -> Any:
    """Triolet's exchange names the tokens put back; only their owner may see them."""
    if not isinstance(entry, dict) or entry.get("player") == you:
        return entry
    action = entry.get("action")
    if isinstance(action, dict) and isinstance(action.get("exchange"), list):
        return {**entry, "action": {**action, "exchange": [None] * len(action["exchange"])}}
    return entry


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
