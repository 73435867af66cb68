"""The Triominos bot (engines/triominos/bot.py): legal play, draws and passes, hints, sampled worlds."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engines.records import replay
from engines.triominos import Draw, Pass, TriominosGame, TriominosState
from engines.triominos.bot import (
    choose,
    determinize,
    greedy_choose,
    hint,
    read_turns,
    unseen_tiles,
)

# ---------------------------------------------------------------- bot
BASE: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[1] / "records" / "triominos-match-and-draw.json").read_text()
)
BASE.pop("expect")


@pytest.mark.parametrize(
    "seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]
)
def test_bot_plays_whole_games_legally_against_greedy(seed: int) -> None:
    game = TriominosGame({"players": ["bot", "greedy"]})
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed)
    kinds = set()
    while not state.is_terminal():
        if state.current_player() == "bot":
            action = choose(state, rng, 0.005)
            kinds.add(type(action).__name__)
        else:
            action = greedy_choose(state, rng)
        assert action in state.legal_actions()
        state.apply(action)
    assert "Place" in kinds


def test_bot_draws_then_passes_when_nothing_fits() -> None:
    rec = dict(BASE)
    rec["position"] = {**BASE["position"], "racks": {"Ana": ["4-4-5"], "Ben": ["3-3-3"]},
                       "pool": ["3-3-4", "3-4-4", "3-3-5", "5-5-5"]}
    rec["actions"] = []
    state = replay(rec)
    assert isinstance(state, TriominosState)
    for _ in range(3):
        assert choose(state, random.Random(0), 0.01) == Draw()
        state.apply(Draw())
    assert choose(state, random.Random(0), 0.01) == Pass()
    assert hint(state, 0.01)["action"] == {"pass": True}


def test_bot_hint_names_a_legal_action_and_why() -> None:
    state = TriominosGame().new_initial_state(random.Random(8))
    advice = hint(state, 0.05)
    assert state.game.parse_action(advice["action"]) in state.legal_actions()
    assert isinstance(advice["why"], str) and advice["why"]


def test_bot_worlds_keep_what_the_bot_sees_and_what_draws_tell() -> None:
    # Ben drew at the start of his turn: his old tiles fit nowhere on the board then
    rec = dict(BASE)
    rec["position"] = {**BASE["position"], "racks": {"Ana": ["1-2-2", "0-1-1"],
                                                     "Ben": ["3-3-3", "4-4-4"]},
                       "pool": ["5-5-5", "2-2-3"]}
    rec["actions"] = [{"place": {"cell": [0, 0, "down"], "corners": [1, 2, 2]}},
                      {"draw": True}, {"draw": True}]
    state = replay(rec)
    assert isinstance(state, TriominosState)
    hints = read_turns(state, 0)
    # Ben's two old tiles are among tiles that fit nowhere then
    old, nofit = hints[1]
    fitting = state.board.fitting_mask(state.tileset.fit)
    assert old == 2 and all(not state.tileset.tile_placements[t] & fitting for t in nofit)
    world = determinize(state, 0, random.Random(1), hints)
    assert world.racks[0] == state.racks[0] and len(world.racks[1]) == len(state.racks[1])
    assert len(world.pool) == len(state.pool)
    assert set(world.racks[1] + world.pool) <= set(unseen_tiles(state, 0))
    assert set(world.racks[1][:2]) <= set(nofit)
