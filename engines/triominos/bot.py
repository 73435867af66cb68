"""Triominos computer player: determinized Monte-Carlo over greedy playouts.

Greedy play (take the highest score now) hands out hexagons and bridges, keeps the tiles
that fit nowhere, and ignores who will go out. The bot plays each candidate — every
legal placement, and drawing instead (M9 lets a player draw rather than place) — to the
end of the round in sampled worlds and keeps the one that wins most often (margin as a
small tie-break). It only uses what a player at the table can see: the board, its own
rack, how many tiles the others hold, and what their last turn showed (a player who drew
had no tile that fitted; one who placed had none scoring more — :func:`read_turns`).
Each world deals the unseen tiles to the other racks and the pool accordingly (the same
worlds and tie-breaks for every candidate), then both sides play the greedy policy. As
many worlds as the time budget allows (at least 2).

With one candidate it plays it; with none it draws (−5) and, after the third draw, passes.

>>> import random
>>> from engines.triominos import TriominosGame
>>> state = TriominosGame({"players": ["Ana", "Bot"]}).new_initial_state(random.Random(2))
>>> action = choose(state, random.Random(0), 0.05)
>>> action in state.legal_actions()
True
>>> sorted(hint(state, 0.05))
['action', 'bonus', 'points', 'reason', 'why']
"""

from __future__ import annotations

import random
import time
from typing import Any

from engines.core import Pass
from engines.lattice import Cell
from engines.triominos.actions import Action, Draw, Place, action_to_json
from engines.triominos.board import Board, cell_key, key_cell
from engines.triominos.game import TriominosState
from engines.triominos.rules import DRAW_PENALTY, bonus_points

MIN_WORLDS = 2
MAX_WORLDS = 200
WIN_WEIGHT = 1.0
MARGIN_WEIGHT = 0.002
CONSIDER_DRAW = True  # drawing instead of placing is a candidate too (M9 allows it)


def unseen_tiles(state: TriominosState, seat: int) -> list[int]:
    """Tiles ``seat`` cannot see: the pool and the other racks (sorted tile indices)."""
    seen = set(state.racks[seat])
    ts = state.tileset
    on_board = {ts.find(c) for c in state.board.tiles.values()}
    return [t for t in range(ts.size) if t not in seen and t not in on_board]


def best_scores(state: TriominosState, board: Board, tiles: list[int]) -> dict[int, int]:
    """The most each tile could score on ``board`` (tiles that fit nowhere are left out)."""
    ts = state.tileset
    young = state.rules.young
    pressman = state.rules.bridge == "pressman"
    best: dict[int, int] = {}
    for key, corner_key in board.frontier.items():
        mask = ts.fit[corner_key]
        if not mask:
            continue
        extra = bonus_points(board.bonus(key, pressman), young)
        for t in tiles:
            if mask & ts.tile_placements[t]:
                score = (1 if young else ts.pips[t]) + extra
                if score > best.get(t, -1):
                    best[t] = score
    return best


def read_turns(state: TriominosState, seat: int) -> dict[int, tuple[int, list[int]]]:
    """What each opponent's last turn says about their rack.

    Players usually place their best tile when one fits, and draw when none does. So a
    player who drew at the start of their turn held then — their rack now, less what they
    drew — only tiles with no place on the board as it was; one who placed at once held
    no tile that would have scored more. Returns, per opponent seat, (how many of their
    tiles are such old tiles, the unseen tiles those can be).
    """
    found: dict[int, tuple[int, list[int]]] = {}
    names = {name: k for k, name in enumerate(state.players)}
    log = state.log
    unseen = unseen_tiles(state, seat)
    end = len(log)
    done: set[int] = {seat}
    while end > 0 and len(done) < len(state.players):
        player = names.get(str(log[end - 1]["player"]))
        start = end
        while start > 0 and names.get(str(log[start - 1]["player"])) == player:
            start -= 1
        if player is None or player in done:
            end = start
            continue
        done.add(player)
        turn = log[start:end]
        later = [e["action"]["place"] for e in log[start:] if "place" in e["action"]]
        end = start
        board = state.board.copy()
        for place in later:
            key = cell_key(Cell.from_json(place["cell"]))
            if board.tiles.get(key) != tuple(place["corners"]):
                break  # a new round began since: the board is not that one
            board.remove(key)
        else:
            if not board.tiles:
                continue
            first = turn[0]["action"]
            scores = best_scores(state, board, unseen)
            if "draw" in first:
                draws = sum(1 for e in turn if "draw" in e["action"])
                placed = 1 if "place" in turn[-1]["action"] else 0
                old = len(state.racks[player]) - draws + placed
                allowed = [t for t in unseen if t not in scores]
            elif "place" in first:
                old = len(state.racks[player])
                made = int(turn[0]["points"])
                allowed = [t for t in unseen if scores.get(t, -1) <= made]
            else:
                continue
            if old > 0 and len(allowed) >= old:
                found[player] = (old, allowed)
    return found


