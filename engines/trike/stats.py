"""What a Trike game's log says of each player (issue 34.4): games and wins by the colour
they ended up with (after a pie swap, K3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.core import JSON, PlayerStats
from engines.trike.game import BLACK, WHITE

COUNTERS = ("games", "wins", f"games_{BLACK}", f"wins_{BLACK}", f"games_{WHITE}", f"wins_{WHITE}", "moves")


def count(state: Any, actions: Sequence[JSON]) -> dict[str, dict[str, int]]:
    out = {p: dict.fromkeys(COUNTERS, 0) for p in state.players}
    for raw in actions:
        state.apply(state.parse_action(raw))
        out[state.log[-1]["player"]]["moves"] += 1
    winner = state.winner() if state.is_terminal() else None
    for p in state.players:
        colour = state.colors[p]
        out[p]["games"] = 1
        out[p]["wins"] = int(winner == p)
        out[p][f"games_{colour}"] = 1
        out[p][f"wins_{colour}"] = int(winner == p)
    return out


PLAYER_STATS = PlayerStats(count, ratios=(
    ("win_share", "wins", "games"), (f"win_share_{BLACK}", f"wins_{BLACK}", f"games_{BLACK}"),
    (f"win_share_{WHITE}", f"wins_{WHITE}", f"games_{WHITE}")))
