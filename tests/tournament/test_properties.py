"""Property tests of the tournament core (issue 16 "Done when"): no player twice in a
round, no repeat opponent when one can be avoided, byes rotate, standings always equal a
recomputation from the log, a corrected result changes only what it must."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.tournament import corrections, formats, pairing, placings, scheduling, swiss
from hub.tournament.state import Tournament

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def players(n: int) -> list[str]:
    return [f"p{i}" for i in range(1, n + 1)]


def avoidable(field: list[str], met: set[tuple[str, str]], bye_candidates: set[str]) -> bool:
    """Whether the field can be paired with no repeat (and a bye among the candidates)."""
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(field)
    for i, a in enumerate(field):
        for b in field[i + 1:]:
            if formats.pair_key(a, b) not in met:
                graph.add_edge(a, b)
    if len(field) % 2:
        for p in bye_candidates:
            graph.add_edge("BYE", p)
    size = len(field) + len(field) % 2
    return len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 == size


@st.composite
def swiss_fields(draw: st.DrawFn) -> tuple[list[str], set[tuple[str, str]], dict[str, int]]:
    field = players(draw(st.integers(2, 16)))
    draw(st.randoms()).shuffle(field)
    pairs = [formats.pair_key(a, b) for i, a in enumerate(field) for b in field[i + 1:]]
    met = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs))))
    byes = {p: draw(st.integers(0, 2)) for p in field}
    return field, met, byes


@SETTINGS
@given(swiss_fields())
def test_swiss_pairs_cover_everyone_once_avoid_repeats_and_rotate_byes(
        case: tuple[list[str], set[tuple[str, str]], dict[str, int]]) -> None:
    field, met, byes = case
    pairs, bye = pairing.pair_swiss(field, {}, met, byes)
    seated = [p for pair in pairs for p in pair] + ([bye] if bye else [])
    assert sorted(seated) == sorted(field)  # nobody twice, nobody left out
    assert (bye is not None) == (len(field) % 2 == 1)
    fewest = min(byes.values())
    candidates = {p for p in field if byes[p] == fewest}
    if bye is not None:
        assert byes[bye] == fewest  # byes rotate: never a second bye before everyone had one
    repeats = sum(formats.pair_key(a, b) in met for a, b in pairs)
    if avoidable(field, met, candidates if len(field) % 2 else set()):
        assert repeats == 0


def test_large_field_still_avoids_repeats() -> None:
    """80 players (past the exact matching: the Dutch procedure) where the natural
    neighbours all met already."""
    field = players(80)
    met = {formats.pair_key(field[i], field[i + 1]) for i in range(79)}
    pairs, bye = pairing.pair_swiss(field, {}, met, {})
    assert bye is None and len(pairs) == 40
    assert not any(formats.pair_key(a, b) in met for a, b in pairs)


@SETTINGS
@given(st.integers(1, 40), st.integers(3, 6), st.randoms())
def test_groups_of_k_place_everyone_once(n: int, seats: int, rnd: random.Random) -> None:
    field = players(n)
    groups, bye = formats.group_swiss(field, {}, seats, set(), {})
    seated = [p for g in groups for p in g] + ([bye] if bye else [])
    assert sorted(seated) == sorted(field)
    assert all(2 <= len(g) <= seats for g in groups)


def partition_exists(field: list[str], sizes: list[int], met: set[tuple[str, str]]) -> bool:
    """Brute force: can ``field`` be cut into groups of these sizes with no past pair?"""
    if not sizes:
        return not field
    first, rest = field[0], field[1:]
    for size in set(sizes):  # the first player's group may be of any of the sizes
        left = list(sizes)
        left.remove(size)
        for others in itertools.combinations(rest, size - 1):
            group = (first, *others)
            if any(formats.pair_key(a, b) in met for a, b in itertools.combinations(group, 2)):
                continue
            if partition_exists([p for p in rest if p not in others], left, met):
                return True
    return False


@SETTINGS
@given(st.integers(3, 11), st.sampled_from([3, 4]), st.data())
def test_groups_of_k_avoid_repeats_when_the_field_can(n: int, seats: int, data: st.DataObject) -> None:
    field = players(n)
    pairs = [formats.pair_key(a, b) for a, b in itertools.combinations(field, 2)]
    met = set(data.draw(st.lists(st.sampled_from(pairs), max_size=2 * n)))
    groups, bye = formats.group_swiss(field, {}, seats, met, {})
    seated = [p for g in groups for p in g]
    repeats = sum(formats.pair_key(a, b) in met for g in groups for a, b in itertools.combinations(g, 2))
    if partition_exists(seated, sorted((len(g) for g in groups), reverse=True), met):
        assert repeats == 0, (groups, met)


@given(st.integers(2, 5), st.integers(1, 4))
def test_bracket_order_is_a_permutation_keeping_top_seeds_apart(seats: int, levels: int) -> None:
    size = seats ** levels
    order = formats.bracket_order(size, seats)
    assert sorted(order) == list(range(1, size + 1))
    first_round = [order[i:i + seats] for i in range(0, size, seats)]
    # The best seeds (one per first-round match) never meet in the first round.
    assert all(min(m) <= size // seats for m in first_round)
    assert sorted(min(m) for m in first_round) == list(range(1, size // seats + 1))


# -- whole tournaments driven by random results ------------------------------------------

def create(fmt: str, n: int, seats: int, **extra: Any) -> Tournament:
    spec = {"name": "Prop", "game": "trigono", "format": fmt, "seats": seats,
            "check_in": False, "seed": 7, **extra}
    t = Tournament.create("T", {"type": "create", "spec": spec})
    for i in range(n):
        t.apply({"type": "register", "player": {"name": f"Player {i + 1}"}})
    step(t, t.start_entry())
    return t


def ranking_for(players_: tuple[str, ...], rng: random.Random, ties: bool) -> list[Any]:
    order = list(players_)
    rng.shuffle(order)
    if ties and len(order) >= 3 and rng.random() < 0.3:
        return [order[0], order[1:3], *order[3:]]
    return order


def step(t: Tournament, entry: dict[str, Any]) -> None:
    """Apply an entry and the director's follow-ups, as the service does."""
    t.apply(entry)
    follow = scheduling.follow_up(t, entry)
    while follow is not None:
        t.apply(follow)
        follow = scheduling.follow_up(t, follow)


