"""The fast Triolet move generator: every legal play of a rack with its points (L3–L12),
and the best one-token threats the bot measures a move by.

>>> from engines.triolet.board import cell_index, cell_name
>>> board = Board()
>>> board.place(cell_index("H8"), 7, False)
>>> [(points, [cell_name(c) for c, _, _ in play]) for points, play in generate(board, [8])]
[(15, ['H7']), (15, ['G8']), (15, ['I8']), (15, ['H9'])]
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.triolet.board import (
    ACROSS,
    CENTRE,
    DOWN,
    EMPTY,
    JOKER,
    MAX_VALUE,
    MULTIPLIER,
    TRIO_POINTS,
    TRIOLET_BONUS,
    Board,
    Play,
    accepts,
)


def _rack_orders(rack: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Distinct ordered choices of ``size`` rack tokens, never two jokers (L12)."""
    found: set[tuple[int, ...]] = set()
    n = len(rack)
    if size == 1:
        found = {(t,) for t in rack}
    elif size == 2:
        found = {(rack[a], rack[b]) for a in range(n) for b in range(n) if a != b}
    else:
        found = {
            (rack[a], rack[b], rack[c])
            for a in range(n)
            for b in range(n)
            for c in range(n)
            if len({a, b, c}) == 3
        }
    return sorted(o for o in found if o.count(JOKER) <= 1)


def _choices(token: int, mask: int) -> list[int]:
    """Values ``token`` may take on a cell accepting ``mask``: itself, or any for a joker."""
    if token == JOKER:
        return [v for v in range(16) if mask >> v & 1]
    return [token] if mask >> token & 1 else []


def single_points(ka: int, za: int, kd: int, zd: int, m: int, z: int) -> int:
    """Points of one token scoring ``z`` on a cell of multiplier ``m`` that joins ``ka``
    tokens (scoring ``za``) across and ``kd`` (scoring ``zd``) down (L8, L10)."""
    pts = 0
    trio = inset = False
    for k, zs in ((ka, za), (kd, zd)):
        if k == 1:
            pts += zs + z
            inset = True
        elif k == 2:
            pts += TRIO_POINTS
            trio = True
    if m > 1:
        if trio:
            pts += (m - 1) * TRIO_POINTS
        elif inset:
            pts += (m - 1) * z
    return pts


def single_threats(board: Board) -> list[int]:
    """The best one-token play per token: index v for a v (0–15), 16 for a joker.

    What an opponent holding that token could score with it alone: the bot's measure of
    what a move leaves open.

    >>> board = Board(); board.place(CENTRE, 7, False)
    >>> threats = single_threats(board)
    >>> threats[8], threats[9], threats[JOKER]
    (15, 0, 7)
    """
    best = [0] * (JOKER + 1)
    square_check = 3 <= len(board.occupied) <= 8
    for a in board.anchors if board.occupied else (CENTRE,):
        k1, s1, z1 = board.side(a, -ACROSS)
        k2, s2, z2 = board.side(a, ACROSS)
        k3, s3, z3 = board.side(a, -DOWN)
        k4, s4, z4 = board.side(a, DOWN)
        mask = accepts(k1 + k2, s1 + s2) & accepts(k3 + k4, s3 + s4)
        if not mask or (square_check and board.is_forbidden_square([a])):
            continue
        m = MULTIPLIER[a]
        ka, za, kd, zd = k1 + k2, z1 + z2, k3 + k4, z3 + z4
        for v in range(16):
            if mask >> v & 1:
                pts = single_points(ka, za, kd, zd, m, v)
                if pts > best[v]:
                    best[v] = pts
                jp = single_points(ka, za, kd, zd, m, 0)
                if jp > best[JOKER]:
                    best[JOKER] = jp
    return best


