"""Random Trigono throws and whole matches, for tests, the sample record and the simulator.

Throws follow a crude landing model: mostly boards and floor, sometimes a hole, now and
then an invalid drop (T10) or a knock-in (T12). Deterministic given the
:class:`random.Random` passed in.

>>> record = random_record({"players": ["Ana", "Ben"], "first": "Ana", "palets_per_player": 3}, seed=4)
>>> from engines.records import replay
>>> replay(record).is_terminal()
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engines.core import JSON
from engines.trigono.actions import BOARD_PREFIX, FLOOR, Action, Knock, Target, Throw
from engines.trigono.game import TrigonoGame, TrigonoState

# Chance of each kind of landing (hole drops split between big, small and jackpot).
LANDING_WEIGHTS = {"board": 50, "floor": 30, "hole": 20}
INVALID_CHANCE = 0.1
KNOCK_CHANCE = 0.1


def random_action(state: TrigonoState, rng: random.Random) -> Action:
    """A plausible report for the player to move (a target choice when a final needs one)."""
    player = state.current_player()
    if player is None:
        raise ValueError("the match is over")
    choices = state.legal_actions()
    if choices and isinstance(choices[0], Target):
        return rng.choice(choices)
    layout = state.game.opts.layout
    kind = rng.choices(list(LANDING_WEIGHTS), weights=list(LANDING_WEIGHTS.values()))[0]
    if kind == "board":
        to = BOARD_PREFIX + rng.choice(layout.board_ids)
    elif kind == "floor":
        to = FLOOR
    else:
        to = rng.choice(layout.holes)
    invalid = kind == "hole" and rng.random() < INVALID_CHANCE
    knocked: list[Knock] = []
    lying = dict(state.boards)
    while rng.random() < KNOCK_CHANCE:
        sources = [b for b, n in lying.items() if n > 0]
        if not sources:
            break
        source = rng.choice(sources)
        lying[source] -= 1
        knocked.append(Knock(source, rng.choice(layout.holes_of_board(source))))
    return Throw(player, to, invalid, tuple(knocked))


def random_record(
    options: Mapping[str, JSON], seed: int, max_actions: int = 5000
) -> dict[str, Any]:
    """A complete match record (docs/records.md) played with :func:`random_action`."""
    game = TrigonoGame(options)
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(f"trigono-playout-{seed}")
    actions: list[JSON] = []
    while not state.is_terminal() and len(actions) < max_actions:
        action = random_action(state, rng)
        state.apply(action)
        actions.append(action.to_json())
    return {"game": "trigono", "options": dict(options), "seed": seed, "actions": actions}
