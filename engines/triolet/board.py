"""The Triolet board (L1), the token set (L2), play checking and scoring (L3–L12); the
fast move generator is :mod:`engines.triolet.movegen`.

The board is a padded 1-D array: 15 × 15 cells inside a one-cell wall, 17 cells a row,
so a neighbour is ``i ± 1`` (across) or ``i ± 17`` (down) and walking a line stops on the
wall without bounds checks. ``value[i]`` is a token's value (a joker's declared value),
``EMPTY`` or ``WALL``; ``points_value[i]`` is what it scores (0 for a joker, L12).

>>> board = Board()
>>> board.place(cell_index("H8"), 7, False)
>>> cell_name(sorted(board.anchors)[0]), len(board.anchors)
('H7', 4)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engines.core import JSON, IllegalMoveError, RecordError

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


def fixed_board() -> dict[str, JSON]:
    """The board as a page draws it (L1): columns, rows and each bonus cell's kind.

    >>> board = fixed_board()
    >>> board["columns"], board["rows"], board["bonus"]["H8"], board["bonus"]["O8"], len(board["bonus"])
    ('ABCDEFGHIJKLMNO', 15, 'double', 'again', 25)
    """
    bonus: dict[str, JSON] = {}
    for row in range(SIZE):
        for col in range(SIZE):
            i = index(row, col)
            if PLAY_AGAIN[i]:
                bonus[cell_name(i)] = "again"
            elif MULTIPLIER[i] > 1:
                bonus[cell_name(i)] = "double" if MULTIPLIER[i] == 2 else "triple"
    return {"columns": COLUMNS, "rows": SIZE, "bonus": bonus}

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
        raise IllegalMoveError(f"a play places 1 to 3 tokens, not {n} (L3)", "triolet.token_count", n=n)
    cells = sorted(i for i, _, _ in placements)
    if len(set(cells)) != n:
        raise IllegalMoveError("a play uses a cell twice", "triolet.cell_twice")
    value = board.value
    for i in cells:
        if value[i] != EMPTY:
            raise IllegalMoveError(f"{cell_name(i)} is already covered", "triolet.covered", cell=cell_name(i))
    if sum(1 for _, _, j in placements if j) > 1:
        raise IllegalMoveError("both jokers may not be played in the same turn (L12)", "triolet.two_jokers")
    if n > 1:
        rows = {row_col(i)[0] for i in cells}
        cols = {row_col(i)[1] for i in cells}
        if len(rows) > 1 and len(cols) > 1:
            raise IllegalMoveError("the tokens of a play lie in one row or one column (L6)", "triolet.not_in_line")
        step = ACROSS if len(rows) == 1 else DOWN
        gaps = [(b - a) // step - 1 for a, b in zip(cells, cells[1:], strict=False)]
        if n == 3 and any(gaps):
            raise IllegalMoveError("three tokens must be side by side (L6)", "triolet.three_apart")
        if n == 2 and gaps[0] > 1:
            raise IllegalMoveError("two tokens are side by side or around one token (L6)", "triolet.two_apart")
        if n == 2 and gaps[0] == 1 and value[cells[0] + step] < 0:
            raise IllegalMoveError("two tokens may only leave a gap filled by a token (L6)", "triolet.empty_gap")
    if not board.occupied:
        if CENTRE not in cells:
            raise IllegalMoveError("the first token of the game goes on the centre H8 (L3)", "triolet.first_on_centre")
    elif not any(i in board.anchors for i in cells):
        raise IllegalMoveError("the play does not touch the tokens on the board (L4)", "triolet.not_touching")
    if board.is_forbidden_square(cells):
        raise IllegalMoveError("the board may not be exactly a 2x2 or 3x3 square (L7)", "triolet.square")
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
            raise IllegalMoveError(f"a run of {len(run)} tokens is never allowed: {names} (L5)", "triolet.long_run",
                                   n=len(run), cells=names)
        if len(run) == 2 and total > MAX_VALUE:
            raise IllegalMoveError(f"a pair sums to at most 15, {names} make {total} (L5)", "triolet.pair_sum",
                                   cells=names, total=total)
        if len(run) == 3 and total != MAX_VALUE:
            raise IllegalMoveError(f"a trio sums to exactly 15, {names} make {total} (L5)", "triolet.trio_sum",
                                   cells=names, total=total)
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
