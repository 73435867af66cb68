"""Triolet computer player: points now, minus what the move opens, plus what the rack keeps.

Greedy play (the highest score now) keeps whatever is left on the rack and leaves open
pairs and special cells to the next player. This bot values each candidate as

    points now − E[the opponent's best one-token reply] + w · E[its own next turn]

computed exactly rather than by sampling (sampled worlds made the choice noisy and drew it
towards high-variance exchanges): after the move, :func:`single_threats` gives the best
one-token score for every token value on the new board; the opponent's rack is 3 tokens
drawn from what the bot cannot see (bag, other racks, the 3 set aside), so the expected
best of its tokens follows from hypergeometric odds. The bot's own next turn is the
expected best of the tokens it keeps plus those it will draw, on the same board, plus the
chance that its next rack is a Triolet (3 non-joker tokens summing to 15). A play-again
cell gives that next turn before the opponent's. Exchanges are candidates too (no points,
a fresh draw). Then, within the time budget, the best 3 candidates are checked in sampled
worlds (two-ply: the opponent's best reply of any shape with a sampled rack, then the
bot's best next play with what it kept and drew; the same worlds for every candidate),
the static value weighing as much as 20 worlds: the sampled part adds the replies of two
and three tokens that the one-token threat table leaves out.

>>> import random
>>> from engines.triolet import TrioletGame
>>> state = TrioletGame({"players": ["Ana", "Bot"]}).new_initial_state(random.Random(2))
>>> action = choose(state, random.Random(0), 0.05)
>>> action in state.legal_actions()
True
>>> sorted(hint(state, 0.05))
['action', 'points', 'reason', 'why']
>>> greedy_choose(state, random.Random(0), 0.0) in state.legal_actions()
True
"""

from __future__ import annotations

import random
import time
from collections import Counter
from math import comb
from typing import Any

from engines.core import Pass
from engines.triolet.actions import Action, Exchange, PlayTokens, action_to_json
from engines.triolet.board import (
    ALL_TOKENS,
    JOKER,
    PLAY_AGAIN,
    RACK_SIZE,
    TRIO_POINTS,
    TRIOLET_BONUS,
    Board,
    Play,
    cell_index,
)
from engines.triolet.game import TrioletState
from engines.triolet.movegen import generate, single_threats

NEXT_TURN_WEIGHT = 1.0
TRIOLET_VALUE = (TRIO_POINTS + TRIOLET_BONUS) * 0.7  # a line of 3 free cells is usually there
CANDIDATES = 16
SIMULATED = 3  # candidates checked by sampled worlds
STATIC_WEIGHT = 20  # the static value counts as this many worlds
MAX_WORLDS = 200


def unseen_tokens(state: TrioletState, seat: int) -> Counter[int]:
    """Tokens ``seat`` cannot see: every token not on the board nor in its own rack."""
    left = Counter(ALL_TOKENS)
    board = state.board
    for i in board.occupied:
        left[JOKER if board.joker[i] else board.value[i]] -= 1
    for t in state.racks[seat]:
        left[t] -= 1
    return +left


def expected_best(threats: list[int], unseen: Counter[int], draws: int, floor: int = 0) -> float:
    """E[max(floor, best threat among ``draws`` tokens drawn from ``unseen``)].

    >>> expected_best([10] + [0] * 16, Counter({0: 1, 1: 1}), 1)
    5.0
    """
    total = sum(unseen.values())
    draws = min(draws, total)
    if draws <= 0 or total == 0:
        return float(floor)
    levels = sorted({threats[t] for t in unseen if threats[t] > floor})
    ways = comb(total, draws)
    value = float(floor)
    previous = floor
    for level in levels:
        at_least = sum(n for t, n in unseen.items() if threats[t] >= level)
        p_reach = 1.0 - comb(total - at_least, draws) / ways
        value += (level - previous) * p_reach
        previous = level
    return value


