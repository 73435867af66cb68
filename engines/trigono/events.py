"""Trigono announcements: a structured event of :attr:`TrigonoState.events` in English
(the web pages translate from the structured event itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def describe_event(event: Mapping[str, Any]) -> str:
    """One announcement in English (the web pages translate from the structured event).

    >>> describe_event({"type": "take", "player": "Ben", "palets": 3, "holes": ["B1.big"]})
    'Ben takes 3 palets (B1.big)'
    >>> describe_event({"type": "round_won", "round": 1, "player": "Ana"})
    'Ana wins round 1'
    """
    kind = event["type"]
    if kind == "take":
        n = event["palets"]
        return f"{event['player']} takes {n} palet{'s' if n != 1 else ''} ({', '.join(event['holes'])})"
    if kind == "pending":
        return f"invalid drop: the palet stays in {event['hole']} (T10)"
    if kind == "eliminated":
        return f"{event['player']} is out of the round"
    if kind == "step_back":
        return f"step back: throw from {event['throw_distance_m']:.2f} m"
    if kind == "last_chance":
        return f"last chance for {event['player']}"
    if kind == "final":
        target = event.get("target")
        aim = f", target {target}" if target else f"; {event['chooser']} chooses the target"
        return f"final: {' v '.join(event['finalists'])}{aim}"
    if kind == "target":
        return f"{event['player']} chooses {event['hole']} as the target"
    if kind == "round_won":
        return f"{event['player']} wins round {event['round']}"
    if kind == "round_drawn":
        return f"round {event['round']} is drawn"
    if kind == "match_won":
        return f"{event['player']} wins the match"
    if kind == "round_start":
        return f"round {event['round']}: {event['starter']} throws first"
    return str(kind)