def naive_points(t: Tournament) -> dict[str, float]:
    """Swiss points recomputed from the log bodies alone (draws, calls, results,
    corrections, forfeits), independently of the Match objects."""
    results: dict[str, list[Any]] = {}
    byes: Counter[str] = Counter()
    groups_of: dict[str, list[str]] = {}
    round_of: dict[str, int] = {}
    forfeits: dict[str, list[str]] = {}
    called: set[str] = set()
    cancelled: set[str] = set()
    number = 0

    def over(mid: str) -> bool:
        return mid in results or len(groups_of[mid]) - len(forfeits.get(mid, [])) <= 1

    for body in t.log:
        kind = body["type"]
        if kind in ("round", "redraw"):
            if kind == "redraw":
                cancelled.update(mid for mid in groups_of if round_of[mid] == body["round"]
                                 and mid not in called and mid not in cancelled and not over(mid)
                                 and not forfeits.get(mid))
            for g in body["groups"]:
                number += 1
                groups_of[f"m{number}"], round_of[f"m{number}"] = g, body["round"]
            if body.get("bye"):
                number += 1
                byes[body["bye"]] += 1
        elif kind == "call":
            called.add(body["match"])
        elif kind in ("result", "correct"):
            results[body["match"]] = body["ranking"]
        elif kind == "forfeit":
            forfeits.setdefault(body["match"], []).append(body["player"])
        elif kind == "withdraw":  # forfeits every match of theirs still to play
            for mid, ps in groups_of.items():
                if body["player"] in ps and mid not in cancelled and not over(mid) \
                        and body["player"] not in forfeits.get(mid, []):
                    forfeits.setdefault(mid, []).append(body["player"])
    points: dict[str, float] = {}
    for p, count in byes.items():
        points[p] = points.get(p, 0.0) + count * t.spec.placing_points(1)
    for mid, ps in groups_of.items():
        if mid in cancelled or not over(mid):
            continue
        gone = forfeits.get(mid, [])
        if mid in results:
            placings = [[g] if isinstance(g, str) else g for g in results[mid]]
        else:
            placings = [[p for p in ps if p not in gone]]
        placings.append(gone)
        place = 1
        for g in placings:
            for p in g:
                points[p] = points.get(p, 0.0) + t.spec.placing_points(place, len(g))
            place += len(g)
    return dict(points)


@st.composite
def swiss_runs(draw: st.DrawFn) -> tuple[int, int, int, int]:
    return (draw(st.integers(2, 14)), draw(st.sampled_from([2, 2, 3, 4])),
            draw(st.integers(1, 5)), draw(st.integers(0, 2**32)))


