"""The Triolet board (L1), the token set (L2), play checking and scoring (L3–L12), and
the fast move generator.

The board is a padded 1-D array: 15 × 15 cells inside a one-cell wall, 17 cells a row,
so a neighbour is ``i ± 1`` (across) or ``i ± 17`` (down) and walking a line stops on the
wall without bounds checks. ``value[i]`` is a token's value (a joker's declared value),
``EMPTY`` or ``WALL``; ``points_value[i]`` is what it scores (0 for a joker, L12).

>>> board = Board()
>>> board.place(cell_index("H8"), 7, False)
>>> cell_name(sorted(board.anchors)[0]), len(board.anchors)
('H7', 4)
>>> [(points, [cell_name(c) for c, _, _ in play]) for points, play in generate(board, [8])]
[(15, ['H7']), (15, ['G8']), (15, ['I8']), (15, ['H9'])]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engines.core import IllegalMoveError, RecordError

SIZE = 15
STRIDE = SIZE + 2
ACROSS = 1
DOWN = STRIDE
EMPTY = -1
WALL = -2
JOKER = 16
"""A joker in a rack (on the board it is its declared value with the joker flag)."""
MAX_VALUE = 15
TRIO_POINTS = 30  # L8: 15 + the 15 bonus
TRIOLET_BONUS = 50  # L9
RACK_SIZE = 3
COLUMNS = "ABCDEFGHIJKLMNO"

TOKEN_COUNTS = (9, 9, 8, 8, 7, 8, 6, 6, 4, 4, 3, 3, 2, 2, 1, 1)  # L2, values 0..15
JOKERS = 2
ALL_TOKENS: tuple[int, ...] = tuple(
    [v for v, n in enumerate(TOKEN_COUNTS) for _ in range(n)] + [JOKER] * JOKERS
)
"""The 83 tokens (jokers as :data:`JOKER`)."""


def index(row: int, col: int) -> int:
    """Array index of the cell at 0-based ``row``, ``col``."""
    return (row + 1) * STRIDE + col + 1


def row_col(i: int) -> tuple[int, int]:
    """0-based (row, column) of array index ``i``."""
    return i // STRIDE - 1, i % STRIDE - 1


CENTRE = index(7, 7)


def cell_name(i: int) -> str:
    """``"H8"`` for the centre.

    >>> cell_name(CENTRE), cell_name(index(0, 0)), cell_name(index(14, 14))
    ('H8', 'A1', 'O15')
    """
    row, col = row_col(i)
    return f"{COLUMNS[col]}{row + 1}"


def cell_index(name: object) -> int:
    """Array index of a cell name; RecordError when it is not a cell of the board.

    >>> cell_index("H8") == CENTRE
    True
    >>> cell_index("P1")
    Traceback (most recent call last):
    ...
    engines.core.RecordError: not a cell of the board: 'P1'
    """
    if isinstance(name, str) and 2 <= len(name) <= 3 and name[0] in COLUMNS:
        digits = name[1:]
        if digits.isdigit() and not digits.startswith("0") and 1 <= int(digits) <= SIZE:
            return index(int(digits) - 1, COLUMNS.index(name[0]))
    raise RecordError(f"not a cell of the board: {name!r}")


def token_name(token: int) -> str | int:
    """A rack token in the JSON notation: its number, or ``"J"``."""
    return "J" if token == JOKER else token


def parse_token(obj: object, where: str) -> int:
    """A rack token from the JSON notation (0–15 or ``"J"``)."""
    if obj == "J":
        return JOKER
    if isinstance(obj, int) and not isinstance(obj, bool) and 0 <= obj <= MAX_VALUE:
        return obj
    raise RecordError(f"{where}: not a token: {obj!r} (0-15 or \"J\")")


def _special_cells() -> tuple[list[int], list[bool]]:
    """L1: multipliers and play-again cells, from their offsets to the centre."""
    mult = [1] * (STRIDE * STRIDE)
    again = [False] * (STRIDE * STRIDE)

    def mark(offsets: Iterable[tuple[int, int]]) -> list[int]:
        return [index(7 + dr, 7 + dc) for dr, dc in offsets]

    doubles = [(0, 0), (0, 4), (0, -4), (4, 0), (-4, 0)]
    doubles += [(a, b) for a in (3, -3) for b in (3, -3)]
    triples = [(a, b) for a in (3, -3) for b in (6, -6)]
    triples += [(b, a) for a, b in triples]
    agains = [(0, 7), (0, -7), (7, 0), (-7, 0)] + [(a, b) for a in (6, -6) for b in (6, -6)]
    for i in mark(doubles):
        mult[i] = 2
    for i in mark(triples):
        mult[i] = 3
    for i in mark(agains):
        again[i] = True
    return mult, again


MULTIPLIER, PLAY_AGAIN = _special_cells()
"""Per array index: the cell's multiplier (1, 2, 3) and whether it is a play-again cell."""

