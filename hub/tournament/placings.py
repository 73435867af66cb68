"""Where the players of a :class:`~hub.tournament.state.Tournament` stand: pool and
Swiss standings, the pools' qualifiers for the brackets, bracket places, the final
ranking and the podium — all derived from the matches played so far.

The final ranking places every entrant once (a permutation of the start's order) once
the tournament is over: bracket places first, then those a bracket did not place (pools
without a consolation bracket, withdrawals before their bracket match) by standing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hub.tournament import formats
from hub.tournament.model import POOL_TIERS, Match
from hub.tournament.standings import Standing
from hub.tournament.standings import standings as standing_lines

if TYPE_CHECKING:
    from hub.tournament.state import Tournament


def pool_outcome(t: Tournament) -> dict[str, list[str]]:
    """Qualifiers and the others, each in bracket-seed order (pool place first, then
    the results; players of one pool kept apart in the first round where the order
    within a place allows it), once every pool match (and play-off) is done ({} before).
    After a correction that kept the draw, each seed is the pool place it was then
    (:attr:`~hub.tournament.state.Tournament.kept_draw`), whoever holds that place now.
    An AB/ABC event has three tiers (``qualifier``: A, ``consolation``: B, ``c``: C) by
    pool place (:func:`hub.tournament.formats.abc_tier`)."""
    if any(m.status not in ("done", "cancelled") for m in t.matches.values() if m.stage in ("pools", "playoff")):
        return {}
    standings = pool_standings(t, placing=True)
    if t.kept_draw is not None:  # the draw kept by a correction: each slot's pool place, its player now
        at = {place_label(i, place): line.player for i, lines in enumerate(standings)
              for place, line in enumerate(lines, 1)}
        return {stage: [at[label] for label in labels] for stage, labels in t.kept_draw.items()}
    placed: list[tuple[int, float, float, float, int, str, int]] = []
    for i, lines in enumerate(standings):
        for place, line in enumerate(lines, 1):
            per = max(1, line.played)
            placed.append((place, -line.points / per, -line.wins / per, -line.diff,
                           line.lot, line.player, tier_of(t, place, len(t.pools[i]))))
    placed.sort()
    pool_of = {p: chr(ord("A") + i) for i, pool in enumerate(t.pools) for p in pool}
    out: dict[str, list[str]] = {}
    for index, stage in enumerate(POOL_TIERS if t.spec.format == "abc" else POOL_TIERS[:2]):
        members = [p for p in placed if p[6] == index]
        out[stage] = formats.spread_pools([p[5] for p in members], [p[0] for p in members], pool_of,
                                          t.spec.bracket_seats)
    return out


def place_label(pool: int, place: int) -> str:
    """A pool place as a kept draw names it: "A:1" (pool A's first)."""
    return f"{chr(ord('A') + pool)}:{place}"


def draw_labels(t: Tournament) -> dict[str, list[str]] | None:
    """The brackets' seeds now as pool places ({stage: ["A:1", "C:2", …]}), to keep the
    draw through a correction (:attr:`~hub.tournament.state.Tournament.kept_draw`); None
    while the pools are not over."""
    outcome = t.pool_outcome()
    if not outcome:
        return None
    label = {line.player: place_label(i, place) for i, lines in enumerate(pool_standings(t, placing=True))
             for place, line in enumerate(lines, 1)}
    return {stage: [label[p] for p in players] for stage, players in outcome.items()}


def tier_of(t: Tournament, place: int, pool_size: int) -> int:
    """Which bracket a pool place leads to (0: main or A, 1: consolation or B, 2: C)."""
    if t.spec.format == "abc":
        return formats.abc_tier(place, pool_size, t.spec.split)
    return 0 if place <= t.spec.advance else 1


def _tied(t: Tournament, a: Standing, b: Standing) -> bool:
    """Equal on points and every configured tie-break but the lot."""
    return all(a.key(c) == b.key(c) for c in ("points", *t.spec.tiebreaks) if c != "lot")


def qualifying_ties(t: Tournament) -> list[tuple[str, tuple[str, ...]]]:
    """(pool, players) of every tie across a place that changes bracket: players tied on
    points and every tie-break but the lot, on either side of such a place (all those
    tied, over the places they span). A pool ranked by its games (AB/ABC of 4) has none."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for i, lines in enumerate(pool_standings(t, placing=True, playoffs=False)):
        if not lines or lines[0].decided_by == "record":
            continue
        size = len(t.pools[i])
        for cut in range(1, len(lines)):
            a, b = lines[cut - 1], lines[cut]
            if tier_of(t, cut, size) == tier_of(t, cut + 1, size) or not _tied(t, a, b):
                continue
            low, high = cut - 1, cut
            while low > 0 and _tied(t, lines[low - 1], lines[low]):
                low -= 1
            while high + 1 < len(lines) and _tied(t, lines[high], lines[high + 1]):
                high += 1
            group = tuple(line.player for line in lines[low:high + 1])
            if (chr(ord("A") + i), group) not in out:
                out.append((chr(ord("A") + i), group))
    return out


def playoffs_needed(t: Tournament) -> list[tuple[str, tuple[str, ...]]]:
    """(pool, players) of the play-off matches the pools call for (spec ``playoff``):
    each :func:`qualifying_ties` group one match can seat (at most
    :attr:`~hub.tournament.state.Tournament.playoff_seats`: Trigono seats three on a
    board, so a duel pool's three-way tie is played off by the three at once); larger
    ones are left to the lot (:func:`unseated_ties`), as are ties with a player who left
    the pools."""
    if not t.spec.playoff:
        return []
    return [(pool, group) for pool, group in qualifying_ties(t)
            if len(group) <= t.playoff_seats and not t.left_in_pools.intersection(group)]


def unseated_ties(t: Tournament) -> list[tuple[str, tuple[str, ...]]]:
    """(pool, players) of the ties a play-off would settle but no match seats (more
    players than :attr:`~hub.tournament.state.Tournament.playoff_seats`): the lot
    settles them, and the pages say so (once every pool match is done)."""
    if not t.spec.playoff or any(m.status != "done" for m in t.matches.values() if m.stage == "pools"):
        return []
    return [(pool, group) for pool, group in qualifying_ties(t) if len(group) > t.playoff_seats]


def sync_playoffs(t: Tournament) -> None:
    """Create the play-off matches the pools now call for, once every pool match is
    done, and cancel those no longer called for (a correction changed the tie; a done
    one's result then no longer counts)."""
    pools_done = all(m.status == "done" for m in t.matches.values() if m.stage == "pools")
    needed = playoffs_needed(t) if pools_done else []
    keys = {(pool, frozenset(group)) for pool, group in needed}
    existing = set()
    for m in t.matches.values():
        if m.stage == "playoff" and m.status != "cancelled":
            key = (m.pool, frozenset(m.players))
            if key in keys:
                existing.add(key)
            else:
                m.status = "cancelled"
    rnd = max((m.round for m in t.matches.values() if m.stage == "pools"), default=0) + 1
    for pool, group in needed:
        if (pool, frozenset(group)) not in existing:
            t.new_match("playoff", rnd, group, pool=pool)


def standings(t: Tournament, players: Iterable[str] | None = None, *,
              before_round: int | None = None) -> list[Standing]:
    """Standings of ``players`` (default: everyone registered) over the matches
    played so far (pools and Swiss; brackets are ranked by :func:`final_ranking`), or
    over the rounds before ``before_round`` only."""
    ids = list(t.players) if players is None else list(players)
    return standing_lines(t.spec, ids, (m for m in t.matches.values() if m.stage in ("pools", "swiss")
                                        and (before_round is None or m.round < before_round)))


def pool_standings(t: Tournament, *, placing: bool = False, playoffs: bool = True) -> list[list[Standing]]:
    """Each pool's standings. An AB/ABC pool of 4 whose five games are done is ranked by
    its games, not by points: the winners' game's winner, the third game's winner and
    loser, the losers' game's loser (``decided_by``: ``record``). A done play-off match
    orders the players it was played by (``decided_by``: ``playoff``). ``placing``: the
    places the brackets are drawn from (a player who withdrew during the pools gives
    their place to the next)."""
    pool_matches = [m for m in t.matches.values() if m.stage in ("pools", "playoff")]
    out = []
    for i, pool in enumerate(t.pools):
        name = chr(ord("A") + i)
        games = [m for m in pool_matches if m.pool == name and m.stage == "pools"]
        lines = standing_lines(t.spec, pool, games)
        if t.spec.format == "abc" and len(games) == 5 and all(m.status == "done" for m in games):
            order = record_order(games, [line.player for line in lines])
            by_player = {line.player: line for line in lines}
            lines = [by_player[p] for p in order]
            for line in lines:
                line.decided_by = "record"
        if placing:
            lines.sort(key=lambda line: line.player in t.left_in_pools)
        if playoffs:
            for m in pool_matches:
                if m.stage == "playoff" and m.pool == name and m.status == "done" and m.ranking:
                    at = sorted(k for k, line in enumerate(lines) if line.player in m.players)
                    by_player = {line.player: line for line in lines}
                    for k, p in zip(at, [p for g in m.ranking for p in g], strict=False):
                        lines[k] = by_player[p]
                        lines[k].decided_by = "playoff"
        for rank, line in enumerate(lines, 1):
            line.rank = rank
        out.append(lines)
    return out


def record_order(games: list[Match], by_points: list[str]) -> list[str]:
    """An AB/ABC pool of 4 by its games (:func:`pool_standings`); a player a game did not
    place (a bye after a withdrawal) follows, by points."""
    def flat(m: Match) -> list[str]:
        return [p for g in m.ranking for p in g]

    _, _, winners, losers, third = games
    order: list[str] = []
    for m, index in ((winners, 0), (third, 0), (third, 1), (losers, 1)):
        ranked = flat(m)
        if index < len(ranked) and ranked[index] not in order:
            order.append(ranked[index])
    return order + [p for p in by_points if p not in order]


def bracket_ranking(t: Tournament, stage: str) -> list[tuple[int, str]]:
    """(place, player) of a bracket's players, best first: by the round they went out
    in, then their placing in that match (two losing semi-finalists share 3rd)."""
    reached: dict[str, tuple[int, int]] = {}
    seed_of = {p: i for i, p in enumerate(t.order)}
    for m in t.matches.values():
        if m.stage != stage or m.status != "done" or m.bye or not m.players:
            continue
        for p in m.players:
            reached[p] = (m.round, m.placing(p))
    keyed = sorted(reached.items(), key=lambda kv: (-kv[1][0], kv[1][1], seed_of.get(kv[0], 0)))
    out: list[tuple[int, str]] = []
    for i, (p, key) in enumerate(keyed):
        place = out[-1][0] if out and reached[out[-1][1]] == key else i + 1
        out.append((place, p))
    return out


def final_ranking(t: Tournament, lines: list[Standing] | None = None) -> list[tuple[int, str]]:
    """(place, player) for everyone placed so far, best first (``lines``: the
    standings of everyone, when the caller has them already)."""
    lines = lines or standings(t)
    if t.spec.format == "swiss":
        seated = {p for m in t.matches.values() if m.status != "cancelled" for p in m.players}
        ranked = [s for s in lines if s.player in seated]
        return no_shows_last(t, [(place, s.player) for place, s in enumerate(ranked, 1)])
    if t.spec.format == "double":
        return no_shows_last(t, double_ranking(t, lines))
    return no_shows_last(t, _placed(t, lines))


def no_shows(t: Tournament) -> set[str]:
    """Players who withdrew without playing a match: each of theirs was forfeited
    (or never came)."""
    played = {p for m in t.matches.values() if m.status == "done" and not m.bye and len(m.players) >= 2
              for p in m.players if p not in m.forfeits}
    return {p.id for p in t.players.values() if p.status == "withdrawn" and p.id not in played}


def no_shows_last(t: Tournament, ranked: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``ranked`` with the no-shows (:func:`no_shows`) moved after everyone who played
    (issue 32.14: a forfeited first match placed them beside those who lost it playing,
    on a podium even), the places of the others counted again (a place shared with
    a no-show stays shared by the others; the places after it close up). Until the
    tournament is over they are not placed at all."""
    absent = no_shows(t)
    if not absent.intersection(p for _, p in ranked):
        return ranked
    out: list[tuple[int, str]] = []
    previous = None
    for place, p in ranked:
        if p in absent:
            continue
        out.append((out[-1][0] if out and place == previous else len(out) + 1, p))
        previous = place
    if t.status != "finished":
        return out  # placed last once everyone is placed: before, they would seem ahead of the still playing
    return out + [(len(out) + i, p) for i, p in enumerate((p for _, p in ranked if p in absent), 1)]


def main_ranking(t: Tournament) -> list[tuple[int, str]]:
    """:func:`bracket_ranking` of the main bracket, its 3rd-place match (when played)
    ordering the two losing semi-finalists."""
    out = bracket_ranking(t, "main")
    third = next((m for m in t.matches.values() if m.stage == "third" and m.status == "done" and not m.bye
                  and len(m.players) == 2), None)
    if third is not None:
        order = [p for g in third.ranking for p in g]
        kept = [(place, p) for place, p in out if p not in order]
        out = [x for x in kept if x[0] < 3] + [(3, order[0]), (4, order[1])] + [x for x in kept if x[0] >= 3]
    return out


def _placed(t: Tournament, lines: list[Standing]) -> list[tuple[int, str]]:
    """:func:`final_ranking` of the formats with brackets (not double elimination)."""
    out = main_ranking(t)
    if t.spec.format in ("pools", "abc"):  # then B (and C), each after the one before
        for stage in ("consolation", "c"):
            offset = len(out)
            out += [(place + offset, p) for place, p in bracket_ranking(t, stage)]
    if t.status == "finished":  # everyone placed once: those no bracket placed, by standing
        placed = {p for _, p in out}
        withdrawn = {p for p in t.order if t.players[p].status == "withdrawn"}
        rest = [s.player for s in lines if s.player in t.order and s.player not in placed]
        rest.sort(key=lambda p: p in withdrawn)
        out += [(len(out) + i, p) for i, p in enumerate(rest, 1)]
    return out


def double_ranking(t: Tournament, lines: list[Standing]) -> list[tuple[int, str]]:
    """A double elimination's places: the last grand final played decides 1st and 2nd;
    then by the losers-bracket round each player went out in (later is better; those
    out in one round share the place). Empty until the grand final is decided."""
    finals = [m for m in t.matches.values() if m.stage == "grand" and m.status == "done" and len(m.players) == 2]
    if t.status != "finished" or not finals:
        return []
    last = max(finals, key=lambda m: m.round)
    champion = last.winner()
    assert champion is not None
    out: list[tuple[int, str]] = [(1, champion), (2, next(p for p in last.players if p != champion))]
    out_in: dict[str, int] = {}
    for m in t.matches.values():
        if m.stage == "losers" and m.status == "done" and len(m.players) == 2:
            for p in m.players:
                if p != m.winner():
                    out_in[p] = m.round
    placed = {p for _, p in out}
    for p in sorted((p for p in out_in if p not in placed), key=lambda p: -out_in[p]):
        same = out[-1][0] if len(out) > 2 and out_in.get(out[-1][1]) == out_in[p] else len(out) + 1
        out.append((same, p))
    rest = [s.player for s in lines if s.player in t.order and s.player not in {p for _, p in out}]
    out += [(len(out) + i, p) for i, p in enumerate(rest, 1)]
    return out


CONCOURS = (("A", "main"), ("B", "consolation"), ("C", "c"))
"""An AB/ABC event's concours and the bracket (stage) each is played in."""


def concours_places(t: Tournament) -> dict[str, list[tuple[int, str]]]:
    """An AB/ABC event's places within each concours ({"A": [(place, player)…], "B": …}),
    as its results are published ("Concours B : 1er …"): by the round each player went out
    in, the 3rd-place match (concours A) ordering the losing semi-finalists; a concours
    with no bracket (too few players) is left out. {} for the other formats."""
    if t.spec.format != "abc":
        return {}
    out = {}
    for letter, stage in CONCOURS:
        if not any(m.stage == stage for m in t.matches.values()):
            continue
        out[letter] = main_ranking(t) if stage == "main" else bracket_ranking(t, stage)
    return out


def concours_podiums(t: Tournament) -> list[tuple[str, bool, list[tuple[int, str]]]]:
    """(concours, finished, podium) of an AB/ABC event: each concours' winner, finalist
    and semi-finalists (places 1 to 3) once its final is played."""
    out = []
    for letter, ranked in concours_places(t).items():
        stage = dict(CONCOURS)[letter]
        finished = all(m.status in ("done", "cancelled") for m in t.matches.values()
                       if m.stage == stage or (stage == "main" and m.stage == "third"))
        out.append((letter, finished, [(place, p) for place, p in ranked if place <= 3] if finished else []))
    return out


def podium(t: Tournament, ranking: list[tuple[int, str]] | None = None) -> list[tuple[int, str]]:
    """The places 1 to 3 once the tournament is finished ([] before)."""
    if t.status != "finished":
        return []
    return [(place, p) for place, p in (ranking or final_ranking(t)) if place <= 3]
