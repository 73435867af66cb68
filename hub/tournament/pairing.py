"""Swiss pairing of duels, after the FIDE Dutch system's criteria (C.04.3), simplified.

What is kept of the Dutch system, in its order of priority:

1. the pairing-allocated bye to a player who has had none (C2; once everyone had one,
   to one of those with the fewest);
2. no rematch (C1) — here: none while one can be avoided;
3. among the players the bye may go to, the lowest-ranked one such that the others can
   be paired without a rematch;
4. score groups first: as few and as small score differences as possible between
   paired players (C6/C7, "floaters": Σ over pairs of the squared distance between
   their score groups, so a floater goes one group down rather than two);
5. within a score group, its top half against its bottom half (S1 against S2: 1st
   against the (n/2+1)th), a floater meeting the highest of the group below.

Not kept: colours (our games have no white and black), the float history of earlier
rounds (C12–C15), accelerated pairings. The pairing order is the score, then the
initial seeding (pairing numbers), never the tie-breaks: so round 1, everybody on 0,
pairs the seeded top half against the bottom half.

Fields of up to :data:`EXACT_LIMIT` players are paired as one maximum-weight matching
(networkx) whose weights put the criteria above in strict lexicographic order: the
optimum for all of them at once. Larger fields follow the Dutch procedure itself,
score group by score group from the top (each group's S1 matched to S2 by augmenting
paths in transposition order; an odd group floats its lowest player who leaves the
rest pairable; a group that cannot pair within itself is merged with the group
below): with more than 64 players and at most 30 rounds a rematch-free pairing always
exists (Dirac: everyone can still meet more than half the field), and a 2,048-player
round takes a few milliseconds.

>>> pair_swiss(["a", "b", "c", "d"], {"a": 1, "b": 1, "c": 0, "d": 0}, met={("a", "b")}, byes={})
([('a', 'c'), ('b', 'd')], None)
>>> pair_swiss(["s1", "s2", "s3", "s4"], {}, met=set(), byes={})  # round 1: top half vs bottom
([('s1', 's3'), ('s2', 's4')], None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

EXACT_LIMIT = 64
BYE = "\x00bye"

Met = set[tuple[str, str]] | frozenset[tuple[str, str]]


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The unordered pair ``(a, b)`` as a sorted tuple (how ``met`` is keyed)."""
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, slots=True)
class Quality:
    """How a pairing meets the criteria, smaller is better (compared in field order)."""

    bye_repeat: int  # byes the bye player had already, above the field's fewest
    rematches: int
    bye_rank: int  # 0: the bye went to the lowest-ranked player, 1: the next one up...
    floats: int  # Σ squared score-group distances over the pairs


def score_groups(ranked: Sequence[str], scores: Mapping[str, float]) -> dict[str, int]:
    """Each player's score group, 0 the top one (``ranked`` is best first, so equal
    scores are consecutive)."""
    group: dict[str, int] = {}
    index, last = -1, None
    for p in ranked:
        s = scores.get(p, 0.0)
        if s != last:
            index, last = index + 1, s
        group[p] = index
    return group


def quality(ranked: Sequence[str], scores: Mapping[str, float], met: Met, byes: Mapping[str, int],
            pairs: Sequence[tuple[str, str]], bye: str | None) -> Quality:
    """The :class:`Quality` of a pairing of ``ranked``."""
    group = score_groups(ranked, scores)
    fewest = min((byes.get(p, 0) for p in ranked), default=0)
    return Quality(0 if bye is None else byes.get(bye, 0) - fewest,
                   sum(pair_key(a, b) in met for a, b in pairs),
                   0 if bye is None else len(ranked) - 1 - list(ranked).index(bye),
                   sum((group[a] - group[b]) ** 2 for a, b in pairs))


def pair_swiss(ranked: Sequence[str], scores: Mapping[str, float], met: Met,
               byes: Mapping[str, int], *, exact_limit: int = EXACT_LIMIT
               ) -> tuple[list[tuple[str, str]], str | None]:
    """Pair ``ranked`` (score, then seeding; best first) for a Swiss round: (pairs, each
    higher-ranked first and in ranking order; the bye or None). ``scores``: points so
    far (missing: 0); ``met``: pairs who already played; ``byes``: byes had so far."""
    players = list(ranked)
    if len(players) != len(set(players)):
        raise ValueError("pair_swiss: a player is listed twice")
    if len(players) < 2:
        return [], (players[0] if players else None)
    if len(players) <= exact_limit:
        pairs, bye = _exact(players, scores, met, byes)
    else:
        pairs, bye = _dutch(players, scores, met, byes)
    position = {p: i for i, p in enumerate(players)}
    pairs = [(a, b) if position[a] < position[b] else (b, a) for a, b in pairs]
    pairs.sort(key=lambda pair: position[pair[0]])
    return pairs, bye


