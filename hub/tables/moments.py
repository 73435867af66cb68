"""What just happened at a table, said by the hub: *moments* (a ``kind`` with ``params``).

A moment is what the announcement band, the sounds and the animations show: a palet in
a big hole taking N palets, a jackpot, an elimination, a round won, the final, the match
won, and — just as much — a throw undone or corrected. The hub works them out from the
game record as each action is applied (the engine's log entry and its structured
``last_events``), so every page gets the same moments in its own words (web catalogue
keys ``moment.<kind>``) and no page has to guess them by comparing two views (which is
why an undone throw used to stay on the band: nothing new had arrived to replace it).

Each moment carries ``seq`` (increasing per table: a page shows those newer than the
last it saw) and ``action`` (the index in the game record it is about; an undone or
amended action's moments are taken back, so a page opened later does not show them).

>>> after_action({"player": "Ana", "action": {"throw": {"player": "Ana", "to": "B1.big"}},
...               "points": 3}, [{"type": "take", "player": "Ana", "palets": 3, "holes": ["B1.big"]}])
[{'kind': 'big', 'params': {'player': 'Ana', 'n': 3, 'hole': 'B1.big'}}]
>>> [m["kind"] for m in after_action({"player": "Ben", "action": {"throw": {"player": "Ben", "to": "floor"}},
...   "points": 0}, [{"type": "eliminated", "player": "Ben"}, {"type": "round_won", "round": 1, "player": "Ana"}])]
['floor', 'eliminated', 'round_won']
>>> after_action({"player": "Ana", "action": "c2", "points": 0}, [])
[{'kind': 'move', 'params': {'player': 'Ana'}}]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engines import GAMES
from engines.core import PlaceLabel

MAX_MOMENTS = 12  # kept for the view: a page that missed more takes the snapshot anyway

# Big moments: the big screen moves to their table and the band turns gold.
MAJOR = frozenset({"jackpot", "round_won", "round_drawn", "match_won", "final"})


Places = Callable[[str], PlaceLabel]
"""A game's reading of the place ids its actions name (its spec's ``place_label``:
Trigono's typed :class:`engines.trigono.places.Place`)."""


def place_label(where: str, places: Places | None = None) -> PlaceLabel:
    """The label kind and parameters naming a hole or a landing place (the words are
    the web's: catalogue key ``where.<kind>``), read by ``places``: the table's game's
    reading; by default that of the game played on sensor boards (the one whose events
    name places).

    >>> place_label("B1.big"), place_label("board:B2"), place_label("jackpot.2"), place_label("floor")
    (('big', {'board': 'B1'}), ('board', {'board': 'B2'}), ('jackpot_n', {'n': '2'}), ('floor', {}))
    """
    read = places or _sensor_places()
    return read(where) if read is not None else ("board", {"board": where})


def _sensor_places() -> Places | None:
    return next((s.place_label for s in GAMES.values() if s.game_type.sensor_boards and s.place_label), None)


def label(where: str, places: Places | None = None) -> dict[str, Any]:
    """A place as the pages word it: ``{"kind": ..., **params}`` (catalogue ``where.<kind>``).

    >>> label("B2.small")
    {'kind': 'small', 'board': 'B2'}
    """
    kind, params = place_label(where, places)
    return {"kind": kind, **params}


def place_labels(printed: Mapping[str, Any], places: Places | None) -> dict[str, dict[str, Any]]:
    """Every place a printed state names (its boards, the floor, its holes, the final's
    target), in that order, with its label: where a palet can be said to rest, and what
    a page needs to word the state's places. Nothing for a game whose actions name no
    places (``places`` None).

    >>> from engines import game_spec
    >>> place_labels({"holes": {"B1.big": 0}, "boards": {"B1": 2}, "target": "jackpot"},
    ...              game_spec("trigono").place_label)["B1.big"]
    {'kind': 'big', 'board': 'B1'}
    """
    holes = printed.get("holes")
    if places is None or not isinstance(holes, Mapping):
        return {}
    where = [*(f"board:{b}" for b in printed.get("boards") or {}), "floor", *holes]
    if isinstance(printed.get("target"), str):
        where.append(printed["target"])
    return {w: label(w, places) for w in where}


def _throw_moment(entry: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                  places: Places | None) -> dict[str, Any] | None:
    thrown = entry["action"]["throw"]
    player, points = entry.get("player"), int(entry.get("points") or 0)
    to = str(thrown.get("to", ""))
    taken = next((int(e["palets"]) for e in events if e.get("type") == "take"), points)
    if thrown.get("invalid"):
        return {"kind": "invalid", "params": {"player": player, "hole": to}}
    kind, params = place_label(to, places)
    if kind in ("big", "small"):
        return {"kind": kind, "params": {"player": player, "n": taken, "hole": to}}
    if kind in ("jackpot", "jackpot_n"):
        return {"kind": "jackpot", "params": {"player": player, "n": taken, "hole": to}}
    if taken > 0:
        return {"kind": "points", "params": {"player": player, "n": taken}}
    if kind == "floor":
        return {"kind": "floor", "params": {"player": player}}
    return {"kind": "board", "params": {"player": player, "board": params.get("board")}}


