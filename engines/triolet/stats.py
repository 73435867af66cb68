"""What a Triolet game's log says of each player (issue 34.4): plays, the sets they made
(L8), their trios among them (three tokens making 15, L8), their *triolets* (a whole
rack laid as one trio, the bonus of L9), points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.core import JSON, PlayerStats

COUNTERS = ("games", "wins", "plays", "sets", "trios", "triolets", "points")


def count(state: Any, actions: Sequence[JSON]) -> dict[str, dict[str, int]]:
    out = {p: dict.fromkeys(COUNTERS, 0) for p in state.players}
    for raw in actions:
        state.apply(state.parse_action(raw))
        entry = state.log[-1]
        if "sets" not in entry:  # an exchange or a pass
            continue
        mine = out[entry["player"]]
        mine["plays"] += 1
        mine["sets"] += len(entry["sets"])
        mine["trios"] += sum(1 for s in entry["sets"] if len(s["cells"]) == 3)
        mine["triolets"] += int(bool(entry.get("triolet")))
        mine["points"] += int(entry["points"])
    winner = state.winner() if state.is_terminal() else None
    for p in state.players:
        out[p]["games"] = 1
        out[p]["wins"] = int(winner == p)
    return out


PLAYER_STATS = PlayerStats(count, ratios=(("trios_per_game", "trios", "games"), ("points_per_play", "points", "plays"),
                                          ("win_share", "wins", "games")))
