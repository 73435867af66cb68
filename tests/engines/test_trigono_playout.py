"""Seeded random Trigono playouts (engines/trigono/playout.py) checked after every action (R1)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engines.core import GameError
from engines.records import replay
from engines.trigono import (
    Knock,
    Throw,
    TrigonoGame,
    TrigonoState,
    hexagon_boards,
)
from engines.trigono.playout import random_action
from tests.engines.trigono_setups import TWO_BOARDS, TWO_HEXAGONS

LAYOUTS: dict[str, dict[str, Any]] = {
    "2p-1board": {"players": ["A", "B"], "palets_per_player": 4},
    "3p-2boards": {"players": ["A", "B", "C"], "boards": TWO_BOARDS},
    "4p-1board": {"players": ["A", "B", "C", "D"], "palets_per_player": 3},
    "5p-2boards": {"players": list("ABCDE"), "boards": TWO_BOARDS, "palets_per_player": 3},
    "6p-2boards": {"players": list("ABCDEF"), "boards": TWO_BOARDS, "palets_per_player": 3},
    "8p-2boards": {"players": list("ABCDEFGH"), "boards": TWO_BOARDS, "palets_per_player": 2},
    "3p-hexagon": {"players": ["A", "B", "C"], "boards": hexagon_boards()},
    "6p-hexagon": {"players": list("ABCDEF"), "boards": hexagon_boards(), "palets_per_player": 3},
    "5p-two-hexagons": {"players": list("ABCDE"), "boards": TWO_HEXAGONS, "palets_per_player": 2},
}


def _check_invariants(state: TrigonoState, options: dict[str, Any]) -> None:
    printed = state.to_json()
    each = state.game.opts.palets_per_player
    total = (
        sum(printed["hands"].values())
        + sum(printed["boards"].values())
        + printed["floor"]
        + sum(printed["holes"].values())
    )
    assert total == len(printed["players"]) * each, "palets are conserved"
    assert all(n >= 0 for n in printed["hands"].values())
    mover = printed["to_move"]
    assert (mover is None) == (printed["status"] == "match_over")
    if mover is not None:
        assert mover not in printed["eliminated"] and printed["hands"][mover] > 0
    if printed["phase"] != "final":
        assert printed["target"] is None or len(state.game.opts.layout.jackpots) == 1
    dumped = state.dump()  # once: a dump copies the whole log, and this runs after every action
    assert state.game.load(dumped).dump() == dumped, "dump/load round trip"
    assert json.loads(json.dumps(dumped)) == dumped, "dump is plain JSON"


def _fuzz_action(state: TrigonoState, rng: random.Random) -> Throw:
    """Any throw at all: right or wrong player, known or unknown place, knock-ins from anywhere."""
    opts = state.game.opts
    places = ["floor", "board:B9", "B9.big", "jackpot", *opts.layout.holes]
    places += [f"board:{b}" for b in opts.layout.board_ids]
    knocked = tuple(
        Knock(
            rng.choice([*opts.layout.board_ids, "B9"]), rng.choice([*opts.layout.holes, "B9.big"])
        )
        for _ in range(rng.choice([0, 0, 1, 2]))
    )
    player = rng.choice([*opts.players, "Zoé", state.current_player() or "Zoé"])
    return Throw(player, rng.choice(places), rng.random() < 0.2, knocked)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_playout_invariants_R1(layout: str, seed: int) -> None:
    options = LAYOUTS[layout]
    game = TrigonoGame(options)
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed * 1000 + len(layout))
    actions: list[Any] = []
    record = {"game": "trigono", "options": options, "seed": seed, "actions": actions}
    seen_phases = set()
    while not state.is_terminal():
        assert len(actions) < 3000, "the match ends"
        mover = state.current_player()
        assert mover is not None
        if actions and len(actions) % 7 == 0:  # a wrong player is refused, nothing changes
            other = next(p for p in state.game.opts.players if p != mover)
            before = state.dump()
            with pytest.raises(GameError):
                state.apply(Throw(other, "floor"))
            assert state.dump() == before
        fuzz = _fuzz_action(state, rng)  # refused without a trace, or legal and consistent
        trial = state.clone()
        before = trial.dump()
        try:
            trial.apply(fuzz)
        except GameError:
            assert trial.dump() == before, f"{fuzz.to_str()} was refused but changed the state"
        else:
            _check_invariants(trial, options)
        eliminated = list(state.eliminated)
        action = random_action(state, rng)
        if isinstance(action, Throw):
            assert action.player not in eliminated, "nobody eliminated throws"
        state.apply(action)
        actions.append(state.game.action_to_json(action))
        seen_phases.add(state.phase)
        _check_invariants(state, options)
        if len(actions) % 10 == 0:
            assert replay(record) == state, "the state is the replay of the log"
    assert replay(record) == state
    assert [e["action"] for e in state.log] == actions
    assert sum(state.rounds_won.values()) == len([r for r in state.round_results if "winner" in r])
    assert max(state.rounds_won.values()) == state.game.opts.rounds_to_win
