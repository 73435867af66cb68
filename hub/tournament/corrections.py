"""Corrections with known consequences: what changing a done match's ranking changes,
shown before it is made, and the ``correct`` entry that makes it.

A correction can change who qualified from a pool, who won a bracket match, and so
who plays later matches. Matches not started simply follow (their players are derived
from results: :meth:`Tournament.resolve`); a Swiss round's matches not started are drawn
again. A *started* match (called to a station, or done) whose players would change is
a dependent: it is reset — sent back to waiting, its result forgotten, then filled and
played again — only when the correction lists it in ``reset`` (the organizer saw the
preview and confirmed); otherwise the correction is refused naming those matches. A
correction that changes nothing (the same ranking, the same scores) changes nothing:
no redraw, no reset.

A pool correction once the pools are over offers two choices (issue 32.16): seed the
brackets again from the new results (the default, as before — one changed place can
move every seed, and restart every quarter-final in play), or ``keep_draw``: the
brackets keep their draw, each seed the pool place it was ("A:2"), so only the players
whose place changed move, and matches in play without them go on untouched. Both are
entries of the log; :func:`preview` tells each one's consequences.

:func:`preview` answers what a correction would change — standings, qualifiers,
pairings, the matches to reset, the final ranking — without changing anything.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.errors import BadInputError, RefusedError
from hub.tournament import placings, swiss
from hub.tournament.model import POOL_STAGES, POOL_TIERS, POOLED, JSONDict, Match

if TYPE_CHECKING:
    from hub.tournament.state import Tournament



def _stale_started(t: Tournament) -> list[Match]:
    """Started matches filled from results (brackets, an AB/ABC pool's later games)
    whose sources now give other players."""
    outcome: dict[str, list[str]] | None = None
    stale = []
    for m in t.matches.values():
        if not m.sources or not m.started or m.bye or not m.players:
            continue
        if outcome is None and any(kind in POOL_TIERS for kind, _ in m.sources):
            outcome = t.pool_outcome()
        known, players = t.slot_players(m, outcome)
        if not known or sorted(players) != sorted(m.players):
            stale.append(m)
    return stale


def keep_draw(body: Mapping[str, Any]) -> bool:
    """A correction's ``keep_draw``, checked (absent: False, the bracket seeded again)."""
    keep = body.get("keep_draw", False)
    if not isinstance(keep, bool):
        raise BadInputError("keep_draw: expected true or false", "tour_bad_bool", field="keep_draw")
    return keep


def can_keep_draw(t: Tournament, m: Match) -> bool:
    """Whether correcting ``m`` offers the choice: a pool match (or play-off) once the
    pools are over, in a tournament whose brackets are drawn from them."""
    return t.spec.format in POOLED and m.stage in POOL_STAGES and bool(t.pool_outcome())


def choose_draw(t: Tournament, m: Match, keep: bool) -> None:
    """Before a correction of ``m`` is applied: keep the brackets' draw as it is now
    (their seeds as pool places, so only the players whose place changes move), or let
    them be seeded again from the results (a draw kept before is let go). A bracket
    match's correction leaves the draw as it is."""
    if m.stage not in POOL_STAGES:
        return
    if not keep:
        t.kept_draw = None
    elif t.kept_draw is None:
        t.kept_draw = placings.draw_labels(t)


def dependents(t: Tournament, match_id: str, ranking: Any, scores: dict[str, float],
               keep: bool = False) -> list[str]:
    """Ids of the started matches a correction of ``match_id`` would reset, in match
    order (a reset match's own dependents included); ``keep``: keeping the draw. Tried on
    a copy of the tournament: ``t`` itself does not change."""
    if t.spec.format == "swiss":
        return []  # a Swiss round's started matches stay: their pairings were fair when made
    trial = t.trial()
    choose_draw(trial, trial.matches[match_id], keep)
    trial.rerank(trial.matches[match_id], ranking, scores)
    reset: list[str] = []
    while True:
        trial.resolve()
        stale = _stale_started(trial)
        if not stale:
            break
        for s in stale:
            trial.reset(s)
            reset.append(s.id)
    return sorted(reset, key=lambda mid: t.matches[mid].number)


def contradictions(m: Match, ranking: Any, scores: Mapping[str, float]) -> list[tuple[str, str]]:
    """(ahead, behind) pairs of players the ranking places apart whose scores say the
    opposite (the one ranked ahead scored less); forfeits are not compared (a no-show's
    score says nothing of the placing).

    >>> m = Match("m1", 1, "swiss", 1, ("a", "b"))
    >>> contradictions(m, (("b",), ("a",)), {"a": 13.0, "b": 7.0}), contradictions(m, (("a",), ("b",)), {"a": 13.0, "b": 7.0})
    ([('b', 'a')], [])
    """
    place = {p: i for i, group in enumerate(ranking) for p in group if p not in m.forfeits}
    return [(a, b) for a in place for b in place
            if place[a] < place[b] and a in scores and b in scores and scores[a] < scores[b]]


def admit(t: Tournament, body: Mapping[str, Any]) -> None:
    """What a *new* ``correct`` entry must also keep (issue 32.8): its scores — given,
    or kept from the result when it names none — may not contradict its ranking, else
    the new winner would show the lower score and the score tie-breaks credit the loser.
    Refused with the scores named: enter those of the new ranking, or clear them
    (``"scores": {}``). Checked at the door (:meth:`Tournament.admit`), never on a
    replay: a log stored before the rule folds as it was written."""
    m = t.match(body.get("match"))
    if m.status != "done" or m.bye or len(m.players) < 2:
        return  # on_correct refuses it
    ranking, scores = t.ranking_for(m, body)
    if "scores" not in body:
        scores = m.scores
    wrong = contradictions(m, ranking, scores)
    if wrong:
        shown = ", ".join(f"{t.name(p)} {scores[p]:g}" for p in sorted({p for pair in wrong for p in pair},
                                                                      key=lambda p: -scores[p]))
        raise RefusedError(f"the scores ({shown}) contradict the new ranking: enter the scores that go with it, "
                           "or clear them", "tour_correction_scores_contradict", scores=shown)


def on_correct(t: Tournament, body: Mapping[str, Any], at: float) -> None:
    """The ``correct`` entry (module doc)."""
    m = t.match(body.get("match"))
    if m.status != "done" or m.bye or len(m.players) < 2:
        raise RefusedError(f"match {m.number} has no result to correct", "tour_no_result", number=m.number)
    ranking, scores = t.ranking_for(m, body)
    if "scores" not in body:
        scores = m.scores  # a correction of the ranking alone keeps the scores
    confirmed = body.get("reset", [])
    if not isinstance(confirmed, list) or not all(isinstance(x, str) for x in confirmed):
        raise BadInputError("reset: expected a list of match ids")
    keep = keep_draw(body)
    t.redraw_due = False
    if ranking == m.ranking and scores == m.scores:
        return  # changes nothing (finding 4: nothing is redrawn)
    reset = dependents(t, m.id, ranking, scores, keep)
    missing = [mid for mid in reset if mid not in confirmed]
    if missing:
        listed = ", ".join(f"{t.matches[mid].number} ({t.matches[mid].status})" for mid in missing)
        raise RefusedError(f"this correction changes who plays matches already started: {listed}; "
                           "confirm resetting them", "tour_correction_resets", matches=listed)
    choose_draw(t, m, keep)
    t.rerank(m, ranking, scores)
    m.corrected += 1
    for mid in reset:
        t.reset(t.matches[mid])
    t.redraw_due = t.spec.format == "swiss" and m.round < t.round


def preview(t: Tournament, body: Mapping[str, Any]) -> JSONDict:
    """What the correction ``body`` would change, every reset confirmed: ``standings``
    (players whose place or points change), ``qualifiers`` (who enters or leaves the
    main bracket), ``pairings`` (matches not started whose players change, and a Swiss
    redraw), ``reset`` (started matches replayed) and ``ranking`` (final places that
    change). Raises as the entry would, except for the confirmation; changes nothing."""
    m = t.match(body.get("match"))
    if m.status != "done" or m.bye or len(m.players) < 2:
        raise RefusedError(f"match {m.number} has no result to correct", "tour_no_result", number=m.number)
    admit(t, body)
    ranking, scores = t.ranking_for(m, body)
    if "scores" not in body:
        scores = m.scores
    keep = keep_draw(body)
    reset = dependents(t, m.id, ranking, scores, keep)
    after = copy.deepcopy(t)
    entry = {**dict(body), "type": "correct", "reset": reset}
    after.apply(entry)
    follow = swiss.redraw_entry(after) if after.redraw_due else None
    if follow is not None:
        after.apply(follow)

    def lines(x: Tournament) -> dict[str, tuple[int, float]]:
        return {s.player: (s.rank, s.points) for s in placings.standings(x) if s.played}

    before_lines, after_lines = lines(t), lines(after)
    standings = [{"player": p, "name": t.name(p), "before": list(before_lines.get(p, (0, 0.0))),
                  "after": list(after_lines.get(p, (0, 0.0)))}
                 for p in sorted(set(before_lines) | set(after_lines), key=lambda p: after_lines.get(p, (0, 0))[0])
                 if before_lines.get(p) != after_lines.get(p)]
    pooled = t.spec.format in POOLED
    q_before = placings.pool_outcome(t).get("qualifier", []) if pooled else []
    q_after = placings.pool_outcome(after).get("qualifier", []) if pooled else []
    qualifiers = {"in": [{"player": p, "name": t.name(p)} for p in q_after if p not in q_before],
                  "out": [{"player": p, "name": t.name(p)} for p in q_before if p not in q_after]}
    pairings = []
    for mid, was in t.matches.items():
        now = after.matches[mid]
        if mid in reset or was.started or now.status == "cancelled" and was.status == "cancelled":
            continue
        if (was.players, was.status) != (now.players, now.status):
            pairings.append({"match": mid, "number": was.number,
                             "before": [t.name(p) for p in was.players] if was.status != "cancelled" else [],
                             "after": [t.name(p) for p in now.players] if now.status != "cancelled" else []})
    for mid, now in after.matches.items():
        if mid not in t.matches:
            pairings.append({"match": mid, "number": now.number, "before": [],
                             "after": [t.name(p) for p in now.players]})
    rank_before = dict((p, place) for place, p in placings.final_ranking(t))
    rank_after = dict((p, place) for place, p in placings.final_ranking(after))
    changed_places = [{"player": p, "name": t.name(p), "before": rank_before.get(p),
                       "after": rank_after.get(p)}
                      for p in t.players if rank_before.get(p) != rank_after.get(p)]
    return {"match": m.id, "number": m.number, "changes": ranking != m.ranking or scores != m.scores,
            "keep_draw": keep, "can_keep_draw": can_keep_draw(t, m),
            "standings": standings, "qualifiers": qualifiers, "pairings": pairings,
            "reset": [{"match": mid, "number": t.matches[mid].number, "status": t.matches[mid].status,
                       "players": [t.name(p) for p in t.matches[mid].players],
                       "after": [t.name(p) for p in after.matches[mid].players]} for mid in reset],
            "ranking": changed_places}