# Values a cell accepts given the tokens (k of them, summing to s) it would join on one
# axis (L5): anything alone, up to 15 - s beside one token, exactly 15 - s beside two.
ALL_VALUES = (1 << 16) - 1
UP_TO = [(1 << (t + 1)) - 1 if t >= 0 else 0 for t in range(-31, 16)]


def accepts(k: int, s: int) -> int:
    """Bitmask of the values (bit v = value v) a cell may take beside ``k`` tokens summing to ``s``.

    >>> bin(accepts(1, 12)), bin(accepts(2, 10)), accepts(3, 0)
    ('0b1111', '0b100000', 0)
    """
    if k == 0:
        return ALL_VALUES
    if k == 1:
        return UP_TO[15 - s + 31] if s <= 15 else 0
    if k == 2:
        return 1 << (15 - s) if s <= 15 else 0
    return 0


Placement = tuple[int, int, int]
"""(array index, rack token — a value or JOKER —, value on the board)."""
Play = tuple[Placement, ...]
"""The placements of one play, in increasing array index."""


class Board:
    """Tokens on the 15 × 15 board, with the empty cells next to them (the anchors)."""

    __slots__ = ("value", "points_value", "joker", "anchors", "occupied")

    def __init__(self) -> None:
        self.value = [WALL] * (STRIDE * STRIDE)
        for r in range(SIZE):
            for c in range(SIZE):
                self.value[index(r, c)] = EMPTY
        self.points_value = [0] * (STRIDE * STRIDE)
        self.joker = [False] * (STRIDE * STRIDE)
        self.anchors: set[int] = set()
        self.occupied: list[int] = []

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.value = list(self.value)
        other.points_value = list(self.points_value)
        other.joker = list(self.joker)
        other.anchors = set(self.anchors)
        other.occupied = list(self.occupied)
        return other

    def place(self, i: int, value: int, joker: bool) -> None:
        """Put a token (no rule checked: see :func:`check_play`)."""
        self.value[i] = value
        self.points_value[i] = 0 if joker else value
        self.joker[i] = joker
        self.occupied.append(i)
        self.anchors.discard(i)
        for j in (i - 1, i + 1, i - DOWN, i + DOWN):
            if self.value[j] == EMPTY:
                self.anchors.add(j)

    def remove(self, i: int) -> None:
        """Take a token back (used to undo a trial placement)."""
        self.value[i] = EMPTY
        self.points_value[i] = 0
        self.joker[i] = False
        self.occupied.remove(i)
        self.anchors = {
            j
            for o in self.occupied
            for j in (o - 1, o + 1, o - DOWN, o + DOWN)
            if self.value[j] == EMPTY
        }

    def tokens(self) -> dict[str, int | str]:
        """The board in the JSON notation: ``{"H8": 5, "H9": "J7"}`` in board order."""
        return {
            cell_name(i): (f"J{self.value[i]}" if self.joker[i] else self.value[i])
            for i in sorted(self.occupied)
        }

    def side(self, i: int, d: int) -> tuple[int, int, int]:
        """The run of tokens next to cell ``i`` in direction ``d``: (count, sum, points)."""
        value = self.value
        k = s = z = 0
        j = i + d
        while value[j] >= 0:
            k += 1
            s += value[j]
            z += self.points_value[j]
            j += d
        return k, s, z

    def is_forbidden_square(self, new_cells: Sequence[int]) -> bool:
        """L7: would the board with ``new_cells`` be exactly a full 2 × 2 or 3 × 3 block?"""
        total = len(self.occupied) + len(new_cells)
        if total not in (4, 9):
            return False
        cells = [row_col(i) for i in [*self.occupied, *new_cells]]
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        side = 2 if total == 4 else 3
        return (
            max(rows) - min(rows) == side - 1
            and max(cols) - min(cols) == side - 1
            and len(set(cells)) == total
        )


# --------------------------------------------------------------------------- checking


