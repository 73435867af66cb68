"""Triominos options and scoring constants (docs/rules/triominos.md M2–M14).

>>> rules = Rules.from_options({"players": ["Ana", "Ben", "Cy"]})
>>> rules.set_name
'classic'
>>> dealt = deal(rules, SETS["classic"], seed=5)
>>> [len(r) for r in dealt.racks], len(dealt.pool), dealt.first in (0, 1, 2)
([7, 7, 7], 35, True)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from engines.core import (
    JSON,
    RecordError,
    check_keys,
    choice_option,
    flag_option,
    number_option,
    parse_players,
)
from engines.triominos.board import BRIDGE
from engines.triominos.tiles import SETS, TileSet

OPTION_FIELDS = (
    "players",
    "set",
    "rules",
    "bridge",
    "blocked",
    "empty_pool_penalty",
    "target",
    "young",
)

HAND_SIZES = {2: 9, 3: 7, 4: 7, 5: 6, 6: 6}  # M2
DRAW_PENALTY = 5  # M9, per tile
MAX_DRAWS = 3  # M9
NO_PLAY_PENALTY = 10  # M9, after the third draw
OUT_BONUS = 25  # M11
HEXAGON_POINTS = {"hexagon": 50, "double_hexagon": 60, "triple_hexagon": 70}  # M6
BRIDGE_POINTS = 40  # M7
OPENING_TRIPLE_BONUS = 10  # M3 pressman
OPENING_ZERO_BONUS = 40  # M3 pressman: 0-0-0 scores 40 in all
YOUNG_OUT_BONUS = 5  # M14


@dataclass(frozen=True)
class Rules:
    """Validated options. Defaults follow ``rules`` (Goliath unless ``"pressman"``).

    - ``set``: ``"classic"`` (2–4 players) or ``"excel"`` (default for 5–6 players).
    - ``bridge``: ``"goliath"`` (M7: flanks empty) or ``"pressman"`` (also the two-side
      notch under a bridge).
    - ``blocked``: ``"subtract"`` (M12: everyone loses their own hand) or
      ``"lowest_wins"`` (Pressman: the lowest hand scores the others' totals minus its own).
    - ``empty_pool_penalty``: points lost passing with an empty pool (0; Pressman 10).
    - ``target``: match to this score (M13), or null for one round.
    - ``young``: M14 scoring (tile 1, bonus +1, going out 5; no penalties).

    >>> Rules.from_options({"rules": "pressman"}).blocked
    'lowest_wins'
    >>> Rules.from_options({"players": ["A", "B", "C", "D", "E"]}).set_name
    'excel'
    >>> Rules.from_options({"colour": "red"})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: options: unknown field 'colour'
    """

    players: tuple[str, ...]
    set_name: str
    rules: str
    bridge: str
    blocked: str
    empty_pool_penalty: int
    target: int | None
    young: bool

    @classmethod
    def from_options(cls, options: Mapping[str, JSON]) -> Rules:
        opts = check_keys(dict(options), OPTION_FIELDS, "options")
        players = parse_players(opts.get("players", ["P1", "P2"]), 2, 6)
        set_name = choice_option(
            opts.get("set", "excel" if len(players) >= 5 else "classic"), "set", tuple(SETS)
        )
        if set_name == "classic" and len(players) > 4:
            raise RecordError("set: the classic set is for 2 to 4 players (5-6 need excel)")
        rules = choice_option(opts.get("rules", "goliath"), "rules", ("goliath", "pressman"))
        pressman = rules == "pressman"
        bridge = choice_option(opts.get("bridge", rules), "bridge", ("goliath", "pressman"))
        blocked = choice_option(
            opts.get("blocked", "lowest_wins" if pressman else "subtract"),
            "blocked",
            ("subtract", "lowest_wins"),
        )
        penalty = number_option(
            opts.get("empty_pool_penalty", 10 if pressman else 0), "empty_pool_penalty", 0
        )
        target = opts.get("target")
        if target is not None and (
            isinstance(target, bool) or not isinstance(target, int) or target <= 0
        ):
            raise RecordError(f"target: expected a positive number or null, got {target!r}")
        young = flag_option(opts.get("young", False), "young")
        return cls(tuple(players), set_name, rules, bridge, blocked, penalty, target, young)


def bonus_points(bonus: str | None, young: bool) -> int:
    """What a bonus adds to a placement (M6, M7; M14: 1).

    >>> bonus_points("double_hexagon", False), bonus_points("bridge", True), bonus_points(None, False)
    (60, 1, 0)
    """
    if bonus is None:
        return 0
    if young:
        return 1
    return BRIDGE_POINTS if bonus == BRIDGE else HEXAGON_POINTS[bonus]


@dataclass(frozen=True)
class Deal:
    """A round's deal: racks and pool (tile indices, the pool drawn from the front), the
    first seat and, under Goliath rules, the tiles each player drew to decide it."""

    racks: list[list[int]]
    pool: list[int]
    first: int
    opening_draw: dict[str, JSON]


def deal(rules: Rules, tileset: TileSet, seed: int) -> Deal:
    """Deal a round from ``seed``: the first player (M3), the hands (M2), the pool."""
    rng = random.Random(seed)
    ts = tileset
    n = len(rules.players)
    pool = list(range(ts.size))
    rng.shuffle(pool)
    opening_draw: dict[str, JSON] = {}
    first = 0
    if rules.rules == "goliath":
        contenders = list(range(n))
        drawn: dict[int, list[int]] = {p: [] for p in range(n)}
        at = 0
        while True:
            if at + len(contenders) > len(pool):
                rng.shuffle(pool)
                at = 0
            for k, p in enumerate(contenders):
                drawn[p].append(pool[at + k])
            at += len(contenders)
            best = max(ts.pips[drawn[p][-1]] for p in contenders)
            contenders = [p for p in contenders if ts.pips[drawn[p][-1]] == best]
            if len(contenders) == 1:
                break
        first = contenders[0]
        opening_draw = {rules.players[p]: [ts.name_of(t) for t in drawn[p]] for p in range(n)}
        rng.shuffle(pool)  # the drawn tiles go back and the pool is mixed again
    hand = HAND_SIZES[n]
    racks = [sorted(pool[p * hand : (p + 1) * hand]) for p in range(n)]
    if rules.rules == "pressman":
        first = pressman_opener(ts, racks)
    return Deal(racks, pool[n * hand :], first, opening_draw)


def pressman_opener(ts: TileSet, racks: list[list[int]]) -> int:
    """M3 Pressman: the highest triple starts; with none, the highest pip sum."""

    def strength(seat: int) -> tuple[int, int]:
        triples = [ts.pips[t] for t in racks[seat] if len(set(ts.tiles[t])) == 1]
        if triples:
            return (1, max(triples))
        return (0, max((ts.pips[t] for t in racks[seat]), default=-1))

    best = max(strength(s) for s in range(len(racks)))
    return next(s for s in range(len(racks)) if strength(s) == best)
