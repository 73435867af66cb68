"""Triolet computer player: a short look-ahead over sampled racks (after Quackle).

Greedy play (the highest score now) keeps whatever is left on the rack and leaves open
pairs and special cells for the next player. This bot ranks every play by its points plus
a quick rack-leave value, keeps the best few (and the exchanges), and then simulates each
in sampled worlds: the unseen tokens (everything not on the board or its rack: the bag,
the other racks and the 3 set aside) are dealt at random to the next player's rack and to
the bot's own refill. In each world the next player answers with their best play (what
the move opens for them), then the bot plays its best play with what it kept plus what it
drew (what the rack leave is worth); a play-again cell lets the bot play twice first.
Every candidate sees the same worlds. The value is

    points now − the reply's points + the bot's next play's points.

>>> import random
>>> from engines.triolet import TrioletGame
>>> state = TrioletGame({"players": ["Ana", "Bot"]}).new_initial_state(random.Random(2))
>>> action = choose(state, random.Random(0), 0.05)
>>> action in state.legal_actions()
True
>>> sorted(hint(state, 0.05))
['action', 'points', 'why']
>>> greedy_choose(state, random.Random(0), 0.0) in state.legal_actions()
True
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

from engines.triolet.board import ALL_TOKENS, JOKER, PLAY_AGAIN, RACK_SIZE, Board, Play, generate
from engines.triolet.game import (
    Action,
    Exchange,
    Pass,
    PlayTokens,
    TrioletState,
    action_to_json,
)

CANDIDATES = 8
MIN_WORLDS = 4
MAX_WORLDS = 64
NEXT_TURN_WEIGHT = 0.9
JOKER_LEAVE = 10.0  # a kept joker completes a trio almost anywhere later


def unseen_tokens(state: TrioletState, seat: int) -> list[int]:
    """Tokens ``seat`` cannot see: every token not on the board nor in its own rack."""
    left = Counter(ALL_TOKENS)
    board = state.board
    for i in board.occupied:
        left[JOKER if board.joker[i] else board.value[i]] -= 1
    for t in state.racks[seat]:
        left[t] -= 1
    return sorted(left.elements())


def _rest_of_rack(rack: list[int], play: Play) -> list[int]:
    rest = list(rack)
    for _, token, _ in play:
        rest.remove(token)
    return rest


def static_leave(rest: list[int]) -> float:
    """A quick value of the tokens kept, used only to pick the candidates to simulate:
    jokers are worth keeping, high tokens fit few places, two kept tokens summing to at
    most 15 can become a Triolet."""
    value = 0.0
    for t in rest:
        value += JOKER_LEAVE if t == JOKER else -0.4 * max(0, t - 8)
    if len(rest) == 2 and JOKER not in rest and rest[0] + rest[1] <= 15:
        value += 3.0
    return value


def _best(board: Board, rack: list[int]) -> tuple[int, Play | None]:
    plays = generate(board, rack)
    if not plays:
        return 0, None
    points, play = max(plays, key=lambda p: p[0])
    return points, play


def _place(board: Board, play: Play) -> Board:
    after = board.copy()
    for i, token, value in play:
        after.place(i, value, token == JOKER)
    return after


def _simulate(
    state: TrioletState, seat: int, play: Play | None, rest: list[int], world: list[int]
) -> float:
    """Reply and follow-up points of one candidate in one world (see the module doc)."""
    board = state.board if play is None else _place(state.board, play)
    bag_left = len(state.bag)
    draw = min(RACK_SIZE - len(rest), bag_left)
    mine = rest + world[:draw]
    theirs = world[draw : draw + RACK_SIZE]
    value = 0.0
    if play is not None and any(PLAY_AGAIN[i] for i, _, _ in play) and mine:
        gain, again = _best(board, mine)  # L11: the bot plays once more first
        value += gain
        if again is not None:
            board = _place(board, again)
            mine = _rest_of_rack(mine, again) + world[draw + RACK_SIZE :][: len(again)]
    if play is not None and not rest and bag_left == 0:
        return value + sum(t for t in theirs if t != JOKER)  # going out ends the game
    reply_points, reply = _best(board, theirs)
    value -= reply_points
    if reply is not None:
        board = _place(board, reply)
    follow, _ = _best(board, mine)
    return value + NEXT_TURN_WEIGHT * follow


def _candidates(state: TrioletState) -> list[tuple[float, int, Play | None, Action, list[int]]]:
    """(static value, points now, play, action, rest of rack) for the plays and exchanges."""
    seat = state.to_move
    rack = state.racks[seat]
    found: list[tuple[float, int, Play | None, Action, list[int]]] = []
    for points, play in state.plays():
        rest = _rest_of_rack(rack, play)
        found.append((points + static_leave(rest), points, play, state.play_action(play), rest))
    for exchange in state.exchanges_possible():
        rest = list(rack)
        for t in exchange.tokens:
            rest.remove(t)
        found.append((static_leave(rest), 0, None, exchange, rest))
    found.sort(key=lambda c: -c[0])
    return found


def analyse(state: TrioletState, rng: random.Random, budget_s: float) -> dict[str, Any]:
    """The chosen action and what the simulation said about it."""
    deadline = time.perf_counter() + budget_s
    seat = state.to_move
    found = _candidates(state)
    if not found:
        return {"action": Pass(), "points": 0, "value": 0.0, "worlds": 0, "reply": 0.0}
    plays = [c for c in found if c[2] is not None][:CANDIDATES]
    swaps = [c for c in found if c[2] is None][:2]
    pool = plays + swaps
    if len(pool) == 1:
        only = pool[0]
        return {"action": only[3], "points": only[1], "value": float(only[1]), "worlds": 0}
    unseen = unseen_tokens(state, seat)
    totals = [0.0] * len(pool)
    worlds = 0
    while worlds < MAX_WORLDS and (worlds < MIN_WORLDS or time.perf_counter() < deadline):
        world = list(unseen)
        rng.shuffle(world)
        for k, (_, points, play, _, rest) in enumerate(pool):
            if play is None:  # an exchange: fresh tokens from the world, rest kept
                drawn = world[RACK_SIZE * 2 :][: RACK_SIZE - len(rest)]
                totals[k] += _simulate(state, seat, None, rest + drawn, world)
            else:
                totals[k] += points + _simulate(state, seat, play, rest, world)
        worlds += 1
    best = max(range(len(pool)), key=lambda k: totals[k])
    chosen = pool[best]
    return {
        "action": chosen[3],
        "points": chosen[1],
        "value": totals[best] / worlds,
        "worlds": worlds,
    }


def choose(state: TrioletState, rng: random.Random, budget_s: float) -> Action:
    """A legal action for the player to move, within about ``budget_s`` seconds."""
    action: Action = analyse(state, rng, budget_s)["action"]
    return action


def hint(state: TrioletState, budget_s: float) -> dict[str, Any]:
    """``{"action", "why", "points"}`` for the player to move."""
    result = analyse(state, random.Random(len(state.log)), budget_s)
    action = result["action"]
    if isinstance(action, PlayTokens):
        why = (
            f"scores {result['points']} now; counting the best reply and your next turn "
            f"over {result['worlds']} sampled racks it is worth {result['value']:+.1f}"
        )
    elif isinstance(action, Exchange):
        why = "no play is worth keeping this rack: exchange"
    else:
        why = "no play and no exchange is possible: pass"
    return {"action": action_to_json(action), "why": why, "points": result["points"]}


def greedy_choose(state: TrioletState, rng: random.Random, budget_s: float) -> Action:
    """The baseline: the highest score now; with no play, exchange the whole rack."""
    plays = state.plays()
    if plays:
        return state.play_action(max(plays, key=lambda p: p[0])[1])
    swaps = state.exchanges_possible()
    if swaps:
        return swaps[-1]  # the whole rack (exchanges are listed shortest first)
    return Pass()
