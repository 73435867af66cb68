"""Ratings across events: OpenSkill's Plackett-Luce model (Weng-Lin), which rates every
player of a k-player free-for-all ranking at once (Elo and Glicko only rate duels).

Ratings are never stored: they are recomputed from the results of every tournament, in
the order they were played, so they too are a function of the log. A player is known
across events by their key (licence number, else name in lower case). The ``ordinal``
(mu - 3 sigma, a cautious estimate) seeds tournaments.

>>> table = rate([(("ana",), ("ben",), ("chloe",)), (("ana",), ("chloe",))])
>>> max(table, key=lambda key: table[key].ordinal), table["ana"].mu > table["ben"].mu
('ana', True)
>>> table["ana"].matches
2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

KeyRanking = tuple[tuple[str, ...], ...]
"""A result by player key: placings in order, ties sharing one."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating: mean skill, uncertainty, the cautious ``ordinal``, matches rated."""

    mu: float
    sigma: float
    matches: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                "ordinal": round(self.ordinal, 3), "matches": self.matches}


def rate(results: Iterable[KeyRanking]) -> dict[str, Rating]:
    """Ratings after ``results`` (oldest first). Matches of one player are skipped."""
    model = PlackettLuce()
    current: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for ranking in results:
        keys = [k for group in ranking for k in group]
        if len(keys) < 2 or len(set(keys)) != len(keys):
            continue
        teams = [[current.get(k) or model.rating(name=k)] for k in keys]
        ranks: list[float] = []
        place = 1
        for group in ranking:
            ranks.extend([float(place)] * len(group))
            place += len(group)
        for key, (new,) in zip(keys, model.rate(teams, ranks=ranks), strict=True):
            current[key] = new
            counts[key] = counts.get(key, 0) + 1
    return {k: Rating(float(r.mu), float(r.sigma), counts[k]) for k, r in current.items()}


PROVISIONAL_UNDER = 20
"""A rating is *provisional* until its player has this many rated matches. Measured with
``python bench/season_rerank.py --provisional`` (docs/performance.md, "Issue 34"):
OpenSkill's sigma starts at 8.33 and, in duels against a field of mixed levels, falls
under half of that after 23 duels (median; 21 at the 10th percentile, 31 at the 90th).
Before, the cautious ordinal (mu − 3 sigma) is still mostly the prior's and says little
about the player; under 20 matches virtually nobody is settled. A match of k players
tells more than a duel, so in free-for-all games the flag goes sooner than it should —
it errs on the side of saying "provisional". (Scoreholio's 10 games are too few for this
model's start; FargoRate's 200 are for a different, fixed-variance rating.)"""
MONTH_S = 30.44 * 86400
DECAY_PER_MONTH = 1.0
"""Variance added to sigma² per whole month without a rated match (never past the
starting sigma): after a year away, a settled 2.5 becomes about 4.3 — the rating is as
uncertain as after four matches, so it moves quickly when the player comes back."""


@dataclass(frozen=True, slots=True)
class GameRating:
    """A rating in one game, with when it was last played (for inactivity) and whether
    it is still provisional."""

    mu: float
    sigma: float
    matches: int
    last: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_UNDER

    def at(self, when: float) -> GameRating:
        """This rating seen at ``when``: sigma widened by the months without play."""
        return GameRating(self.mu, widened(self.sigma, self.last, when), self.matches, self.last)

    def to_json(self) -> dict[str, Any]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3), "ordinal": round(self.ordinal, 3),
                "matches": self.matches, "provisional": self.provisional, "last": self.last}


