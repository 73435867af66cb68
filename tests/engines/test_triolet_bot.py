"""Triolet bot: legal choices in every situation, what a move opens, hints, a full game.

The win rate against the greedy player is measured in bench/triolet_bot.py, not here."""

from __future__ import annotations

import random
from typing import Any

from engines.records import replay
from engines.triolet import Exchange, Pass, PlayTokens, TrioletGame, TrioletState, parse_action
from engines.triolet.bot import choose, expected_best, greedy_choose, hint, unseen_tokens
from engines.triolet.movegen import single_threats


def setup(board: dict[str, Any], rack: list[Any], bag: list[Any] | None = None) -> TrioletState:
    state = replay(
        {
            "game": "triolet",
            "options": {"players": ["Bot", "Ben"]},
            "position": {
                "board": board,
                "racks": {"Bot": rack, "Ben": [1, 2, 3]},
                **({"bag": bag} if bag is not None else {}),
                "to_move": "Bot",
            },
        }
    )
    assert isinstance(state, TrioletState)
    return state


def test_bot_plays_legally_from_the_first_move() -> None:
    state = TrioletGame({"players": ["Bot", "Ben"]}).new_initial_state(random.Random(4))
    action = choose(state, random.Random(1), 0.05)
    assert action in state.legal_actions()


def test_bot_does_not_open_a_double_for_the_opponent() -> None:
    # L7:4 scores 7 like M6:4 or K6:4, but leaves the centre-row double L8 to complete
    # the trio L6-L7-L8 (60): the bot must not give that away.
    state = setup({"L6": 3}, [4, 9, 15])
    opened = state.clone()
    opened.apply(parse_action({"play": ["L7:4"]}))
    assert single_threats(opened.board)[8] == 60 > single_threats(state.board)[8]
    action = choose(state, random.Random(0), 0.05)
    assert isinstance(action, PlayTokens)
    assert all(p.cell != "L7" for p in action.placements)


def test_bot_takes_a_triolet() -> None:
    state = setup({"H8": 0}, [4, 5, 6])
    action = choose(state, random.Random(0), 0.05)
    assert isinstance(action, PlayTokens) and len(action.placements) == 3


def test_bot_exchanges_or_passes_when_nothing_fits() -> None:
    state = setup({"H8": 15}, [14, 13, 12], bag=[0, 1, 2, 3, 4, 5])
    assert isinstance(choose(state, random.Random(0), 0.05), Exchange)
    state = setup({"H8": 15}, [14, 13, 12], bag=[0])
    assert choose(state, random.Random(0), 0.05) == Pass()


def test_expected_best_reply_uses_unseen_tokens() -> None:
    state = setup({"L6": 3, "L7": 4}, [1, 2, 3])
    threats = single_threats(state.board)
    assert threats[8] == 60  # L8 (double) or L5 completes 3+4+8: the double wins
    unseen = unseen_tokens(state, 0)
    assert sum(unseen.values()) == 83 - 2 - 3
    assert 0 < expected_best(threats, unseen, 3) <= 60


def test_hint_names_a_legal_action() -> None:
    state = setup({"H8": 5}, [4, 6, "J"])
    got = hint(state, 0.05)
    assert set(got) >= {"action", "why"} and isinstance(got["why"], str) and got["why"]
    assert parse_action(got["action"]) in state.legal_actions()


def test_full_game_against_greedy_ends_with_legal_moves() -> None:
    game = TrioletGame({"players": ["Bot", "Greedy"]})
    state = game.new_initial_state(random.Random(9))
    rng = random.Random(9)
    while not state.is_terminal():
        mover = choose if state.to_move == 0 else greedy_choose
        action = mover(state, rng, 0.01)
        assert action in state.legal_actions()
        state.apply(action)
    assert state.winner() in ("Bot", "Greedy", None)