def triolet_chance(kept: list[int], unseen: Counter[int]) -> float:
    """Probability that ``kept`` plus fresh draws is 3 non-joker tokens summing to 15.

    >>> round(triolet_chance([7, 7], Counter({1: 1, 2: 3})), 2)
    0.25
    """
    if JOKER in kept:
        return 0.0
    need = RACK_SIZE - len(kept)
    target = 15 - sum(kept)
    total = sum(unseen.values())
    if target < 0 or need == 0:
        return 1.0 if target == 0 and need == 0 else 0.0
    if total < need:
        return 0.0
    if need == 1:
        return unseen[target] / total if target <= 15 else 0.0
    values = [v for v in unseen if v != JOKER]
    if need == 2:
        ways = 0
        for a in values:
            b = target - a
            if b == a:
                ways += unseen[a] * (unseen[a] - 1) // 2
            elif a < b and b in unseen:
                ways += unseen[a] * unseen[b]
        return ways / comb(total, 2)
    ways = 0
    for a in values:
        for b in values:
            c = target - a - b
            if not a <= b <= c or c not in unseen:
                continue
            counts = Counter((a, b, c))
            w = 1
            for v, n in counts.items():
                w *= comb(unseen[v], n)
            ways += w
    return ways / comb(total, 3)


def _rest_of_rack(rack: list[int], tokens: list[int]) -> list[int]:
    rest = list(rack)
    for t in tokens:
        rest.remove(t)
    return rest


def _after(board: Board, play: Play) -> Board:
    after = board.copy()
    for i, token, value in play:
        after.place(i, value, token == JOKER)
    return after


def evaluate(
    state: TrioletState, points: int, play: Play | None, kept: list[int], unseen: Counter[int]
) -> float:
    """The static value of a candidate (see the module docstring)."""
    board = state.board if play is None else _after(state.board, play)
    threats = single_threats(board)
    for_them = unseen.copy()
    draws = min(RACK_SIZE - len(kept), len(state.bag))
    if play is not None and not kept and not state.bag:
        return points + sum(t * n for t, n in unseen.items() if t != JOKER) / max(
            1, sum(unseen.values())
        ) * RACK_SIZE  # going out: the others' racks come to us
    reply = expected_best(threats, for_them, RACK_SIZE)
    own_floor = max((threats[t] for t in kept), default=0)
    mine = expected_best(threats, unseen, draws, own_floor)
    mine += TRIOLET_VALUE * triolet_chance(kept, unseen) if draws == RACK_SIZE - len(kept) else 0
    if play is not None and any(PLAY_AGAIN[i] for i, _, _ in play):
        return points + mine - reply + NEXT_TURN_WEIGHT * mine  # L11: a turn first
    return points - reply + NEXT_TURN_WEIGHT * mine


def ranked(state: TrioletState) -> list[tuple[float, int, Action]]:
    """(value, points now, action) of every candidate, best first."""
    seat = state.to_move
    rack = state.racks[seat]
    unseen = unseen_tokens(state, seat)
    plays = sorted(state.plays(), key=lambda p: -p[0])
    found: list[tuple[float, int, Action]] = []
    for points, play in plays[: CANDIDATES * 3]:
        kept = _rest_of_rack(rack, [t for _, t, _ in play])
        found.append((evaluate(state, points, play, kept, unseen), points, state.play_action(play)))
    for exchange in state.exchanges_possible():
        kept = _rest_of_rack(rack, list(exchange.tokens))
        back = unseen + Counter(exchange.tokens)
        found.append((evaluate(state, 0, None, kept, back), 0, exchange))
    found.sort(key=lambda c: -c[0])
    return found


def analyze(state: TrioletState, budget_s: float) -> dict[str, Any]:
    """``trigono analyze``: the legal plays counted and the bot's five best candidates
    (points now and the value it gives them); the static ranking needs no budget.

    >>> from engines.triolet.game import TrioletGame
    >>> report = analyze(TrioletGame().new_initial_state(random.Random(0)), 0.1)
    >>> report["plays"] > 0 and len(report["best"]) <= 5
    True
    """
    if state.over:
        return {"to_move": None, "plays": 0, "best": []}
    found = ranked(state)
    return {
        "to_move": state.current_player(),
        "plays": len(state.plays()),
        "best": [
            {"action": action_to_json(a), "points": pts, "value": round(v, 1)}
            for v, pts, a in found[:5]
        ],
    }


