"""Small readers of a table view (the hub's shapes: hub/service.py). What each audience
may see is the hub's business (:meth:`hub.service.Hub.public_view`, from the engine's
``observation``): the web never filters hidden information itself.

>>> view = {"seats": [{"name": "Ana", "bot": False}, {"name": "Robo", "bot": True}]}
>>> seat_names(view), human_seats(view)
(['Ana', 'Robo'], ['Ana'])
"""

from __future__ import annotations

from typing import Any

JSONDict = dict[str, Any]


def seat_names(view: JSONDict) -> list[str]:
    return [str(s.get("name")) for s in view.get("seats", []) if isinstance(s, dict)]


def human_seats(view: JSONDict) -> list[str]:
    return [str(s.get("name")) for s in view.get("seats", []) if isinstance(s, dict) and not s.get("bot")]
