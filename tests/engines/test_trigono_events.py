"""Trigono announcements (engines/trigono/events.py): every event the engine emits has a
sentence of its own, and the printed state's ``last_event`` joins them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.trigono.events import describe_event
from engines.trigono.playout import random_action
from tests.engines.trigono_setups import TWO_BOARDS, new, play, start

EMITTED = {"take", "pending", "eliminated", "step_back", "last_chance", "final", "target",
           "round_won", "round_drawn", "match_won", "round_start"}


@pytest.mark.parametrize(
    ("event", "text"),
    [
        ({"type": "take", "player": "Ben", "palets": 1, "holes": ["B1.big", "jackpot"]},
         "Ben takes 1 palet (B1.big, jackpot)"),
        ({"type": "pending", "hole": "B2.small"}, "invalid drop: the palet stays in B2.small (T10)"),
        ({"type": "eliminated", "player": "Cy"}, "Cy is out of the round"),
        ({"type": "step_back", "throw_distance_m": 3.3}, "step back: throw from 3.30 m"),
        ({"type": "last_chance", "player": "Ana"}, "last chance for Ana"),
        ({"type": "final", "finalists": ["Ana", "Ben"], "chooser": "Ana", "target": None},
         "final: Ana v Ben; Ana chooses the target"),
        ({"type": "final", "finalists": ["Ana", "Ben"], "chooser": "Ana", "target": "jackpot"},
         "final: Ana v Ben, target jackpot"),
        ({"type": "target", "player": "Ana", "hole": "jackpot.2"}, "Ana chooses jackpot.2 as the target"),
        ({"type": "round_drawn", "round": 2}, "round 2 is drawn"),
        ({"type": "match_won", "player": "Ben"}, "Ben wins the match"),
        ({"type": "round_start", "round": 3, "starter": "Cy"}, "round 3: Cy throws first"),
    ],
)
def test_each_event_has_its_sentence(event: dict[str, Any], text: str) -> None:
    assert describe_event(event) == text


def test_every_event_random_matches_emit_is_described() -> None:
    seen: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        state = start({"players": list("ABCDE"), "boards": TWO_BOARDS, "palets_per_player": 2,
                       "first": "A"})
        while not state.is_terminal():
            state.apply(random_action(state, rng))
            for event in state.events:
                seen.add(event["type"])
                assert describe_event(event) != event["type"]
    assert seen <= EMITTED and {"take", "eliminated", "final", "round_won", "match_won"} <= seen


def test_last_event_joins_the_sentences_of_the_last_action() -> None:
    state = new(palets_per_player=2)
    assert state.to_json()["last_event"] is None
    play(state, "Ana>board:B1", "Ben>B1.big")
    assert state.to_json()["last_event"] == "Ben takes 2 palets (B1.big)"