def _best_points(board: Board, rack: list[int]) -> tuple[int, Play | None]:
    plays = generate(board, rack)
    if not plays:
        return 0, None
    return max(plays, key=lambda p: p[0])


def _world_value(
    state: TrioletState, points: int, action: Action, world: list[int]
) -> float:
    """One sampled world: points now − the opponent's best reply (any shape, with the
    rack ``world[:3]``) + w · the bot's best next play (kept tokens + ``world[3:]``)."""
    rack = state.racks[state.to_move]
    board = state.board
    if isinstance(action, PlayTokens):
        placed = [(cell_index(p.cell), JOKER if p.joker else p.value, p.value) for p in
                  action.placements]
        kept = _rest_of_rack(rack, [t for _, t, _ in placed])
        board = _after(board, tuple(placed))
        if not kept and not state.bag:
            return points + sum(t for t in world[:RACK_SIZE] if t != JOKER)
    else:
        kept = _rest_of_rack(rack, list(action.tokens)) if isinstance(action, Exchange) else rack
    draws = min(RACK_SIZE - len(kept), len(state.bag))
    mine = kept + world[RACK_SIZE : RACK_SIZE + draws]
    reply, reply_play = _best_points(board, world[:RACK_SIZE])
    if reply_play is not None:
        board = _after(board, reply_play)
    follow, _ = _best_points(board, mine)
    return points - reply + NEXT_TURN_WEIGHT * follow


def choose(state: TrioletState, rng: random.Random, budget_s: float) -> Action:
    """A legal action for the player to move, within about ``budget_s`` seconds: the
    static ranking, then sampled worlds on the best :data:`SIMULATED` candidates."""
    deadline = time.perf_counter() + budget_s
    found = ranked(state)
    if not found:
        return Pass()
    top = found[:SIMULATED]
    if len(top) == 1 or budget_s <= 0:
        return top[0][2]
    unseen = sorted(unseen_tokens(state, state.to_move).elements())
    totals = [value * STATIC_WEIGHT for value, _, _ in top]
    worlds = 0
    while worlds < MAX_WORLDS and time.perf_counter() < deadline:
        world = list(unseen)
        rng.shuffle(world)
        for k, (_, points, action) in enumerate(top):
            totals[k] += _world_value(state, points, action, world)
        worlds += 1
    best = max(range(len(top)), key=lambda k: totals[k])
    return top[best][2]


def hint(state: TrioletState, budget_s: float) -> dict[str, Any]:
    """``{"action", "why", "points", "reason"}`` for the player to move; ``reason`` is
    ``why`` as ``{"kind", **params}`` (the web words ``hint.triolet.<kind>``)."""
    found = ranked(state)
    if not found:
        return {"action": action_to_json(Pass()), "why": "no play and no exchange", "points": 0,
                "reason": {"kind": "no_move"}}
    value, points, action = found[0]
    reason: dict[str, Any]
    if isinstance(action, PlayTokens):
        why = (
            f"scores {points} now; net of the best reply it leaves and what you keep, "
            f"worth about {value:.0f}"
        )
        reason = {"kind": "play", "points": points, "worth": round(value)}
    elif isinstance(action, Exchange):
        why, reason = "no play is worth keeping this rack: exchange", {"kind": "exchange"}
    else:
        why, reason = "no play and no exchange is possible: pass", {"kind": "pass"}
    return {"action": action_to_json(action), "why": why, "points": points, "reason": reason}


def greedy_choose(state: TrioletState, rng: random.Random, budget_s: float) -> Action:
    """The baseline: the highest score now; with no play, exchange the whole rack."""
    plays = state.plays()
    if plays:
        return state.play_action(max(plays, key=lambda p: p[0])[1])
    swaps = state.exchanges_possible()
    if swaps:
        return swaps[-1]  # the whole rack (exchanges are listed shortest first)
    return Pass()
