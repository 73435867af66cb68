"""Draws: Swiss pairings and groups, pools, elimination brackets. Pure functions.

Every function takes players already ordered by standing (or seed) and answers with
player ids; nothing here reads the clock or a global random source, so a draw is
reproducible.

Swiss duels are paired by :mod:`hub.tournament.pairing` (the Dutch system's
criteria); larger Swiss tables are grouped here.

>>> bracket_order(8, 2)
[1, 8, 4, 5, 2, 7, 3, 6]
>>> snake_pools(["s1", "s2", "s3", "s4", "s5", "s6"], 3)
[['s1', 's6'], ['s2', 's5'], ['s3', 's4']]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from hub.tournament.pairing import pair_key, pair_swiss

__all__ = ["abc_pool_games", "abc_tier", "abc_tier_counts", "bracket_order", "play_in", "bracket_size", "club_pools", "group_sizes", "group_swiss", "pair_key", "pool_count",
           "pool_rounds", "round_names", "snake_pools", "spread_pools"]


def group_sizes(n: int, seats: int) -> list[int]:
    """Sizes of the groups for ``n`` players at matches of ``seats``: as few groups as
    possible, sizes differing by at most one (so some play one short), none of one
    (a lone player is a bye) — duels with an odd count leave one bye.

    >>> group_sizes(10, 4), group_sizes(9, 2), group_sizes(5, 4)
    ([4, 3, 3], [2, 2, 2, 2, 1], [3, 2])
    """
    if n <= 0:
        return []
    if seats == 2:
        return [2] * (n // 2) + [1] * (n % 2)
    count = math.ceil(n / seats)
    base, extra = divmod(n, count)
    return [base + 1] * extra + [base] * (count - extra)


def group_swiss(
    ranked: Sequence[str],
    scores: Mapping[str, float],
    seats: int,
    met: set[tuple[str, str]] | frozenset[tuple[str, str]],
    byes: Mapping[str, int],
) -> tuple[list[tuple[str, ...]], str | None]:
    """Groups of ``seats`` for a Swiss round, formed by standing: (groups, bye).

    Pairs (``seats == 2``): :func:`hub.tournament.pairing.pair_swiss` (``scores``: the
    points so far, for its score groups). Larger groups: a depth-first search
    in standing order for groups where nobody meets a past opponent (the first found is
    the closest to the standings); when there is none, or the search runs past
    :data:`GROUP_SEARCH_NODES`, groups filled in standing order, each next member the
    first of the next few unplaced players who met the fewest of the group already.

    >>> group_swiss(["a", "b", "c", "d", "e", "f"], {}, 3, {("a", "b")}, {})
    ([('a', 'c', 'd'), ('b', 'e', 'f')], None)
    """
    if seats == 2:
        pairs, bye = pair_swiss(ranked, scores, met, byes)
        return [tuple(p) for p in pairs], bye
    players = list(ranked)
    sizes = group_sizes(len(players), seats)
    bye = None
    if sizes and sizes[-1] == 1:
        fewest = min(byes.get(p, 0) for p in players)
        bye = next(p for p in reversed(players) if byes.get(p, 0) == fewest)
        players.remove(bye)
        sizes.pop()
    found = _groups_without_repeats(players, sizes, met)
    if found is not None:
        return found, bye
    groups: list[tuple[str, ...]] = []
    left = players
    for size in sizes:
        group = [left[0]]
        rest = left[1:]
        for _ in range(size - 1):
            window = rest[: 3 * seats]
            choice = min(window, key=lambda p: (sum(pair_key(p, q) in met for q in group), rest.index(p)))
            group.append(choice)
            rest.remove(choice)
        groups.append(tuple(group))
        left = rest
    return groups, bye


GROUP_SEARCH_NODES = 20_000


class _OutOfBudget(Exception):
    pass


def _groups_without_repeats(players: list[str], sizes: list[int],
                            met: set[tuple[str, str]] | frozenset[tuple[str, str]]
                            ) -> list[tuple[str, ...]] | None:
    """Groups of the given sizes with no past opponents together, the best standings
    first; None when there are none or the search is too long."""
    budget = [GROUP_SEARCH_NODES]

    def fits(p: str, group: list[str]) -> bool:
        return all(pair_key(p, q) not in met for q in group)

    def fill(group: list[str], candidates: list[str], need: int) -> Iterator[list[str]]:
        if need == 0:
            yield group
            return
        for i, p in enumerate(candidates):
            budget[0] -= 1
            if budget[0] < 0:
                raise _OutOfBudget
            if fits(p, group):
                yield from fill([*group, p], candidates[i + 1:], need - 1)

    def search(left: list[str], todo: list[int]) -> list[tuple[str, ...]] | None:
        if not todo:
            return []
        for size in sorted(set(todo), reverse=True):  # the best player's group: full if it can be
            others = list(todo)
            others.remove(size)
            for group in fill([left[0]], left[1:], size - 1):
                chosen = set(group)
                rest = search([p for p in left if p not in chosen], others)
                if rest is not None:
                    return [tuple(group), *rest]
        return None

    try:
        return search(players, sizes)
    except _OutOfBudget:
        return None


def snake_pools(seeded: Sequence[str], count: int) -> list[list[str]]:
    """Spread seeded players over ``count`` pools: 1, 2, …, count, then back."""
    pools: list[list[str]] = [[] for _ in range(count)]
    for i, player in enumerate(seeded):
        lap, pos = divmod(i, count)
        pools[pos if lap % 2 == 0 else count - 1 - pos].append(player)
    return pools


def club_pools(seeded: Sequence[str], count: int, club_of: Mapping[str, str]) -> list[list[str]]:
    """Seeded players over ``count`` pools as :func:`snake_pools` does, then no two of a
    club in one pool wherever a draw can do it (issue 32.17), each pool best seed first.

    Players move only within their seed band (one lap of the serpentine: seeds 1 to
    ``count``, then the next ``count``…), so every pool keeps one player of each band and
    the pools' strength stays even. Within that rule a separation exists whenever no club
    has more players than there are pools: players are the edges of a bipartite graph
    (clubs × bands) and pools its edge colours, so König's theorem promises a colouring
    with as many colours as the largest degree. Players whose serpentine pool holds a
    better seed of their club already are taken out and put back one by one, best seed
    first, by the textbook alternating-path recolouring (each step swaps two pools'
    players within one band). A club with more players than pools is split in runs of
    ``count`` by seed, so no pool gets more of it than it must. No club ("") is no
    constraint. Deterministic: the same seeding gives the same draw.

    >>> club_pools(["a1", "a2", "b1", "b2"], 2, {"a1": "A", "a2": "A", "b1": "B", "b2": "B"})
    [['a1', 'b2'], ['a2', 'b1']]
    >>> club_pools(["a1", "b1", "a2", "b2"], 2, {"a1": "A", "a2": "A", "b1": "B", "b2": "B"})
    [['a1', 'b2'], ['b1', 'a2']]
    """
    snake = snake_pools(seeded, count)
    first = {p: pool for pool, members in enumerate(snake) for p in members}
    seed = {p: i for i, p in enumerate(seeded)}
    band = {p: i // count for i, p in enumerate(seeded)}
    runs: dict[str, int] = {}
    club: dict[str, tuple[str, ...]] = {}
    for p in seeded:
        name = club_of.get(p, "")
        if not name:
            club[p] = ("", p)  # a club of one: never a clash
            continue
        club[p] = (name, str(runs.get(name, 0) // count))
        runs[name] = runs.get(name, 0) + 1
    pool_of: dict[str, int] = {}
    at_club: dict[tuple[str, ...], dict[int, str]] = {}
    at_band: dict[int, dict[int, str]] = {}

    def put(p: str, pool: int) -> None:
        pool_of[p] = pool
        at_club.setdefault(club[p], {})[pool] = p
        at_band.setdefault(band[p], {})[pool] = p

    def take(p: str) -> None:
        pool = pool_of.pop(p)
        del at_club[club[p]][pool], at_band[band[p]][pool]

    waiting = []
    for p in seeded:
        if first[p] in at_club.get(club[p], {}):
            waiting.append(p)
        else:
            put(p, first[p])
    for p in waiting:
        club_free = [c for c in range(count) if c not in at_club.get(club[p], {})]
        band_free = [c for c in range(count) if c not in at_band.get(band[p], {})]
        both = [c for c in band_free if c in club_free]
        if both:
            put(p, first[p] if first[p] in both else both[0])
            continue
        alpha, beta = club_free[0], (first[p] if first[p] in band_free else band_free[0])
        path, here, colour, other = [], band[p], alpha, beta
        while (q := at_band.get(here, {}).get(colour)) is not None:
            path.append(q)
            r = at_club.get(club[q], {}).get(other)
            if r is None:
                break
            path.append(r)
            here = band[r]
        for q in path:
            take(q)
        for i, q in enumerate(path):
            put(q, beta if i % 2 == 0 else alpha)
        put(p, alpha)
    pools: list[list[str]] = [[] for _ in range(count)]
    for p in sorted(seeded, key=seed.__getitem__):
        pools[pool_of[p]].append(p)
    return pools


def pool_count(n: int, pool_size: int) -> int:
    """How many pools for ``n`` players in pools of at most ``pool_size``."""
    return max(1, math.ceil(n / pool_size))


def pool_rounds(pool: Sequence[str], seats: int) -> list[list[tuple[str, ...]]]:
    """The matches of one pool, in rounds where nobody plays twice: one match of
    everyone when the pool fits at one table, else every group of ``seats`` once (for
    duels a round robin by the circle method).

    >>> pool_rounds(["a", "b", "c", "d"], 2)
    [[('a', 'd'), ('b', 'c')], [('a', 'c'), ('d', 'b')], [('a', 'b'), ('c', 'd')]]
    >>> pool_rounds(["a", "b", "c"], 2)
    [[('b', 'c')], [('a', 'c')], [('a', 'b')]]
    >>> pool_rounds(["a", "b", "c"], 4)
    [[('a', 'b', 'c')]]
    """
    if len(pool) <= seats:
        return [[tuple(pool)]]
    if seats == 2:
        ring: list[str | None] = list(pool) + ([None] if len(pool) % 2 else [])
        rounds: list[list[tuple[str, ...]]] = []
        n = len(ring)
        for _ in range(n - 1):
            pairs = [(ring[i], ring[n - 1 - i]) for i in range(n // 2)]
            rounds.append([(a, b) for a, b in pairs if a is not None and b is not None])
            ring = [ring[0], ring[-1], *ring[1:-1]]
        return rounds
    left = list(itertools.combinations(pool, seats))
    packed: list[list[tuple[str, ...]]] = []
    while left:
        taken: set[str] = set()
        rnd = []
        for group in list(left):
            if taken.isdisjoint(group):
                rnd.append(group)
                taken.update(group)
                left.remove(group)
        packed.append(rnd)
    return packed


PoolGame = tuple[str, ...] | tuple[tuple[str, int], ...]
"""An AB/ABC pool game: its players, or where they come from — ("winner" | "loser",
index of an earlier game of the same pool)."""


def abc_pool_games(pool: Sequence[str]) -> list[list[PoolGame]]:
    """The games of one AB/ABC pool in rounds: a pool of 4 (best seed first) plays 1st
    against 4th and 2nd against 3rd, then winners against winners and losers against
    losers, then the third game between the two with one win each (the winners' game's
    loser against the losers' game's winner); a smaller pool plays a round robin.

    >>> abc_pool_games(["a", "b", "c", "d"])  # doctest: +NORMALIZE_WHITESPACE
    [[('a', 'd'), ('b', 'c')],
     [(('winner', 0), ('winner', 1)), (('loser', 0), ('loser', 1))],
     [(('loser', 2), ('winner', 3))]]
    >>> abc_pool_games(["a", "b", "c"])
    [[('b', 'c')], [('a', 'c')], [('a', 'b')]]
    """
    if len(pool) != 4:
        return [list(r) for r in pool_rounds(pool, 2)]
    a, b, c, d = pool
    return [[(a, d), (b, c)],
            [(("winner", 0), ("winner", 1)), (("loser", 0), ("loser", 1))],
            [(("loser", 2), ("winner", 3))]]


def abc_tier(place: int, pool_size: int, split: str) -> int:
    """Which AB/ABC tournament (0: A, 1: B, 2: C) a pool place leads to: the better half
    of the pool (its two-win players in a pool of 4) into A; with ``ABC`` the next place
    into B and the rest into C, with ``AB`` the rest into B.

    >>> [abc_tier(p, 4, "ABC") for p in (1, 2, 3, 4)], [abc_tier(p, 4, "AB") for p in (1, 2, 3, 4)]
    ([0, 0, 1, 2], [0, 0, 1, 1])
    >>> [abc_tier(p, 3, "ABC") for p in (1, 2, 3)]
    [0, 1, 2]
    """
    top = max(1, pool_size // 2)
    if place <= top:
        return 0
    return 1 if split == "AB" or place == top + 1 else 2


def abc_tier_counts(pool_sizes: Sequence[int], split: str) -> tuple[int, int, int]:
    """How many players enter tournaments A, B and C (known at the start: one per pool
    place, whatever the results).

    >>> abc_tier_counts([4, 4, 4, 3], "ABC"), abc_tier_counts([4, 4, 4, 3], "AB")
    ((7, 4, 4), (7, 8, 0))
    """
    counts = [0, 0, 0]
    for size in pool_sizes:
        for place in range(1, size + 1):
            counts[abc_tier(place, size, split)] += 1
    return counts[0], counts[1], counts[2]


def play_in(n: int) -> tuple[int, int]:
    """A knock-out of ``n`` duellists that is not a power of two starts with a play-in
    round (cadrage): (matches, players exempt) — the fewest matches that leave a power
    of two, the top seeds exempt. The bracket's byes (:func:`bracket_order`) are exactly
    this: its first round pairs the lowest seeds and the exempt are its best.

    >>> play_in(12), play_in(16), play_in(5)
    ((4, 4), (0, 16), (1, 3))
    """
    low = 1 << (n.bit_length() - 1)
    if low == n:
        return 0, n
    return n - low, 2 * low - n


JSONDict = dict[str, Any]
KNOCKOUT_STAGES = ("main", "consolation", "c")


def round_names(rounds: Mapping[str, Mapping[int, int]], double: bool = False) -> dict[tuple[str, int], JSONDict]:
    """What each knock-out round is called, as a kind and its parameters (pages word it):
    counted back from the stage's last round, ``final``, ``semi``, ``quarter``, then
    ``round_of`` (``matches``, ``players``); a double elimination's main bracket ends in
    the ``winners_final`` (the grand final follows). A round that does not halve into the
    next (a play-in) stays ``round`` ``n``; a losers bracket's are ``losers_round`` ``n``
    then its ``losers_final``; the grand final ``grand_final``, its replay
    ``grand_final_reset``. ``rounds`` is
    {stage: {round: matches in it}}; the seats per match is the step between rounds.

    >>> names = round_names({"main": {1: 8, 2: 4, 3: 2, 4: 1}})
    >>> [names[("main", r)]["kind"] for r in (1, 2, 3, 4)]
    ['round_of', 'quarter', 'semi', 'final']
    >>> names[("main", 1)]
    {'kind': 'round_of', 'matches': 8, 'players': 16}
    >>> round_names({"main": {1: 3, 2: 4, 3: 2, 4: 1}})[("main", 1)]  # 11 players: a play-in
    {'kind': 'round', 'n': 1}
    >>> names = round_names({"losers": {1: 2, 2: 2, 3: 1}, "grand": {1: 1, 2: 1}})
    >>> names[("losers", 2)], names[("losers", 3)], names[("grand", 2)]
    ({'kind': 'losers_round', 'n': 2}, {'kind': 'losers_final'}, {'kind': 'grand_final_reset'})
    """
    out: dict[tuple[str, int], JSONDict] = {}
    for stage, counts in rounds.items():
        last = max(counts, default=0)
        seats = 2
        if counts.get(last - 1, 0) > 1 and counts.get(last) == 1:
            seats = counts[last - 1]
        for r, count in counts.items():
            back = last - r
            name: JSONDict = {"kind": "round", "n": r}
            if stage == "losers":  # its rounds do not halve: counted from the first, the last its final
                name = {"kind": "losers_final"} if back == 0 else {"kind": "losers_round", "n": r}
            elif stage == "grand":
                name = {"kind": "grand_final" if r == 1 else "grand_final_reset"}
            elif stage in KNOCKOUT_STAGES and count == seats ** back:
                if back == 0:
                    name = {"kind": "winners_final" if double and stage == "main" else "final"}
                elif back == 1:
                    name = {"kind": "semi"}
                elif back == 2 and seats == 2:
                    name = {"kind": "quarter"}
                else:
                    name = {"kind": "round_of", "matches": count, "players": count * seats}
            out[(stage, r)] = name
    return out


def bracket_order(size: int, seats: int) -> list[int]:
    """Seeds in bracket order for an elimination table of ``size`` slots (a power of
    ``seats``): consecutive runs of ``seats`` are the first-round matches, and the best
    seeds meet as late as possible (1 and 2 only in the final).

    >>> bracket_order(9, 3)
    [1, 6, 7, 2, 5, 8, 3, 4, 9]
    """
    order = [1]
    span = 1
    while span < size:
        order = [s + j * span if j % 2 == 0 else (j + 1) * span + 1 - s
                 for s in order for j in range(seats)]
        span *= seats
    return order


def spread_pools(seeded: Sequence[str], tiers: Sequence[int], pool_of: Mapping[str, str],
                 seats: int) -> list[str]:
    """The seeds of a bracket reordered, only within each tier (a pool place), so that
    first-round matches do not bring back players of one pool where swaps can avoid it.

    >>> spread_pools(["a1", "b1", "b2", "a2"], [1, 1, 2, 2], {"a1": "A", "a2": "A",
    ...              "b1": "B", "b2": "B"}, 2)
    ['a1', 'b1', 'a2', 'b2']
    """
    size = bracket_size(len(seeded), seats)
    order = bracket_order(size, seats)
    groups = [[s for s in order[i:i + seats] if s <= len(seeded)] for i in range(0, size, seats)]
    group_of = {s: g for g, members in enumerate(groups) for s in members}
    seeds = list(seeded)

    def clashes(s: int) -> int:  # others of seed s's first-round match from its pool
        pool = pool_of[seeds[s - 1]]
        return sum(1 for t in groups[group_of[s]] if t != s and pool_of[seeds[t - 1]] == pool)

    for _ in range(len(seeds)):  # each pass removes at least one clash, or stops
        improved = False
        for s in range(len(seeds), 0, -1):  # the lower seeds move first
            if not clashes(s):
                continue
            for t in range(len(seeds), 0, -1):
                if t == s or tiers[t - 1] != tiers[s - 1] or group_of[t] == group_of[s]:
                    continue
                before = clashes(s) + clashes(t)
                seeds[s - 1], seeds[t - 1] = seeds[t - 1], seeds[s - 1]
                if clashes(s) + clashes(t) < before:
                    improved = True
                    break
                seeds[s - 1], seeds[t - 1] = seeds[t - 1], seeds[s - 1]
        if not improved:
            break
    return seeds


def bracket_size(n: int, seats: int) -> int:
    """The smallest power of ``seats`` that holds ``n`` players (at least ``seats``)."""
    size = seats
    while size < n:
        size *= seats
    return size
