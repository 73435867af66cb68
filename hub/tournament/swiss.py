"""Swiss rounds of a :class:`~hub.tournament.state.Tournament`: the draw of the next
round (:mod:`hub.tournament.pairing`: the Dutch system's criteria for duels;
:func:`hub.tournament.formats.group_swiss` for larger tables), its ``round`` entry,
and the ``redraw`` of the current round's matches not started after a correction of
an earlier round.

The pairing order is the score, then the seeding of the start entry (late entries
after, in registration order) — not the tie-breaks, which rank the standings but do not
pair: so round 1 pairs the seeded top half against the bottom half.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.errors import BadInputError, RefusedError
from hub.tournament import formats, placings
from hub.tournament.model import JSONDict, Match

if TYPE_CHECKING:
    from hub.tournament.state import Tournament


def draw_round(t: Tournament) -> JSONDict:
    """The next Swiss round's ``round`` entry, drawn by standing now."""
    if t.spec.format != "swiss" or t.status != "running":
        raise RefusedError("only a running Swiss tournament draws rounds", "tour_swiss_only")
    if t.round >= t.spec.rounds:
        raise RefusedError(f"all {t.spec.rounds} rounds are drawn", "tour_rounds_drawn", rounds=t.spec.rounds)
    if any(m.status not in ("done", "cancelled") for m in t.matches.values()):
        raise RefusedError(f"round {t.round} is not over", "tour_round_not_over", round=t.round)
    ranked, scores = pairing_order(t, t.eligible(), t.round + 1)
    groups, bye = formats.group_swiss(ranked, scores, t.spec.seats, met(t), byes(t))
    return {"type": "round", "round": t.round + 1, "groups": [list(g) for g in groups],
            "bye": bye}


def pairing_order(t: Tournament, players: list[str], before_round: int) -> tuple[list[str], dict[str, float]]:
    """``players`` in pairing order (score over the rounds before ``before_round``,
    then seed) and those scores."""
    lines = placings.standings(t, players, before_round=before_round)
    scores = {s.player: s.points for s in lines}
    seed = {p: i for i, p in enumerate(t.order)}
    registered = {p: i for i, p in enumerate(t.players)}
    ranked = sorted(players, key=lambda p: (-scores[p], seed.get(p, len(seed)), registered[p]))
    return ranked, scores


def met(t: Tournament) -> set[tuple[str, str]]:
    """Pairs of players who already share (or shared) a match."""
    pairs: set[tuple[str, str]] = set()
    for m in t.matches.values():
        if m.status in ("called", "done") and not m.bye:
            for i, a in enumerate(m.players):
                for b in m.players[i + 1:]:
                    pairs.add(formats.pair_key(a, b))
    return pairs


def byes(t: Tournament) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in t.matches.values():
        if m.bye and m.stage == "swiss":
            counts[m.players[0]] = counts.get(m.players[0], 0) + 1
    return counts


def _check_groups(t: Tournament, raw: Any, expected: list[str]) -> list[tuple[str, ...]]:
    if not isinstance(raw, list) or not all(isinstance(g, list) for g in raw):
        raise BadInputError("groups: expected a list of lists of player ids")
    groups = [tuple(g) for g in raw]
    named = [p for g in groups for p in g]
    if sorted(map(str, named)) != sorted(expected) or len(set(named)) != len(named):
        raise BadInputError("groups: must place every player to draw exactly once")
    if any(not 2 <= len(g) <= t.spec.seats for g in groups):
        raise BadInputError(f"groups: each has 2 to {t.spec.seats} players")
    return groups


def on_round(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    if t.spec.format != "swiss" or t.status != "running":
        raise RefusedError("only a running Swiss tournament draws rounds", "tour_swiss_only")
    if body.get("round") != t.round + 1 or t.round >= t.spec.rounds:
        raise RefusedError(f"the next round is {t.round + 1} of {t.spec.rounds}", "tour_next_round",
                           next=t.round + 1, rounds=t.spec.rounds)
    if any(m.status not in ("done", "cancelled") for m in t.matches.values()):
        raise RefusedError(f"round {t.round} is not over", "tour_round_not_over", round=t.round)
    eligible = t.eligible()
    bye = body.get("bye")
    if bye is not None and bye not in eligible:
        raise BadInputError("bye: not a present player")
    groups = _check_groups(t, body.get("groups"), [p for p in eligible if p != bye])
    t.round += 1
    for g in groups:
        t.new_match("swiss", t.round, g)
    if bye is not None:
        m = t.new_match("swiss", t.round, (bye,))
        m.status, m.bye, m.ranking = "done", True, ((bye,),)


def redraw_entry(t: Tournament) -> JSONDict | None:
    """After a correction that changed an earlier round's result, the ``redraw`` entry
    for the current Swiss round's matches not yet started, paired by the scores before
    this round (None when there is nothing to redraw or it would not change)."""
    if t.spec.format != "swiss" or t.status != "running":
        return None
    waiting = _redrawable(t)
    if not waiting:
        return None
    players = [p for m in waiting for p in m.players]
    ranked, scores = pairing_order(t, players, t.round)
    groups, _ = formats.group_swiss(ranked, scores, t.spec.seats, met(t), {})
    if sorted(sorted(g) for g in groups) == sorted(sorted(m.players) for m in waiting):
        return None
    return {"type": "redraw", "round": t.round, "groups": [list(g) for g in groups]}


def _redrawable(t: Tournament) -> list[Match]:
    """The current Swiss round's matches not started (a forfeit counts as a start)."""
    return [m for m in t.matches.values() if m.stage == "swiss" and m.round == t.round
            and m.status == "ready" and not m.forfeits]


def on_redraw(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    if body.get("round") != t.round or t.spec.format != "swiss":
        raise RefusedError("redraw: only the current Swiss round", "tour_redraw_current")
    waiting = _redrawable(t)
    groups = _check_groups(t, body.get("groups"), [p for m in waiting for p in m.players])
    for m in waiting:
        m.status = "cancelled"
    for g in groups:
        t.new_match("swiss", t.round, g)
    t.redraw_due = False
