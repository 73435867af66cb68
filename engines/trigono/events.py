"""Trigono announcements: a structured event of :attr:`TrigonoState.events` in English
(the web pages translate from the structured event itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SENTENCES = {
    "pending": "invalid drop: the palet stays in {hole} (T10)",
    "eliminated": "{player} is out of the round",
    "step_back": "step back: throw from {throw_distance_m:.2f} m",
    "last_chance": "last chance for {player}",
    "target": "{player} chooses {hole} as the target",
    "round_won": "{player} wins round {round}",
    "round_drawn": "round {round} is drawn",
    "match_won": "{player} wins the match",
    "round_start": "round {round}: {starter} throws first",
}
"""Event type -> its sentence, filled in from the event's fields (``take`` and ``final``
need more than a fill-in: see :func:`describe_event`)."""


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
    if kind == "final":
        target = event.get("target")
        aim = f", target {target}" if target else f"; {event['chooser']} chooses the target"
        return f"final: {' v '.join(event['finalists'])}{aim}"
    sentence = SENTENCES.get(kind)
    return str(kind) if sentence is None else sentence.format_map(event)