def generate(board: Board, rack: Sequence[int]) -> list[tuple[int, Play]]:
    """Every legal play for ``rack``, each with its points (L3–L12), lone token = 0.

    Anchor cells (empty, beside a token; the centre on an empty board) and per-axis
    cross-check masks restrict the few shapes a play can take: one token on an anchor,
    two side by side covering an anchor, two around one token, three side by side (a
    Triolet) covering an anchor.
    """
    value = board.value
    out: list[tuple[int, Play]] = []
    if not rack:
        return out
    first = not board.occupied
    anchors = {CENTRE} if first else board.anchors
    square_check = len(board.occupied) + 3 >= 4 and len(board.occupied) <= 8
    perp_cache: dict[int, tuple[int, int, int]] = {}

    def perp(i: int, d: int) -> tuple[int, int, int]:
        """(mask, count, points) of cell i on the axis across ``d``."""
        key = i * 2 + (d == ACROSS)
        got = perp_cache.get(key)
        if got is None:
            p = DOWN if d == ACROSS else ACROSS
            k1, s1, z1 = board.side(i, -p)
            k2, s2, z2 = board.side(i, p)
            k = k1 + k2
            got = (accepts(k, s1 + s2), k, z1 + z2)
            perp_cache[key] = got
        return got

    def emit_pair(s: int, e: int, d: int, target: int) -> None:
        """Two tokens on cells s and e of a line along ``d``, if each fits across it."""
        m1, k1, z1 = perp(s, d)
        m2, k2, z2 = perp(e, d)
        if m1 and m2 and not (square_check and board.is_forbidden_square([s, e])):
            _emit_line(out, (s, e), (m1, m2), (k1, k2), (z1, z2), pairs, target, False)

    singles = _rack_orders(rack, 1)
    pairs = _rack_orders(rack, 2) if len(rack) >= 2 else []
    triples = _rack_orders(rack, 3) if len(rack) >= 3 else []

    # One token on an anchor: both axes are cross-checks.
    for a in sorted(anchors):
        ma, ka, za = perp(a, DOWN)  # the across axis of a
        md, kd, zd = perp(a, ACROSS)  # the down axis of a
        mask = ma & md
        if not mask:
            continue
        if square_check and board.is_forbidden_square([a]):
            continue
        m = MULTIPLIER[a]
        for (t,) in singles:
            for v in _choices(t, mask):
                z = 0 if t == JOKER else v
                out.append((single_points(ka, za, kd, zd, m, z), ((a, t, v),)))

    for d in (ACROSS, DOWN):
        # Two tokens side by side, and three side by side.
        starts2: set[int] = set()
        starts3: set[int] = set()
        for a in anchors:
            for s in (a, a - d):
                if value[s] == EMPTY and value[s + d] == EMPTY:
                    starts2.add(s)
            if triples:
                for s in (a, a - d, a - 2 * d):
                    if (
                        value[s] == EMPTY
                        and value[s + d] == EMPTY
                        and value[s + 2 * d] == EMPTY
                        and value[s - d] < 0
                        and value[s + 3 * d] < 0
                    ):
                        starts3.add(s)
        if pairs:
            for s in sorted(starts2):
                e = s + d
                kb, sb, _ = board.side(s, -d)
                ka, sa, _ = board.side(e, d)
                if kb + ka <= 1:
                    emit_pair(s, e, d, MAX_VALUE - sb - sa if kb + ka == 1 else -1)
        if triples:
            for s in sorted(starts3):
                cells = (s, s + d, s + 2 * d)
                info = [perp(c, d) for c in cells]
                if not all(x[0] for x in info):
                    continue
                if square_check and board.is_forbidden_square(cells):
                    continue
                _emit_line(
                    out,
                    cells,
                    tuple(x[0] for x in info),
                    tuple(x[1] for x in info),
                    tuple(x[2] for x in info),
                    triples,
                    MAX_VALUE,
                    True,
                )
        # Two tokens around one token already there: they make a trio with it.
        if pairs and not first:
            for x in board.occupied:
                s, e = x - d, x + d
                if value[s] != EMPTY or value[e] != EMPTY:
                    continue
                if value[s - d] < 0 and value[e + d] < 0:
                    emit_pair(s, e, d, MAX_VALUE - value[x])
    return out


def _emit_line(
    out: list[tuple[int, Play]],
    cells: Sequence[int],
    masks: Sequence[int],
    counts: Sequence[int],
    sides: Sequence[int],
    orders: list[tuple[int, ...]],
    target: int,
    triolet: bool,
) -> None:
    """Emit the plays of ``orders`` on ``cells`` (one line). The main run is a trio summing
    to ``target`` when it is >= 0, else a pair of the placed two (sum <= 15)."""
    special = -1
    for n, c in enumerate(cells):
        if MULTIPLIER[c] > 1:
            special = n
    main_trio = target >= 0
    two = len(cells) == 2
    for order in orders:
        if two and order[0] != JOKER and order[1] != JOKER:
            # the common case, inlined: two numbered tokens (the generator's hot path)
            v1, v2 = order
            if not (masks[0] >> v1 & 1 and masks[1] >> v2 & 1):
                continue
            if (v1 + v2 != target) if main_trio else (v1 + v2 > MAX_VALUE):
                continue
            pts = TRIO_POINTS if main_trio else v1 + v2
            k = counts[0]
            if k == 1:
                pts += sides[0] + v1
            elif k == 2:
                pts += TRIO_POINTS
            k = counts[1]
            if k == 1:
                pts += sides[1] + v2
            elif k == 2:
                pts += TRIO_POINTS
            if special >= 0:
                m = MULTIPLIER[cells[special]]
                if main_trio or counts[special] == 2:
                    pts += (m - 1) * TRIO_POINTS
                else:
                    pts += (m - 1) * (v1 if special == 0 else v2)
            out.append((pts, ((cells[0], v1, v1), (cells[1], v2, v2))))
            continue
        if not two and JOKER not in order and order[0] + order[1] + order[2] != target:
            continue
        choice_lists = [_choices(t, m) for t, m in zip(order, masks, strict=True)]
        if not all(choice_lists):
            continue
        has_joker = JOKER in order
        combos: list[tuple[int, ...]]
        if len(cells) == 2:
            combos = [
                (v1, v2)
                for v1 in choice_lists[0]
                for v2 in choice_lists[1]
                if (v1 + v2 == target if main_trio else v1 + v2 <= MAX_VALUE)
            ]
        else:
            combos = [
                (v1, v2, target - v1 - v2)
                for v1 in choice_lists[0]
                for v2 in choice_lists[1]
                if 0 <= target - v1 - v2 <= MAX_VALUE and (target - v1 - v2) in choice_lists[2]
            ]
        for vals in combos:
            zs = [0 if t == JOKER else v for t, v in zip(order, vals, strict=True)]
            pts = TRIO_POINTS if main_trio else zs[0] + zs[1]
            for n in range(len(cells)):
                k = counts[n]
                if k == 1:
                    pts += sides[n] + zs[n]
                elif k == 2:
                    pts += TRIO_POINTS
            if special >= 0:
                m = MULTIPLIER[cells[special]]
                if main_trio or (counts[special] == 2):
                    pts += (m - 1) * TRIO_POINTS
                else:
                    pts += (m - 1) * zs[special]
            if triolet and not has_joker:
                pts += TRIOLET_BONUS
            out.append((pts, tuple(zip(cells, order, vals, strict=True))))