def _exact(players: list[str], scores: Mapping[str, float], met: Met,
           byes: Mapping[str, int]) -> tuple[list[tuple[str, str]], str | None]:
    """One maximum-weight matching of the whole field, the criteria as digits of one
    integer weight (networkx computes with integers exactly)."""
    n = len(players)
    group = score_groups(players, scores)
    members: dict[int, list[str]] = {}
    for p in players:
        members.setdefault(group[p], []).append(p)
    pos = {p: members[group[p]].index(p) for p in players}
    size = {g: len(m) for g, m in members.items()}
    shape_base = 8 * n ** 3 + 1  # above any sum of shape costs
    float_base = shape_base
    bye_rank_base = float_base * (n * len(members) ** 2 + 1)
    rematch_base = bye_rank_base * (n + 1)
    bye_repeat_base = rematch_base * (n + 1)
    top = bye_repeat_base * 31  # byes per player are at most the rounds (30)
    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            ga, gb = group[a], group[b]
            if ga == gb:  # S1 against S2: partners half the group apart
                shape = (abs(pos[a] - pos[b]) - size[ga] // 2) ** 2
            else:  # the lowest of the higher group floats to the highest of the lower,
                # floaters in their order
                shape = 2 * n * ((size[ga] - 1 - pos[a]) + pos[b]) + (pos[a] - pos[b]) ** 2
            cost = (rematch_base * (pair_key(a, b) in met) + float_base * (ga - gb) ** 2 + shape)
            graph.add_edge(a, b, weight=top - cost)
    if n % 2:
        fewest = min(byes.get(p, 0) for p in players)
        for i, p in enumerate(players):
            cost = bye_repeat_base * (byes.get(p, 0) - fewest) + bye_rank_base * (n - 1 - i)
            graph.add_edge(BYE, p, weight=top - cost)
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    pairs: list[tuple[str, str]] = []
    bye = None
    for a, b in mate:
        if BYE in (a, b):
            bye = b if a == BYE else a
        else:
            pairs.append((a, b))
    return pairs, bye


def _dutch(players: list[str], scores: Mapping[str, float], met: Met,
           byes: Mapping[str, int]) -> tuple[list[tuple[str, str]], str | None]:
    """The Dutch procedure, score group by score group (module doc)."""
    rest = list(players)
    bye = None
    if len(rest) % 2:
        fewest = min(byes.get(p, 0) for p in rest)
        for p in reversed(rest):  # the lowest-ranked with the fewest byes whose absence pairs
            if byes.get(p, 0) == fewest and _pairable_dirac(rest, p, met):
                bye = p
                break
        if bye is None:
            return _exact(players, scores, met, byes)  # a small field paired by hand
        rest.remove(bye)
    group = score_groups(rest, scores)
    groups: list[list[str]] = []
    for p in rest:
        if group[p] == len(groups):
            groups.append([])
        groups[-1].append(p)
    pairs: list[tuple[str, str]] = []
    drawn: list[tuple[list[str], int]] = []  # (bracket, len(pairs) before it), to undo
    carry: list[str] = []
    i = 0
    while i < len(groups):
        bracket = carry + groups[i]
        last = i == len(groups) - 1
        floater = None
        if len(bracket) % 2 and not last:
            for p in reversed(bracket):
                found = _s1_s2([q for q in bracket if q != p], met)
                if found is not None:
                    floater = p
                    break
            if floater is None:  # the group cannot pair within itself: one bracket with the next
                carry, i = bracket, i + 1
                continue
            bracket_pairs = found
        else:
            bracket_pairs = _s1_s2(bracket, met) if len(bracket) % 2 == 0 else None
        if bracket_pairs is None:
            if not last:
                carry, i = bracket, i + 1
                continue
            if drawn:  # the last bracket cannot pair: draw it again with the one above
                above, keep = drawn.pop()
                del pairs[keep:]
                groups[i] = above + [p for p in bracket if p not in above]
                carry = []
                continue
            return _exact(players, scores, met, byes)
        drawn.append((bracket, len(pairs)))
        pairs.extend(bracket_pairs)
        carry = [floater] if floater is not None else []
        i += 1
    return pairs, bye


def _pairable_dirac(players: list[str], without: str, met: Met) -> bool:
    """True when the others can surely be paired without a rematch: each of them can
    still meet at least half of them (Dirac's theorem gives a Hamiltonian cycle, so a
    perfect matching). Below that bound the exact matching decides."""
    others = len(players) - 1
    counts: dict[str, int] = {}
    inside = set(players) - {without}
    for a, b in met:
        if a in inside and b in inside:
            counts[a] = counts.get(a, 0) + 1
            counts[b] = counts.get(b, 0) + 1
    return all(others - 1 - c >= others / 2 for c in counts.values())


def _s1_s2(bracket: list[str], met: Met) -> list[tuple[str, str]] | None:
    """The bracket's top half S1 matched to its bottom half S2 without a rematch, each
    S1 player trying S2 in transposition order (its own partner, then the next ones,
    then those above), by augmenting paths; None when no such matching exists."""
    half = len(bracket) // 2
    s1, s2 = bracket[:half], bracket[half:]
    partner: dict[int, int] = {}  # S2 index -> S1 index

    def order(i: int) -> list[int]:
        return list(range(i, len(s2))) + list(range(i - 1, -1, -1))

    def augment(i: int, seen: set[int]) -> bool:
        for j in order(i):
            if j in seen or pair_key(s1[i], s2[j]) in met:
                continue
            seen.add(j)
            if j not in partner or augment(partner[j], seen):
                partner[j] = i
                return True
        return False

    for i in range(half):
        if not augment(i, set()):
            return _within(bracket, met)
    return [(s1[i], s2[j]) for j, i in sorted(partner.items(), key=lambda kv: kv[1])]


def _within(bracket: list[str], met: Met) -> list[tuple[str, str]] | None:
    """A rematch-free pairing of the bracket that crosses S1 and S2 less strictly
    (S1 against S1 allowed), for the small brackets where S1×S2 fails; None if none."""
    if len(bracket) > EXACT_LIMIT:
        return None
    graph: nx.Graph[str] = nx.Graph()
    for i, a in enumerate(bracket):
        for j in range(i + 1, len(bracket)):
            b = bracket[j]
            if pair_key(a, b) not in met:
                graph.add_edge(a, b, weight=len(bracket) ** 2 - (j - i - len(bracket) // 2) ** 2)
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(mate) != len(bracket):
        return None
    return [(a, b) for a, b in mate]
