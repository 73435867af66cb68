"""A plain-text Trigono scoreboard from a printed state (``TrigonoState.to_json()``).

Pure, like every engine: ``trigono scoreboard FILE`` (hub/cli) reads a record, replays it
and prints this text. The game's ``SPEC.scoreboard`` is :func:`describe`.

>>> from engines.records import replay
>>> state = replay({"game": "trigono", "options": {"players": ["Ana", "Ben"], "first": "Ana"},
...                 "actions": [{"throw": {"player": "Ana", "to": "board:B1"}}]})
>>> print(describe(state.to_json()))
Trigono — round 1, first to 2 rounds — playing
  Ana  rounds 0  hand  9
> Ben  rounds 0  hand 10
Boards: B1 1 | floor 0 | throw line 3.00 m
Last: —
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def describe(state: Mapping[str, Any]) -> str:
    """The scoreboard of a printed Trigono state, one line per player."""
    players: list[str] = list(state.get("players") or state["hands"])
    width = max(len(p) for p in players)
    status = state["status"]
    title = (
        f"Trigono — round {state['round']}, first to {state.get('rounds_to_win', 2)} rounds"
        f" — {'match over' if status == 'match_over' else 'playing'}"
    )
    if state["phase"] != "normal":
        phase = state["phase"].replace("_", " ")
        title += f" — {phase}" + (f", target {state['target']}" if state.get("target") else "")
    lines = [title]
    for p in players:
        marker = ">" if p == state["to_move"] else "*" if p == state["winner"] else " "
        notes = []
        if p in state["eliminated"]:
            notes.append("out")
        if p == state["winner"]:
            notes.append("match winner")
        line = (
            f"{marker} {p:<{width}}  rounds {state['rounds_won'][p]}  hand {state['hands'][p]:2d}"
        )
        lines.append(line + (f"  ({', '.join(notes)})" if notes else ""))
    boards = " ".join(f"{b} {n}" for b, n in state["boards"].items())
    lines.append(
        f"Boards: {boards} | floor {state['floor']} | throw line {state['throw_distance_m']:.2f} m"
    )
    pending = {h: n for h, n in state["holes"].items() if n}
    if pending:
        lines.append("In holes: " + ", ".join(f"{h} {n}" for h, n in pending.items()))
    results = state.get("round_results") or []
    if results:
        lines.append(
            "Rounds: "
            + ", ".join(
                f"{i}: {r['winner']}" if "winner" in r else f"{i}: draw"
                for i, r in enumerate(results, start=1)
            )
        )
    lines.append(f"Last: {state.get('last_event') or '—'}")
    return "\n".join(lines)


def detailed_ranking(printed: Mapping[str, Any]) -> list[list[str]]:
    """The game's ``SPEC.detailed_ranking`` (a tournament's ``trigono_detailed`` ranking) of
    a finished Trigono match, from its printed state (docs/records.md): rounds won, then, among those level, who went out later in the
    last round (the sheet ranks only the winner), then palets held at the end; players
    level on all three share a place.

    >>> detailed_ranking({"players": ["Ana", "Ben", "Chloé", "Dan"],
    ...                   "rounds_won": {"Ana": 2, "Ben": 0, "Chloé": 0, "Dan": 0},
    ...                   "eliminated": ["Chloé", "Ben", "Dan"],
    ...                   "hands": {"Ana": 5, "Ben": 0, "Chloé": 0, "Dan": 0}})
    [['Ana'], ['Dan'], ['Ben'], ['Chloé']]
    """
    players = list(printed["players"])
    out_order = list(printed.get("eliminated") or [])

    def key(p: str) -> tuple[float, float, float]:
        went_out = out_order.index(p) if p in out_order else len(out_order)
        return (-printed["rounds_won"].get(p, 0), -went_out, -printed.get("hands", {}).get(p, 0))

    groups: list[list[str]] = []
    for p in sorted(players, key=key):
        if groups and key(groups[-1][0]) == key(p):
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups
