"""Triominos states from a record's ``position`` (docs/records.md § Triominos): a board, racks,
a pool, scores and the player to move, like a rule-book diagram.

>>> from engines.records import replay
>>> state = replay({"game": "triominos", "options": {"players": ["Ana", "Ben"]},
...                 "position": {"racks": {"Ana": ["0-1-2"], "Ben": ["3-3-3"]}, "pool": []}})
>>> state.to_json()["racks"], state.to_json()["pool_count"]
({'Ana': ['0-1-2'], 'Ben': ['3-3-3']}, 0)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING

from engines.core import JSON, RecordError, check_keys
from engines.triominos.actions import check_cell, check_corners
from engines.triominos.board import cell_key
from engines.triominos.tiles import canonical, parse_tile_name, tile_name

if TYPE_CHECKING:  # the game module calls set_up: import it for types only
    from engines.triominos.game import TriominosState

POSITION_FIELDS = ("board", "racks", "pool", "scores", "to_move")


def set_up(state: TriominosState, position: Mapping[str, JSON], rng: random.Random) -> None:
    """Start ``state`` (new, not dealt) from a docs/records.md ``position``: taken as given,
    but its tiles must exist in the set, once each."""
    pos = check_keys(position, POSITION_FIELDS, "position", required=("racks",))
    ts = state.tileset
    seen: set[int] = set()

    def tile(text: JSON, where: str) -> int:
        try:
            index = ts.index_of(parse_tile_name(text))
        except RecordError as err:
            raise RecordError(f"position.{where}: {err}") from err
        if index in seen:
            raise RecordError(f"position.{where}: tile {ts.name_of(index)} appears twice")
        seen.add(index)
        return index

    board = pos.get("board", [])
    if not isinstance(board, list):
        raise RecordError("position.board: expected a list")
    for n, entry in enumerate(board):
        where = f"board[{n}]"
        body = check_keys(entry, ("cell", "corners"), f"position.{where}", ("cell", "corners"))
        cell = check_cell(body["cell"])
        corners = check_corners(body["corners"])
        key = cell_key(cell)
        tile(tile_name(canonical(corners)), where)
        if key in state.board.tiles:
            raise RecordError(f"position.{where}: cell {cell.to_json()} is used twice")
        clash = state.board.conflicts(key, corners)
        if clash is not None:
            raise RecordError(
                f"position.{where}: corner {clash} ({corners[clash]}) disagrees with the "
                "number already at that vertex"
            )
        state.board.place(key, corners)
    racks = check_keys(pos["racks"], state.players, "position.racks", required=state.players)
    for seat, name in enumerate(state.players):
        rack = racks[name]
        if not isinstance(rack, list):
            raise RecordError(f"position.racks.{name}: expected a list of tiles")
        state.racks[seat] = [tile(t, f"racks.{name}") for t in rack]
    if "pool" in pos:
        pool = pos["pool"]
        if not isinstance(pool, list):
            raise RecordError("position.pool: expected a list of tiles")
        state.pool = [tile(t, "pool") for t in pool]
    else:  # the rest of the set, mixed with the seed
        state.pool = [t for t in range(ts.size) if t not in seen]
        rng.shuffle(state.pool)
    state.set_position_scores(pos)
