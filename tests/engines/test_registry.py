"""The engine contract through the registry (engines.GAMES), the same for every game,
after OpenSpiel's API tests: seeded random playouts of legal actions, each checked for
notation round trips, observations that hide what they must, replay equality (the
record is the truth), dump/load equality and the final ranking."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engines import GAMES, game_spec
from engines.core import Game, GameSpec, IllegalMoveError, RecordError, State
from engines.records import replay

# Small but complete games: every game is played to its end within MAX_ACTIONS.
OPTIONS: dict[str, dict[str, Any]] = {
    "trigono": {"players": ["Ana", "Ben", "Cy"], "palets_per_player": 3,
                "boards": [{"id": "B1", "cell": [0, 0, "up"]}]},
    "triominos": {"players": ["Ana", "Ben", "Cy"]},
    "trike": {"size": 6, "players": ["Ana", "Ben"]},
    "triolet": {"players": ["Ana", "Ben"]},
}
SEEDS = range(3)
MAX_ACTIONS = 3000
HIDDEN_IN_DUMP = ("pool", "bag", "aside", "deal_seed", "shuffle_seed")


def test_every_game_is_registered_with_its_parts() -> None:
    assert set(GAMES) == set(OPTIONS) == {"trigono", "triominos", "trike", "triolet"}
    for name, spec in GAMES.items():
        assert isinstance(spec, GameSpec) and spec.name == name == spec.game.name
        assert issubclass(spec.game, Game) and issubclass(spec.state, State)
    assert GAMES["trigono"].bot is None  # played by people with real palets
    assert all(GAMES[n].bot is not None for n in ("triominos", "trike", "triolet"))
    assert {n for n, s in GAMES.items() if s.analyze is not None} == {"trike", "triolet"}
    # what only the board game on physical boards has: a text scoreboard and the hexagon
    assert {n for n, s in GAMES.items() if s.scoreboard is not None} == {"trigono"}
    assert {n for n, s in GAMES.items() if s.hexagon_boards is not None} == {"trigono"}


def test_the_notation_of_a_game_is_its_actions_module() -> None:
    """Game.parse_action / action_to_json come from the class's ``notation`` (engines.core),
    the same functions the registration gives (Trike's Game checks its board size too)."""
    for spec in GAMES.values():
        assert spec.parse_action is spec.game.notation.parse_action
        assert spec.action_to_json is spec.game.notation.action_to_json


def test_unknown_game_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="unknown game 'chess'"):
        game_spec("chess")


def check_observations(state: State[Any]) -> None:
    """Racks are the hidden information: a player sees their own, nobody sees the others'."""
    printed = state.to_json()
    for viewer in [None, *state.players]:
        seen = state.observation(viewer)
        assert set(seen) == set(printed)
        if "racks" not in printed:
            assert seen == printed  # nothing hidden in Trigono and Trike
            continue
        for player, rack in printed["racks"].items():
            shown = seen["racks"][player]
            assert shown == (rack if player == viewer else [None] * len(rack))
        for mine, theirs in zip(seen["log"], printed["log"], strict=True):
            if "exchange" in theirs["action"] and theirs["player"] != viewer:
                assert mine["action"] == {"exchange": [None] * len(theirs["action"]["exchange"])}
        # neither the seeds nor the bag/pool (only their counts) are in any observation
        assert not set(seen) & set(HIDDEN_IN_DUMP) and set(HIDDEN_IN_DUMP) & set(state.dump())
    with pytest.raises(RecordError, match="not a player"):
        state.observation("Nobody")


def random_playout(spec: GameSpec[Any, Any], seed: int) -> tuple[State[Any], list[Any]]:
    game = spec.game(OPTIONS[spec.name])
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed * 7919)
    actions: list[Any] = []
    while not state.is_terminal():
        assert len(actions) < MAX_ACTIONS, "the game must end"
        assert state.current_player() in state.players
        legal = state.legal_actions()
        assert legal, "a live state always has a legal action"
        action = rng.choice(legal)
        notation = spec.action_to_json(action)
        assert notation == game.action_to_json(action)
        assert spec.parse_action(json.loads(json.dumps(notation))) == action
        with pytest.raises(IllegalMoveError):
            state.ranking()
        state.apply(action)
        actions.append(notation)
        if len(actions) % 7 == 0:
            check_observations(state)
    return state, actions


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_random_playout_replays_loads_and_ranks(name: str, seed: int) -> None:
    spec = GAMES[name]
    state, actions = random_playout(spec, seed)
    assert state.legal_actions() == [] and state.current_player() is None
    check_observations(state)
    record = {"game": name, "options": OPTIONS[name], "seed": seed, "actions": actions}
    assert replay(json.loads(json.dumps(record))) == state
    assert spec.game(OPTIONS[name]).load(json.loads(json.dumps(state.dump()))) == state
    assert state.clone() == state
    ranking = state.ranking()
    assert sorted(p for group in ranking for p in group) == sorted(state.players)
    assert all(group for group in ranking)
    scores = state.scores()
    for better, worse in zip(ranking, ranking[1:], strict=False):
        assert min(scores[p] for p in better) > max(scores[p] for p in worse)
    if state.winner() is not None:
        assert ranking[0] == [state.winner()]


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_a_refused_action_changes_nothing(name: str) -> None:
    """A legal action of one state, applied where it is not legal, is refused cleanly."""
    spec = GAMES[name]
    state = spec.game(OPTIONS[name]).new_initial_state(random.Random(1))
    first = state.legal_actions()[0]
    state.apply(first)
    before = state.dump()
    illegal = [a for a in spec.game(OPTIONS[name]).new_initial_state(random.Random(1)).legal_actions()
               if a not in state.legal_actions()]
    assert illegal
    for action in illegal[:5]:
        with pytest.raises(ValueError):
            state.apply(action)
        assert state.dump() == before