def determinize(
    state: TriominosState,
    seat: int,
    rng: random.Random,
    hints: dict[int, tuple[int, list[int]]] | None = None,
) -> TriominosState:
    """A copy where everything ``seat`` cannot see (other racks, pool order) is resampled,
    keeping what :func:`read_turns` learnt (``hints``)."""
    world = state.clone()
    unseen = unseen_tiles(state, seat)
    taken: set[int] = set()
    known: dict[int, list[int]] = {}
    for other, (old, nofit) in (hints or {}).items():
        free = [t for t in nofit if t not in taken]
        if len(free) >= old:
            known[other] = rng.sample(free, old)
            taken.update(known[other])
    rest = [t for t in unseen if t not in taken]
    rng.shuffle(rest)
    at = 0
    for other in range(len(state.players)):
        if other == seat:
            continue
        base = known.get(other, [])
        need = len(state.racks[other]) - len(base)
        world.racks[other] = base + rest[at : at + need]
        at += need
    world.pool = rest[at : at + len(state.pool)]  # beyond: tiles a position left out
    return world


def rollout(state: TriominosState, rng: random.Random) -> None:
    """Play greedily to the end of the current round (in place)."""
    start = state.round
    while not state.over and state.round == start:
        state.apply(greedy_choose(state, rng))


class _Candidate:
    __slots__ = ("action", "points", "bonus", "total")

    def __init__(self, action: Action, points: int, bonus: str | None) -> None:
        self.action = action
        self.points = points
        self.bonus = bonus
        self.total = 0.0


def _evaluate(
    state: TriominosState, rng: random.Random, budget_s: float
) -> tuple[list[_Candidate], int]:
    """Every legal placement (and drawing instead, when allowed) with its mean result
    against the best opponent at the end of the round, over sampled worlds; returns
    (candidates best first, worlds played)."""
    seat = state.to_move
    ts = state.tileset
    deadline = time.perf_counter() + max(budget_s, 0.0)
    candidates: list[_Candidate] = []
    for key, p in state.placements(seat):
        corners = ts.placement_corners[p]
        points, bonus, _ = state.placement_score(key, corners)
        candidates.append(_Candidate(Place(key_cell(key), corners), points, bonus))
    if CONSIDER_DRAW and candidates and state.can_draw():
        candidates.append(_Candidate(Draw(), 0 if state.rules.young else -DRAW_PENALTY, None))
    if len(candidates) <= 1:
        return candidates, 0
    worlds = 0
    hints = read_turns(state, seat)
    while worlds < MAX_WORLDS and (worlds < MIN_WORLDS or time.perf_counter() < deadline):
        world = determinize(state, seat, rng, hints)
        line_seed = rng.getrandbits(32)
        for c in candidates:
            line = world.clone()
            line.apply(c.action)
            # the same tie-breaks in every candidate's playout: compare like with like
            rollout(line, random.Random(line_seed))
            mine = line.score_list[seat]
            best_other = max(s for k, s in enumerate(line.score_list) if k != seat)
            margin = mine - best_other
            # the aim is to win: a won world counts 1, a margin point a little
            c.total += WIN_WEIGHT * ((margin > 0) + 0.5 * (margin == 0)) + margin * MARGIN_WEIGHT
        worlds += 1
    # ties (common with few worlds) go to the higher score now
    candidates.sort(key=lambda c: (-c.total, -c.points))
    return candidates, worlds


