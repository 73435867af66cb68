"""What a Triominos game's log says of each player (issue 34.4): tiles placed and the
points they scored with them (bonuses included), draws, bonuses, wins: points per tile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.core import JSON, PlayerStats

COUNTERS = ("games", "wins", "tiles", "tile_points", "draws", "bonuses")


def count(state: Any, actions: Sequence[JSON]) -> dict[str, dict[str, int]]:
    out = {p: dict.fromkeys(COUNTERS, 0) for p in state.players}
    for raw in actions:
        state.apply(state.parse_action(raw))
        entry = state.log[-1]
        mine = out[entry["player"]]
        kind = next(iter(entry["action"])) if isinstance(entry["action"], dict) else ""
        if kind == "place":
            mine["tiles"] += 1
            mine["tile_points"] += int(entry["points"])
            mine["bonuses"] += int(entry.get("bonus") is not None)
        elif kind == "draw":
            mine["draws"] += 1
    winner = state.winner() if state.is_terminal() else None
    for p in state.players:
        out[p]["games"] = 1
        out[p]["wins"] = int(winner == p)
    return out


PLAYER_STATS = PlayerStats(count, ratios=(("points_per_tile", "tile_points", "tiles"), ("win_share", "wins", "games")))
