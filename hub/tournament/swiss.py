"""Swiss rounds of a :class:`~hub.tournament.state.Tournament`: the draw of the next
round by standing (avoiding rematches, spreading byes), its ``round`` entry, and the
``redraw`` of the current round's matches not started after a correction.

Functions of the tournament; :class:`~hub.tournament.state.Tournament` has them as its
methods (``t.draw_round()``, ``t.met()``...) and its ``round``/``redraw`` entry handlers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.errors import BadInputError, RefusedError
from hub.tournament import formats
from hub.tournament.model import JSONDict, Match

if TYPE_CHECKING:
    from hub.tournament.state import Tournament


def draw_round(t: Tournament) -> JSONDict:
    """The next Swiss round's ``round`` entry, drawn by standing now."""
    if t.spec.format != "swiss" or t.status != "running":
        raise RefusedError("only a running Swiss tournament draws rounds")
    if t.round >= t.spec.rounds:
        raise RefusedError(f"all {t.spec.rounds} rounds are drawn")
    if any(m.status not in ("done", "cancelled") for m in t.matches.values()):
        raise RefusedError(f"round {t.round} is not over")
    ranked = [s.player for s in t.standings(t.eligible())]
    groups, bye = formats.group_swiss(ranked, t.spec.seats, t.met(), t.byes())
    return {"type": "round", "round": t.round + 1, "groups": [list(g) for g in groups],
            "bye": bye}


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
        raise RefusedError("only a running Swiss tournament draws rounds")
    if body.get("round") != t.round + 1 or t.round >= t.spec.rounds:
        raise RefusedError(f"the next round is {t.round + 1} of {t.spec.rounds}")
    if any(m.status not in ("done", "cancelled") for m in t.matches.values()):
        raise RefusedError(f"round {t.round} is not over")
    eligible = t.eligible()
    bye = body.get("bye")
    if bye is not None and bye not in eligible:
        raise BadInputError("bye: not a present player")
    groups = _check_groups(t, body.get("groups"), [p for p in eligible if p != bye])
    t.round += 1
    for g in groups:
        t._new_match("swiss", t.round, g)
    if bye is not None:
        m = t._new_match("swiss", t.round, (bye,))
        m.status, m.bye, m.ranking = "done", True, ((bye,),)


def redraw_entry(t: Tournament) -> JSONDict | None:
    """After a correction, the ``redraw`` entry for the current Swiss round's matches
    not yet started (None when there is nothing to redraw or it would not change)."""
    if t.spec.format != "swiss" or t.status != "running":
        return None
    waiting = _redrawable(t)
    if not waiting:
        return None
    players = {p for m in waiting for p in m.players}
    ranked = [s.player for s in t.standings(sorted(players))]
    groups, _ = formats.group_swiss(ranked, t.spec.seats, t.met(), {})
    if sorted(sorted(g) for g in groups) == sorted(sorted(m.players) for m in waiting):
        return None
    return {"type": "redraw", "round": t.round, "groups": [list(g) for g in groups]}


def _redrawable(t: Tournament) -> list[Match]:
    """The current Swiss round's matches not started (a forfeit counts as a start)."""
    return [m for m in t.matches.values() if m.stage == "swiss" and m.round == t.round
            and m.status == "ready" and not m.forfeits]


def on_redraw(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    if body.get("round") != t.round or t.spec.format != "swiss":
        raise RefusedError("redraw: only the current Swiss round")
    waiting = _redrawable(t)
    groups = _check_groups(t, body.get("groups"), [p for m in waiting for p in m.players])
    for m in waiting:
        m.status = "cancelled"
    for g in groups:
        t._new_match("swiss", t.round, g)