def widened(sigma: float, last: float, when: float) -> float:
    """Sigma after the whole months from ``last`` to ``when`` without play.

    >>> round(widened(2.5, 0.0, 12 * MONTH_S), 2), widened(2.5, 0.0, 10 * 86400)
    (4.27, 2.5)
    """
    months = int(max(0.0, when - last) // MONTH_S)
    if months <= 0:
        return sigma
    return float(min(PlackettLuce().sigma, (sigma * sigma + months * DECAY_PER_MONTH) ** 0.5))


TimedRanking = tuple[float, KeyRanking]
"""A result with the time it was played."""


def rate_timed(results: Iterable[TimedRanking],
               on_match: Callable[[int, float, list[tuple[str, float]]], None] | None = None) -> dict[str, GameRating]:
    """Ratings after ``results`` (oldest first) in one game, sigma widened by inactivity
    before each match. ``on_match(i, at, [(key, ordinal)])``: the new ordinals of the
    players of the ``i``-th result (a person's form over time)."""
    start = PlackettLuce()
    state: dict[str, tuple[float, float, int, float]] = {}  # key -> mu, sigma, matches, last played
    prior = (start.mu, start.sigma, 0, 0.0)
    for i, (at, ranking) in enumerate(results):
        if len(ranking) == 2 and len(ranking[0]) == 1 and len(ranking[1]) == 1:  # a duel, the most common
            keys = [ranking[0][0], ranking[1][0]]
            ranks = [1.0, 2.0]
        else:
            keys = [k for group in ranking for k in group]
            ranks = []
            place = 1
            for group in ranking:
                ranks.extend([float(place)] * len(group))
                place += len(group)
        if len(keys) < 2 or len(set(keys)) != len(keys):
            continue
        olds = [state.get(k, prior) for k in keys]
        players = [(mu, sigma if n == 0 or at - last < MONTH_S else widened(sigma, last, at))
                   for mu, sigma, n, last in olds]
        changed = []
        for key, old, (mu, sigma) in zip(keys, olds, plackett_luce(players, ranks), strict=True):
            state[key] = (mu, sigma, old[2] + 1, at)
            changed.append((key, mu - 3 * sigma))
        if on_match is not None:
            on_match(i, at, changed)
    return {k: GameRating(mu, sigma, n, last) for k, (mu, sigma, n, last) in state.items()}


_MODEL = PlackettLuce()
_BETA2, _TAU2, _KAPPA = _MODEL.beta ** 2, _MODEL.tau ** 2, _MODEL.kappa


def plackett_luce(players: list[tuple[float, float]], ranks: list[float]) -> list[tuple[float, float]]:
    """OpenSkill's Plackett-Luce update (``PlackettLuce().rate`` with its defaults: tau
    added, kappa floor, one player a team), written out: the library's version makes a
    uuid and a deep copy of every rating, three quarters of a season's re-rank. It
    agrees with the library to 1e-14 (tests/tournament/test_seasons.py folds the log
    with the library itself).

    >>> [(round(m, 3), round(s, 3)) for m, s in plackett_luce([(25.0, 25 / 3), (25.0, 25 / 3)], [1.0, 2.0])]
    [(27.635, 8.066), (22.365, 8.066)]
    """
    n = len(players)
    if n == 2:
        return _duel(players[0], players[1], ranks[0] == ranks[1]) if ranks[0] <= ranks[1] else \
            _duel(players[1], players[0], False)[::-1]
    sig2 = [s * s + _TAU2 for _, s in players]
    c = math.sqrt(sum(s2 + _BETA2 for s2 in sig2))
    e = [math.exp(m / c) for m, _ in players]
    sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    tied = [sum(1 for i in range(n) if ranks[i] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                quotient = e[i] / sum_q[q]
                omega += ((1.0 if q == i else 0.0) - quotient) / tied[q]
                delta += quotient * (1 - quotient) / tied[q]
        gamma = math.sqrt(sig2[i]) / c
        omega *= sig2[i] / c
        delta *= gamma * sig2[i] / (c * c)
        out.append((players[i][0] + omega, math.sqrt(sig2[i]) * math.sqrt(max(1 - delta, _KAPPA))))
    return out


def _duel(first: tuple[float, float], second: tuple[float, float], tie: bool) -> list[tuple[float, float]]:
    """:func:`plackett_luce` for two players, ``first`` ahead (or tied): its sums and
    quotients worked out by hand (most matches are duels)."""
    s0, s1 = first[1] * first[1] + _TAU2, second[1] * second[1] + _TAU2
    c2 = s0 + s1 + 2 * _BETA2
    c = math.sqrt(c2)
    e0, e1 = math.exp(first[0] / c), math.exp(second[0] / c)
    p0 = e0 / (e0 + e1)
    p1 = e1 / (e0 + e1)
    if tie:
        omega0, omega1 = (1 - 2 * p0) / 2, (1 - 2 * p1) / 2
    else:
        omega0, omega1 = 1 - p0, -p1
    delta = p0 * p1
    out = []
    for (mu, _), sig2, omega in ((first, s0, omega0), (second, s1, omega1)):
        sd = math.sqrt(sig2)
        out.append((mu + omega * sig2 / c, sd * math.sqrt(max(1 - delta * (sd / c) * sig2 / c2, _KAPPA))))
    return out


def win_chances(ratings: list[GameRating | None]) -> list[float]:
    """Each player's chance to win a match (OpenSkill's ``predict_win``; unrated players
    at the prior).

    >>> [round(p, 2) for p in win_chances([None, None])]
    [0.5, 0.5]
    """
    model = PlackettLuce()
    teams = [[model.rating() if r is None else model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    return [float(p) for p in model.predict_win(teams)]