def choose(state: TriominosState, rng: random.Random, budget_s: float) -> Action:
    """A legal action for the player to move, within about ``budget_s`` seconds."""
    candidates, _ = _evaluate(state, rng, budget_s)
    if candidates:
        return candidates[0].action
    return Draw() if state.can_draw() else Pass()


def hint(state: TriominosState, budget_s: float) -> dict[str, Any]:
    """The bot's advice for the player to move: ``action``, ``why``, ``points``, ``bonus``
    and ``reason``: ``why`` as ``{"kind", **params}`` (the web words ``hint.triominos.<kind>``)."""
    rng = random.Random(len(state.log))
    candidates, worlds = _evaluate(state, rng, budget_s)
    if not candidates:
        action: Action = Draw() if state.can_draw() else Pass()
        kind = "draw_no_fit" if isinstance(action, Draw) else "pass_no_fit"
        why = "no tile fits: draw (−5)" if isinstance(action, Draw) else "nothing fits: pass"
        return {"action": action_to_json(action), "why": why, "points": 0, "bonus": None,
                "reason": {"kind": kind}}
    best = candidates[0]
    reason: dict[str, Any] = {"points": best.points, "bonus": best.bonus}
    if isinstance(best.action, Draw):
        why = "every placement helps the others more: draw instead"
        reason["kind"] = "draw_better"
    else:
        bonus = f" with a {best.bonus.replace('_', ' ')}" if best.bonus else ""
        why = f"scores {best.points}{bonus}"
        if worlds:
            rate = best.total / worlds
            why += f"; it won about {rate:.0%} of {worlds} sampled deals played out"
            reason.update(kind="sampled", rate=int(f"{rate:.0%}"[:-1]), worlds=worlds)
        elif len(state.racks[state.to_move]) == 1:
            why += " and goes out"
            reason["kind"] = "goes_out"
        else:
            why += "; it is the only tile that fits"
            reason["kind"] = "only_tile"
    return {"action": action_to_json(best.action), "why": why, "points": best.points,
            "bonus": best.bonus, "reason": reason}


def greedy_choose(state: TriominosState, rng: random.Random) -> Action:
    """The baseline: the highest-scoring placement now (ties at random), else draw, else pass.

    >>> import random
    >>> from engines.triominos import TriominosGame
    >>> state = TriominosGame().new_initial_state(random.Random(4))
    >>> isinstance(greedy_choose(state, random.Random(0)), Place)
    True
    """
    ts = state.tileset
    board = state.board
    if not board.tiles:  # the opening: plain enumeration
        options = [
            (state.placement_score(k, ts.placement_corners[p])[0], k, p)
            for k, p in state.placements()
        ]
        if not options:
            return Draw() if state.can_draw() else Pass()
        top = max(o[0] for o in options)
        _, key, p = rng.choice([o for o in options if o[0] == top])
        return Place(key_cell(key), ts.placement_corners[p])
    hand = state.playable_mask(state.to_move)
    fit = ts.fit
    pips = ts.placement_pips
    young = state.rules.young
    best: list[tuple[int, int]] = []
    best_points = -(10**9)
    for key in sorted(board.frontier):
        mask = fit[board.frontier[key]] & hand
        if not mask:
            continue
        _, extra = state.cell_bonus(key)
        # placement ids run from the highest pip sum down: the lowest bits score most
        top_pips = pips[(mask & -mask).bit_length() - 1]
        points = (1 if young else top_pips) + extra
        if points < best_points:
            continue
        if points > best_points:
            best, best_points = [], points
        while mask:
            low = mask & -mask
            p = low.bit_length() - 1
            if not young and pips[p] != top_pips:
                break
            best.append((key, p))
            mask ^= low
    if best:
        key, p = rng.choice(best)
        return Place(key_cell(key), ts.placement_corners[p])
    return Draw() if state.can_draw() else Pass()


__all__ = ["choose", "greedy_choose", "hint", "unseen_tiles"]