def check_swiss_run(run: tuple[int, int, int, int]) -> None:
    n, seats, rounds, seed = run
    rng = random.Random(seed)
    t = create("swiss", n, seats, rounds=rounds)
    step(t, {"type": "station", "station": {"id": "s1", "seats": seats}})
    guard = 0
    while t.status != "finished" and guard < 500:
        guard += 1
        live = [m for m in t.matches.values() if m.status in ("ready", "called")]
        done = [m for m in t.matches.values() if m.status == "done" and not m.bye]
        roll = rng.random()
        if done and roll < 0.15:
            m = rng.choice(done)
            rounds_seen = t.round
            step(t, {"type": "correct", "match": m.id,
                     "ranking": ranking_for(tuple(p for p in m.players if p not in m.forfeits), rng, seats > 2)})
            assert t.round == rounds_seen
        elif live and roll < 0.2:
            m = rng.choice(live)
            step(t, {"type": "forfeit", "match": m.id,
                     "player": rng.choice([p for p in m.players if p not in m.forfeits])})
        elif roll < 0.23 and t.round < rounds:
            step(t, {"type": "register", "player": {"name": f"Late {guard}"}})
        elif roll < 0.25 and len(t.eligible()) > 2:
            step(t, {"type": "withdraw", "player": rng.choice(t.eligible())})
        elif live:
            m = rng.choice(live)
            step(t, {"type": "result", "match": m.id,
                     "ranking": ranking_for(tuple(p for p in m.players if p not in m.forfeits), rng, seats > 2)})
        # No player twice in a round.
        for r in range(1, t.round + 1):
            seated = [p for m in t.matches.values() if m.round == r and m.status != "cancelled"
                      for p in m.players]
            assert len(seated) == len(set(seated)), f"round {r}: {Counter(seated).most_common(2)}"
        # Standings always equal a recomputation from the log.
        replayed = Tournament.replay("T", t.log)
        assert replayed.to_json() == t.to_json()
        assert {s.player: s.points for s in placings.standings(t) if s.played} == {
            p: v for p, v in naive_points(t).items()}
    assert t.status == "finished" and t.round == rounds
    assert [place for place, _ in placings.podium(t)][:1] == [1]


def fast(check: Callable[..., None], examples: int, *strategies: st.SearchStrategy[Any]) -> Callable[..., None]:
    """The property ``check`` as a test over ``examples`` examples."""
    test: Callable[..., None] = settings(max_examples=examples, deadline=None,
                                         suppress_health_check=[HealthCheck.too_slow])(given(*strategies)(check))
    return test


def deep(check: Callable[..., None], examples: int, *strategies: st.SearchStrategy[Any]) -> Callable[..., None]:
    """The same over many more examples, for the slow run."""
    test: Callable[..., None] = pytest.mark.slow(fast(check, examples, *strategies))
    return test


test_swiss_tournament_invariants = fast(check_swiss_run, 50, swiss_runs())
test_swiss_tournament_invariants_deep = deep(check_swiss_run, 600, swiss_runs())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 12), st.integers(0, 2**32))
def test_swiss_byes_rotate_and_repeats_are_avoided(n: int, seed: int) -> None:
    """Over a whole Swiss tournament every bye goes to a player with the fewest so far,
    and no round repeats a pairing when the field could avoid it."""
    rng = random.Random(seed)
    t = create("swiss", n, 2, rounds=min(n, 6))
    step(t, {"type": "station", "station": {"id": "s1", "seats": 2}})
    while t.status != "finished":
        counts = swiss.byes(t)
        met = swiss.met(t)
        rnd = t.round
        m = next(m for m in t.matches.values() if m.status in ("ready", "called"))
        step(t, {"type": "result", "match": m.id, "ranking": ranking_for(m.players, rng, False)})
        if t.round != rnd:
            bye = [m for m in t.matches.values() if m.round == t.round and m.bye]
            field = t.eligible()
            fewest = min(counts.get(p, 0) for p in field)
            if bye:
                assert counts.get(bye[0].players[0], 0) == fewest
            # No repeat opponent in the new round when the field could avoid one.
            pairs = [x.players for x in t.matches.values() if x.round == t.round and not x.bye]
            if avoidable(field, met, {p for p in field if counts.get(p, 0) == fewest}):
                assert not any(formats.pair_key(a, b) in met for a, b in pairs)
    assert max(swiss.byes(t).values(), default=0) - min(swiss.byes(t).get(p, 0) for p in t.players) <= 1