def _event_moment(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """A Trigono engine event (engines/trigono/events.py) as a moment, or None for the
    ones the band does not show (the start of a round, a take: in the throw's moment)."""
    kind = event.get("type")
    if kind in ("eliminated", "last_chance", "match_won"):
        return {"kind": kind, "params": {"player": event.get("player")}}
    if kind == "round_won":
        return {"kind": kind, "params": {"player": event.get("player"), "round": event.get("round")}}
    if kind == "round_drawn":
        return {"kind": kind, "params": {"round": event.get("round")}}
    if kind == "step_back":
        return {"kind": kind, "params": {"m": f"{float(event.get('throw_distance_m', 0)):.2f}"}}
    if kind == "final":
        return {"kind": kind, "params": {"finalists": list(event.get("finalists") or []),
                                         "hole": event.get("target")}}
    if kind == "target":
        return {"kind": kind, "params": {"player": event.get("player"), "hole": event.get("hole")}}
    return None


def after_action(entry: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                 places: Places | None = None) -> list[dict[str, Any]]:
    """The moments of one applied action: ``entry`` is the engine's log entry for it
    (``player``, ``action``, ``points``), ``events`` the structured events it caused
    (Trigono's ``last_events``; other games have none); ``places``: the game's reading
    of place ids."""
    action = entry.get("action")
    player = entry.get("player")
    out: list[dict[str, Any]] = []
    if isinstance(action, dict) and isinstance(action.get("throw"), dict):
        found = _throw_moment(entry, events, places)
        if found is not None:
            out.append(found)
    elif not (isinstance(action, dict) and "target" in action):
        points = entry.get("points")
        if isinstance(points, int) and points > 0:
            out.append({"kind": "points", "params": {"player": player, "n": points}})
        else:
            out.append({"kind": "move", "params": {"player": player}})
    for event in events:
        found = _event_moment(event)
        if found is not None:
            out.append(found)
    return out


def taken_back(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The moments of a correction (undo, amend, void: the action list ``old`` became
    ``new``): each action removed from the end is ``undone``, each one changed is
    ``amended`` (with the index of the game record the log shows).

    >>> a, b = {"action": {"throw": {"player": "Ana", "to": "B1.big"}}}, {"action": "c2"}
    >>> taken_back([a, b], [a])
    [{'kind': 'undone', 'params': {'player': None, 'index': 1}, 'action': 1}]
    >>> taken_back([a], [{"action": {"throw": {"player": "Ana", "to": "floor"}}}])[0]["kind"]
    'amended'
    """
    out: list[dict[str, Any]] = []
    for index, item in enumerate(old):
        if index >= len(new):
            out.append({"kind": "undone", "params": {"player": actor(item), "index": index}, "action": index})
        elif new[index].get("action") != item.get("action"):
            out.append({"kind": "amended", "params": {"player": actor(new[index]), "index": index},
                        "action": index})
    return out


def actor(item: Mapping[str, Any]) -> Any:
    """The player an item of the action list names (a Trigono throw says who threw), or
    its ``player`` field, or None."""
    action = item.get("action")
    if isinstance(action, dict):
        for value in action.values():
            if isinstance(value, dict) and "player" in value:
                return value["player"]
    return item.get("player")


class Moments:
    """A table's recent moments (kept in its snapshot: a replay from one shows the same)."""

    def __init__(self, places: Places | None = None) -> None:
        self.items: list[dict[str, Any]] = []
        self.seq = 0
        self.places = places  # the game's reading of place ids (its spec's place_label)

    def copy(self) -> Moments:
        twin = Moments(self.places)
        twin.items, twin.seq = list(self.items), self.seq
        return twin

    def add(self, found: list[dict[str, Any]], action: int) -> None:
        for moment in found:
            self.seq += 1
            hole = moment["params"].get("hole")
            if isinstance(hole, str):  # the words for the place go with it (the pages word no place id)
                moment["place"] = label(hole, self.places)
            self.items.append({"seq": self.seq, "action": moment.pop("action", action), **moment})
        del self.items[:-MAX_MOMENTS]

    def correct(self, old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> None:
        """Take back the moments of the actions a correction removed or changed, and
        say what it did."""
        found = taken_back(old, new)
        gone = {m["action"] for m in found}
        self.items = [m for m in self.items if m["action"] not in gone or m["kind"] in ("undone", "amended")]
        self.add(found, len(new))

    def view(self) -> list[dict[str, Any]]:
        return [{**m, "params": dict(m["params"])} for m in self.items]

    def dump(self) -> dict[str, Any]:
        return {"items": self.items, "seq": self.seq}

    def load(self, data: Mapping[str, Any] | None) -> None:
        self.items = list((data or {}).get("items", []))
        self.seq = int((data or {}).get("seq", 0))
