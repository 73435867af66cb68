"""Standings: points per placing, then the spec's tie-breaks, computed from the results.

The standings are never stored: they are a function of the done matches (which are a
function of the log), so they always equal a recomputation from the log.

Tie-breaks, in the spec's order after points: ``wins`` (matches placed alone first),
``score`` (points or palets scored), ``diff`` (score minus the mean score of the
opponents, "goal-average"), ``buchholz`` (opponents' points), ``median_buchholz`` (the
same without the best and the worst opponent), ``head_to_head`` (among the players
still tied: who placed ahead of whom when they met), and ``lot`` — a draw seeded by the
tournament's seed, so a replay gives the same order.

>>> from hub.tournament.model import Match, Spec
>>> spec = Spec.parse({"name": "x", "game": "trike", "format": "swiss", "points": [3, 0]})
>>> done = [Match("m1", 1, "swiss", 1, ("a", "b"), status="done", ranking=(("b",), ("a",))),
...         Match("m2", 2, "swiss", 1, ("c",), status="done", ranking=(("c",),), bye=True)]
>>> [(row.player, row.points, row.wins) for row in standings(spec, ["a", "b", "c"], done)]
[('c', 3.0, 1), ('b', 3.0, 1), ('a', 0.0, 0)]

(b and c tie on points, wins and Buchholz and never met: the seeded lot puts c first.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hub.tournament.model import Match, Spec

DESCENDING = {"wins", "score", "diff", "buchholz", "median_buchholz"}


def lot(seed: int, player: str) -> int:
    """The player's draw by lot: a number fixed by the tournament seed (lower is better)."""
    digest = hashlib.blake2b(f"{seed}:{player}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


@dataclass(slots=True)
class Standing:
    """One player's line in the standings."""

    player: str
    rank: int = 0
    points: float = 0.0
    played: int = 0
    wins: int = 0
    byes: int = 0
    score: float = 0.0
    diff: float = 0.0
    buchholz: float = 0.0
    median_buchholz: float = 0.0
    head_to_head: float = 0.0
    lot: int = 0
    opponents: list[str] = field(default_factory=list)
    decided_by: str = "points"
    """What separates this line from the next one down (the last line: from the one
    above): ``points`` or the first tie-break that differs — each place's reason."""

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "rank": self.rank, "points": self.points,
                "played": self.played, "wins": self.wins, "byes": self.byes,
                "score": self.score, "diff": round(self.diff, 3), "buchholz": self.buchholz,
                "median_buchholz": self.median_buchholz, "head_to_head": self.head_to_head,
                "decided_by": self.decided_by}

    def key(self, name: str) -> float:
        """Sort key for one tie-break (smaller sorts first)."""
        value: float = getattr(self, name)
        return -value if name in DESCENDING or name in ("head_to_head", "points") else value


def tally(spec: Spec, matches: Iterable[Match]) -> tuple[dict[str, Standing], list[Match]]:
    """Points, wins, scores and opponents of everyone in the done matches."""
    rows: dict[str, Standing] = {}
    played: list[Match] = []

    def row(player: str) -> Standing:
        found = rows.get(player)
        if found is None:
            found = rows[player] = Standing(player, lot=lot(spec.seed, player))
        return found

    for match in matches:
        if match.status != "done" or not match.ranking:
            continue
        if match.bye:
            r = row(match.players[0])
            r.byes += 1
            r.played += 1
            r.wins += 1
            r.points += spec.placing_points(1)
            continue
        played.append(match)
        ahead = 0
        for group in match.ranking:
            points = spec.placing_points(ahead + 1, len(group))
            for player in group:
                r = row(player)
                r.points += points
                r.played += 1
                if ahead == 0 and len(group) == 1:
                    r.wins += 1
                r.opponents.extend(p for p in match.players if p != player)
            ahead += len(group)
        if match.scores:
            total = sum(match.scores.values())
            others = max(1, len(match.scores) - 1)
            for player, score in match.scores.items():
                r = row(player)
                r.score += score
                r.diff += score - (total - score) / others
    for r in rows.values():
        opp = sorted(rows[o].points for o in r.opponents)
        r.buchholz = sum(opp)
        r.median_buchholz = sum(opp[1:-1]) if len(opp) >= 3 else sum(opp)
    return rows, played


def _head_to_head(group: list[Standing], played_by: dict[str, list[Match]]) -> None:
    """Score each tied player by how the tied players placed when they met."""
    members = {r.player for r in group}
    by_player = {r.player: r for r in group}
    for r in group:
        r.head_to_head = 0.0
    seen: set[str] = set()
    for r in group:
        for match in played_by.get(r.player, ()):
            if match.id in seen:
                continue
            seen.add(match.id)
            inside = [p for p in match.players if p in members]
            if len(inside) < 2:
                continue
            place = {p: match.placing(p) for p in inside}
            for a in inside:
                for b in inside:
                    if a != b:
                        by_player[a].head_to_head += (1.0 if place[a] < place[b]
                                                      else 0.5 if place[a] == place[b] else 0.0)


def standings(spec: Spec, players: Sequence[str], matches: Iterable[Match]) -> list[Standing]:
    """The ranked lines of ``players`` (every one, played or not) after ``matches``."""
    rows, played = tally(spec, matches)
    lines = [rows.get(p) or Standing(p, lot=lot(spec.seed, p)) for p in players]
    order = list(spec.tiebreaks)
    cut = order.index("head_to_head") if "head_to_head" in order else len(order)
    before, after = order[:cut], order[cut + 1:]
    # Sort keys computed once per line: (points and the tie-breaks before head-to-head,
    # the tie-breaks after it).
    keyed = [((-r.points, *(r.key(t) for t in before)), tuple(r.key(t) for t in after), r) for r in lines]
    keyed.sort(key=lambda k: (k[0], k[1]))
    lines = [k[2] for k in keyed]
    if cut < len(order):
        played_by: dict[str, list[Match]] = {}
        for match in played:
            for p in match.players:
                played_by.setdefault(p, []).append(match)
        i = 0
        while i < len(keyed):
            j = i + 1
            while j < len(keyed) and keyed[j][0] == keyed[i][0]:
                j += 1
            if j - i > 1:
                group = keyed[i:j]
                _head_to_head([k[2] for k in group], played_by)
                group.sort(key=lambda k: (-k[2].head_to_head, k[1]))
                lines[i:j] = [k[2] for k in group]
            i = j
    for rank, r in enumerate(lines, 1):
        r.rank = rank
    criteria = ["points", *before, *(["head_to_head"] if cut < len(order) else []), *after]
    for i, r in enumerate(lines):
        other = lines[i + 1] if i + 1 < len(lines) else (lines[i - 1] if i else None)
        r.decided_by = next((c for c in criteria if other is not None and r.key(c) != other.key(c)), "points")
    return lines
