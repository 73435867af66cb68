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

from collections.abc import Iterable
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