def check_pools_and_brackets(fmt: str, n: int, seats: int, seed: int) -> None:
    rng = random.Random(seed)
    t = create(fmt, n, seats, pool_size=max(seats, 4), bracket_seats=2 if seats == 2 else rng.choice([2, 3]))
    step(t, {"type": "station", "station": {"id": "s1", "seats": 4}})
    step(t, {"type": "station", "station": {"id": "s2", "seats": 4}})
    corrected = False
    while t.status != "finished":
        live = [m for m in t.matches.values() if m.status in ("ready", "called")]
        assert live, "a running tournament always has a match to play"
        m = rng.choice(live)
        step(t, {"type": "result", "match": m.id, "ranking": ranking_for(m.players, rng, False)})
        for stage in ("pools", "main", "consolation"):  # no player twice in a round
            for r in range(1, 12):
                seated = [p for x in t.matches.values() if x.stage == stage and x.round == r for p in x.players]
                assert len(seated) == len(set(seated))
        if not corrected and m.stage == "pools":
            before = {x.id: (x.players, x.ranking, x.status) for x in t.matches.values()}
            step(t, {"type": "correct", "match": m.id, "ranking": list(reversed(m.players)),
                     "reset": corrections.dependents(t, m.id, tuple((p,) for p in reversed(m.players)), m.scores)})
            corrected = True
            after = {x.id: (x.players, x.ranking, x.status) for x in t.matches.values()}
            for mid, (ps, ranking, status) in before.items():
                if mid == m.id:
                    continue
                if status in ("called", "done") and t.matches[mid].stage == "pools":
                    assert after[mid][:2] == (ps, ranking), "a started match stays as it was"
        assert Tournament.replay("T", t.log).to_json() == t.to_json()
    podium = placings.podium(t)
    assert podium and podium[0][0] == 1
    ranked = [p for _, p in placings.final_ranking(t)]
    assert len(ranked) == len(set(ranked))
    if fmt == "elimination":
        assert sorted(ranked) == sorted(t.players)


POOLS_RUNS = (st.sampled_from(["pools", "elimination"]), st.integers(2, 20), st.sampled_from([2, 3, 4]),
              st.integers(0, 2**32))
test_pools_and_brackets_reach_a_podium = fast(check_pools_and_brackets, 25, *POOLS_RUNS)
test_pools_and_brackets_reach_a_podium_deep = deep(check_pools_and_brackets, 300, *POOLS_RUNS)


JUNK = st.one_of(st.none(), st.integers(-3, 40), st.text(max_size=6), st.sampled_from(["p1", "p2", "m1", "m3", "s1"]),
                 st.lists(st.sampled_from(["p1", "p2", "p3", "p9"]), max_size=4))


@st.composite
def junk_entries(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["register", "check_in", "withdraw", "station", "start", "round", "redraw",
                                 "call", "uncall", "result", "correct", "forfeit", "nonsense"]))
    keys = draw(st.lists(st.sampled_from(["player", "match", "station", "ranking", "scores", "groups",
                                          "round", "bye", "order", "table"]), max_size=4, unique=True))
    return {"type": kind, **{k: draw(JUNK) for k in keys}}




@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["swiss", "pools", "elimination"]), junk_entries(), st.integers(0, 6))
def test_a_refused_entry_changes_nothing(fmt: str, entry: dict[str, Any], played: int) -> None:
    """Bad input gets a typed error (a ValueError) and leaves the tournament exactly as it was."""
    rng = random.Random(played)
    t = create(fmt, 7, 2, rounds=3)
    step(t, {"type": "station", "station": {"id": "s1", "seats": 2}})
    for _ in range(played):
        live = [m for m in t.matches.values() if m.status in ("ready", "called")]
        if live:
            m = rng.choice(live)
            step(t, {"type": "result", "match": m.id, "ranking": ranking_for(m.players, rng, False)})
    before = t.to_json()
    try:
        t.apply(entry)
    except ValueError:
        assert t.to_json() == before
    else:
        assert Tournament.replay("T", t.log).to_json() == t.to_json()


def test_a_withdrawn_pool_winner_leaves_the_place_to_the_next() -> None:
    t = create("pools", 8, 2, pool_size=4, advance=1, consolation=False)
    pool_a = t.pools[0]
    for m in [m for m in t.matches.values() if m.stage == "pools"]:
        step(t, {"type": "result", "match": m.id, "ranking": sorted(m.players, key=pool_a.index)
                 if m.pool == "A" else list(m.players)})
    # pool_a[0] won every match of pool A; then withdraws before the bracket is played.
    step(t, {"type": "withdraw", "player": pool_a[0]})
    final = next(m for m in t.matches.values() if m.stage == "main")
    assert pool_a[0] not in final.players and pool_a[1] in final.players


@SETTINGS
@given(st.integers(2, 7), st.integers(1, 2), st.integers(0, 2**32))
def test_players_of_one_pool_do_not_meet_in_the_first_bracket_round(pools: int, advance: int, seed: int) -> None:
    """With one or two qualifiers a pool, pool winners and seconds can always be spread so
    no first-round match of the main bracket brings back two players of one pool."""
    rng = random.Random(seed)
    t = create("pools", pools * 3, 2, pool_size=3, advance=advance, consolation=False)
    for m in [m for m in t.matches.values() if m.stage == "pools"]:
        step(t, {"type": "result", "match": m.id, "ranking": ranking_for(m.players, rng, False)})
    pool_of = {p: i for i, pool in enumerate(t.pools) for p in pool}
    first_round = [m for m in t.matches.values() if m.stage == "main" and m.round == 1]
    assert all(len({pool_of[p] for p in m.players}) == len(m.players) for m in first_round)
    assert sum(len(m.players) for m in first_round) == pools * advance
