"""What a Trigono match's log says of each player (issue 34.4): throws and where they
came to rest (big, small hole, jackpot, floor), knock-ins (T12), palets taken, rounds
played and won, finals (T17) played and won. Counted while the actions are applied, so a
final is known by the phase it was played in, not guessed from the printed log.

>>> from engines.trigono.game import TrigonoGame
>>> import random
>>> state = TrigonoGame({"players": ["Ana", "Ben"], "first": "Ana", "palets_per_player": 2}
...                     ).new_initial_state(random.Random(0))
>>> counts = count(state, [{"throw": {"player": "Ana", "to": "board:B1"}},
...                        {"throw": {"player": "Ben", "to": "B1.big"}},
...                        {"throw": {"player": "Ana", "to": "floor"}}])
>>> counts["Ben"]["big"], counts["Ben"]["palets"], counts["Ben"]["rounds_won"], counts["Ana"]["floor"]
(1, 2, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.core import JSON, PlayerStats
from engines.trigono.actions import Throw
from engines.trigono.places import Place

COUNTERS = ("matches", "throws", "big", "small", "jackpot", "floor", "board", "invalid", "knock_ins",
            "palets", "rounds", "rounds_won", "finals", "finals_won")
KIND_COUNTER = {"big": "big", "small": "small", "jackpot": "jackpot", "jackpot_n": "jackpot",
                "floor": "floor", "board": "board"}
FINAL = "final"


def count(state: Any, actions: Sequence[JSON]) -> dict[str, dict[str, int]]:
    """``{player: {counter: n}}`` for ``actions`` applied to ``state`` (module doc)."""
    out = {p: dict.fromkeys(COUNTERS, 0) for p in state.players}
    finals: dict[int, list[str]] = {}  # round -> its finalists
    for raw in actions:
        action = state.parse_action(raw)
        if state.phase == FINAL:
            finals.setdefault(state.round, list(state.finalists))
        state.apply(action)
        if isinstance(action, Throw):
            mine = out[action.player]
            mine["throws"] += 1
            mine[KIND_COUNTER[Place.parse(action.to).kind]] += 1
            mine["invalid"] += int(action.invalid)
            mine["knock_ins"] += len(action.knocked)
            mine["palets"] += int(state.log[-1]["points"])
    # A round counts once thrown in: a match that goes on already shows its next round.
    started = not state.is_terminal() and any(e["round"] == state.round for e in state.log)
    played = len(state.round_results) + int(started)
    for p in state.players:
        out[p]["matches"] = 1
        out[p]["rounds"] = played
        out[p]["rounds_won"] = int(state.rounds_won.get(p, 0))
    for rnd, finalists in finals.items():
        result = state.round_results[rnd - 1] if rnd <= len(state.round_results) else {}
        for p in finalists:
            out[p]["finals"] += 1
            out[p]["finals_won"] += int(result.get("winner") == p)
    return out


PLAYER_STATS = PlayerStats(count, ratios=(
    ("big_share", "big", "throws"), ("small_share", "small", "throws"),
    ("jackpot_share", "jackpot", "throws"), ("floor_share", "floor", "throws"),
    ("palets_per_round", "palets", "rounds"), ("rounds_won_share", "rounds_won", "rounds"),
    ("finals_won_share", "finals_won", "finals")))