def check_play(
    board: Board, placements: Sequence[tuple[int, int, bool]]
) -> tuple[int, list[dict[str, object]], bool]:
    """Check a play against L3–L7 and score it (L8–L10), the slow and plain way.

    ``placements`` are (array index, value, is joker). Returns (points, sets, triolet):
    ``sets`` lists each new set as ``{"cells", "sum", "points"}``. Raises
    :class:`IllegalMoveError` (board unchanged) when the play breaks a rule. The lone
    token case (no set) scores 0 here; the game applies its ``lone_token`` option.

    >>> board = Board(); board.place(CENTRE, 7, False)
    >>> check_play(board, [(cell_index("G8"), 4, False), (cell_index("F8"), 4, False)])[0]
    30
    >>> check_play(board, [(cell_index("H10"), 3, False)])
    Traceback (most recent call last):
    ...
    engines.core.IllegalMoveError: the play does not touch the tokens on the board (L4)
    """
    n = len(placements)
    if not 1 <= n <= RACK_SIZE:
        raise IllegalMoveError(f"a play places 1 to 3 tokens, not {n} (L3)")
    cells = sorted(i for i, _, _ in placements)
    if len(set(cells)) != n:
        raise IllegalMoveError("a play uses a cell twice")
    value = board.value
    for i in cells:
        if value[i] != EMPTY:
            raise IllegalMoveError(f"{cell_name(i)} is already covered")
    if sum(1 for _, _, j in placements if j) > 1:
        raise IllegalMoveError("both jokers may not be played in the same turn (L12)")
    if n > 1:
        rows = {row_col(i)[0] for i in cells}
        cols = {row_col(i)[1] for i in cells}
        if len(rows) > 1 and len(cols) > 1:
            raise IllegalMoveError("the tokens of a play lie in one row or one column (L6)")
        step = ACROSS if len(rows) == 1 else DOWN
        gaps = [(b - a) // step - 1 for a, b in zip(cells, cells[1:], strict=False)]
        if n == 3 and any(gaps):
            raise IllegalMoveError("three tokens must be side by side (L6)")
        if n == 2 and gaps[0] > 1:
            raise IllegalMoveError("two tokens are side by side or around one token (L6)")
        if n == 2 and gaps[0] == 1 and value[cells[0] + step] < 0:
            raise IllegalMoveError("two tokens may only leave a gap filled by a token (L6)")
    if not board.occupied:
        if CENTRE not in cells:
            raise IllegalMoveError("the first token of the game goes on the centre H8 (L3)")
    elif not any(i in board.anchors for i in cells):
        raise IllegalMoveError("the play does not touch the tokens on the board (L4)")
    if board.is_forbidden_square(cells):
        raise IllegalMoveError("the board may not be exactly a 2x2 or 3x3 square (L7)")
    for i, v, j in placements:
        board.place(i, v, j)
    try:
        return _score_placed(board, cells, [j for _, _, j in placements])
    finally:
        for i in cells:
            board.remove(i)


def _score_placed(
    board: Board, cells: list[int], jokers: list[bool]
) -> tuple[int, list[dict[str, object]], bool]:
    value = board.value
    runs: dict[tuple[int, int], list[int]] = {}
    for i in cells:
        for d in (ACROSS, DOWN):
            start = i
            while value[start - d] >= 0:
                start -= d
            run = []
            j = start
            while value[j] >= 0:
                run.append(j)
                j += d
            if len(run) >= 2:
                runs[(start, d)] = run
    sets: list[dict[str, object]] = []
    trio_points: list[int] = []
    for run in runs.values():
        total = sum(value[j] for j in run)
        names = ", ".join(cell_name(j) for j in run)
        if len(run) > 3:
            raise IllegalMoveError(f"a run of {len(run)} tokens is never allowed: {names} (L5)")
        if len(run) == 2 and total > MAX_VALUE:
            raise IllegalMoveError(f"a pair sums to at most 15, {names} make {total} (L5)")
        if len(run) == 3 and total != MAX_VALUE:
            raise IllegalMoveError(f"a trio sums to exactly 15, {names} make {total} (L5)")
        points = TRIO_POINTS if len(run) == 3 else sum(board.points_value[j] for j in run)
        sets.append({"cells": [cell_name(j) for j in run], "sum": total, "points": points})
        trio_points.append(len(run))
    runs_list = list(runs.values())
    for i in cells:  # L10: a special cell counts once, for a trio if it is in one
        m = MULTIPLIER[i]
        if m == 1:
            continue
        through = [k for k, run in enumerate(runs_list) if i in run]
        trios = [k for k in through if len(runs_list[k]) == 3]
        if trios:
            sets[trios[0]]["points"] = TRIO_POINTS * m
        elif through:
            k = through[0]
            sets[k]["points"] = int(str(sets[k]["points"])) + (m - 1) * board.points_value[i]
    triolet = len(cells) == 3 and not any(jokers)
    points = sum(int(str(s["points"])) for s in sets) + (TRIOLET_BONUS if triolet else 0)
    return points, sets, triolet


# --------------------------------------------------------------------------- generation


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
                if kb + ka > 1:
                    continue
                m1, k1, z1 = perp(s, d)
                m2, k2, z2 = perp(e, d)
                if not m1 or not m2:
                    continue
                if square_check and board.is_forbidden_square([s, e]):
                    continue
                target = MAX_VALUE - sb - sa if kb + ka == 1 else -1
                _emit_line(out, (s, e), (m1, m2), (k1, k2), (z1, z2), pairs, target, False)
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
                if value[s - d] >= 0 or value[e + d] >= 0:
                    continue
                m1, k1, z1 = perp(s, d)
                m2, k2, z2 = perp(e, d)
                if not m1 or not m2:
                    continue
                if square_check and board.is_forbidden_square([s, e]):
                    continue
                _emit_line(
                    out, (s, e), (m1, m2), (k1, k2), (z1, z2), pairs, MAX_VALUE - value[x], False
                )
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
