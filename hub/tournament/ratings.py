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
               on_match: Callable[[int, float, dict[str, GameRating]], None] | None = None) -> dict[str, GameRating]:
    """Ratings after ``results`` (oldest first) in one game, sigma widened by inactivity
    before each match. ``on_match(i, at, changed)``: the new ratings of the players of
    the ``i``-th result (a person's form over time)."""
    model = PlackettLuce()
    current: dict[str, GameRating] = {}
    for i, (at, ranking) in enumerate(results):
        keys = [k for group in ranking for k in group]
        if len(keys) < 2 or len(set(keys)) != len(keys):
            continue
        teams = []
        for k in keys:
            old = current.get(k)
            if old is None:
                teams.append([model.rating(name=k)])
            else:
                teams.append([model.rating(mu=old.mu, sigma=widened(old.sigma, old.last, at), name=k)])
        ranks: list[float] = []
        place = 1
        for group in ranking:
            ranks.extend([float(place)] * len(group))
            place += len(group)
        changed: dict[str, GameRating] = {}
        for key, (new,) in zip(keys, model.rate(teams, ranks=ranks), strict=True):
            old = current.get(key)
            changed[key] = current[key] = GameRating(float(new.mu), float(new.sigma),
                                                     (old.matches if old else 0) + 1, at)
        if on_match is not None:
            on_match(i, at, changed)
    return current


def win_chances(ratings: list[GameRating | None]) -> list[float]:
    """Each player's chance to win a match (OpenSkill's ``predict_win``; unrated players
    at the prior).

    >>> [round(p, 2) for p in win_chances([None, None])]
    [0.5, 0.5]
    """
    model = PlackettLuce()
    teams = [[model.rating() if r is None else model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    return [float(p) for p in model.predict_win(teams)]
