"""Swiss pairing by the book (issue 25, findings 2, 3 and 7): the Dutch system's criteria
(hub.tournament.pairing) against a brute-force optimum on small fields, and over whole
random events, small (one exact matching) and large (the Dutch procedure)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.tournament import placings, swiss
from hub.tournament.pairing import Quality, pair_key, pair_swiss, quality
from hub.tournament.state import Tournament


def matchings(players: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not players:
        yield []
        return
    first = players[0]
    for i in range(1, len(players)):
        for rest in matchings(players[1:i] + players[i + 1:]):
            yield [(first, players[i]), *rest]


def key(q: Quality) -> tuple[int, int, int, int]:
    return (q.bye_repeat, q.rematches, q.bye_rank, q.floats)


def brute_force(ranked: list[str], scores: dict[str, float], met: set[tuple[str, str]],
                byes: dict[str, int]) -> tuple[int, int, int, int]:
    options = []
    for bye in (ranked if len(ranked) % 2 else [None]):
        rest = [p for p in ranked if p != bye]
        options += [key(quality(ranked, scores, met, byes, m, bye)) for m in matchings(rest)]
    return min(options)


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[str], dict[str, float], set[tuple[str, str]], dict[str, int]]:
    n = draw(st.integers(2, 9))
    ps = [f"p{i}" for i in range(n)]
    scores = {p: float(draw(st.integers(0, 3))) for p in ps}
    ranked = sorted(ps, key=lambda p: -scores[p])
    pairs = [pair_key(a, b) for i, a in enumerate(ps) for b in ps[i + 1:]]
    met = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs))))
    byes = {p: draw(st.integers(0, 1)) for p in ps}
    return ranked, scores, met, byes


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields())
def test_small_fields_are_paired_at_the_brute_force_optimum(case: tuple[list[str], dict[str, float],
                                                                        set[tuple[str, str]], dict[str, int]]) -> None:
    ranked, scores, met, byes = case
    pairs, bye = pair_swiss(ranked, scores, met, byes)
    seated = sorted([p for pair in pairs for p in pair] + ([bye] if bye else []))
    assert seated == sorted(ranked)
    assert key(quality(ranked, scores, met, byes, pairs, bye)) == brute_force(ranked, scores, met, byes)


def swiss_event(n: int, *, game: str = "trike", seeding: str = "registration", rounds: int = 5,
                ratings: bool = False) -> Tournament:
    t = Tournament.create("T", {"type": "create", "spec": {
        "name": "S", "game": game, "format": "swiss", "rounds": rounds, "check_in": False,
        "seeding": seeding, "options": {"size": 5} if game == "trike" else {}}})
    for i in range(n):
        player: dict[str, object] = {"name": f"P{i + 1}"}
        if ratings:
            player["rating"] = float(i)  # the last registered is the best rated
        t.apply({"type": "register", "player": player})
    t.apply(t.start_entry())
    return t


def play_round(t: Tournament, rng: random.Random, draws: float = 0.0) -> None:
    t.apply(swiss.draw_round(t))
    for m in [m for m in t.matches.values() if m.status == "ready"]:
        order = list(m.players)
        rng.shuffle(order)
        ranking = [order] if rng.random() < draws else order
        t.apply({"type": "result", "match": m.id, "ranking": ranking})


def test_round_1_pairs_the_seeded_top_half_against_the_bottom_half() -> None:
    """Finding 7: seeded by rating, round 1 is 1 v 5, 2 v 6, 3 v 7, 4 v 8 (no lot)."""
    t = swiss_event(8, seeding="rating", ratings=True)
    entry = swiss.draw_round(t)
    by_rating = [f"p{i}" for i in range(8, 0, -1)]
    assert entry["groups"] == [[by_rating[i], by_rating[i + 4]] for i in range(4)]


def test_64_players_pair_each_score_group_within_itself() -> None:
    """Finding 3: after round 1 (30 wins, 2 draws) every score group is even, so round 2
    pairs 1 v 1, ½ v ½ and 0 v 0 across the whole field (not two halves of 32)."""
    t = swiss_event(64)
    t.apply(swiss.draw_round(t))
    for i, m in enumerate(m for m in list(t.matches.values()) if m.status == "ready"):
        t.apply({"type": "result", "match": m.id, "ranking": [list(m.players)] if i in (3, 27) else list(m.players)})
    entry = swiss.draw_round(t)
    points = {s.player: s.points for s in placings.standings(t)}
    assert all(points[a] == points[b] for a, b in entry["groups"]), entry["groups"]


def test_the_bye_goes_to_the_lowest_ranked_without_one_not_the_leader() -> None:
    """Finding 2: over whole 7- and 8-player events (one withdrawal), each bye goes to a
    player with the fewest byes, the lowest-ranked such one whose absence leaves the
    others pairable without a rematch."""
    for n, withdraw in ((7, False), (8, True)):
        for seed in range(12):
            rng = random.Random(seed)
            t = swiss_event(n, rounds=6)
            for rnd in range(6):
                if withdraw and rnd == 2:
                    t.apply({"type": "withdraw", "player": t.eligible()[-1]})
                ranked, scores = swiss.pairing_order(t, t.eligible(), t.round + 1)
                met, byes = swiss.met(t), swiss.byes(t)
                entry = swiss.draw_round(t)
                bye = entry["bye"]
                if bye is not None:
                    fewest = min(byes.get(p, 0) for p in ranked)
                    assert byes.get(bye, 0) == fewest
                    below = ranked[ranked.index(bye) + 1:]
                    for lower in (p for p in below if byes.get(p, 0) == fewest):
                        # a lower one was passed over only because the rest could not pair
                        rest = [p for p in ranked if p != lower]
                        assert brute_force(rest, scores, met, {})[1] > 0, (seed, rnd, bye, lower)
                t.apply(entry)
                for m in [m for m in t.matches.values() if m.status == "ready"]:
                    order = list(m.players)
                    rng.shuffle(order)
                    t.apply({"type": "result", "match": m.id, "ranking": order})


@pytest.mark.slow  # 2-3 s: the fast loop stays under a minute
def test_large_events_follow_the_dutch_procedure_as_well_as_the_exact_matching() -> None:
    """Past 64 players the Dutch procedure pairs: over random events of 66 to 150
    players it is as good on every criterion as one exact matching of the whole field,
    and never pairs a rematch."""
    rng = random.Random(5)
    for n in (66, 97, 150):
        t = swiss_event(n, rounds=7)
        for _ in range(7):
            ranked, scores = swiss.pairing_order(t, t.eligible(), t.round + 1)
            met, byes = swiss.met(t), swiss.byes(t)
            dutch = pair_swiss(ranked, scores, met, byes)
            exact = pair_swiss(ranked, scores, met, byes, exact_limit=10**6)
            assert key(quality(ranked, scores, met, byes, *dutch)) == key(quality(ranked, scores, met, byes, *exact))
            assert quality(ranked, scores, met, byes, *dutch).rematches == 0
            play_round(t, rng, draws=0.1)

