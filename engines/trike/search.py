"""The fast position the solver and the bot search on, playouts and tactical policies.

A :class:`Position` keeps the board as a list of 0 (empty) / 1 (black) / 2 (white), a
list ``empty_nbrs`` counting each cell's empty neighbours, and a Zobrist hash. Lists, not
int bitboards, because the inner loops index single cells (measured: a uniform playout
runs about twice as fast on a list as with int masks; see docs/performance.md).

Two facts make the tactics O(degree) (docs/rules/trike.md, K4–K6):

* a move to cell m ends the game iff ``empty_nbrs[m] == 0`` (K5: a one-step move is
  always legal, so "no legal move" is "no empty neighbour"); such an m is always a
  neighbour of the pawn;
* after a move to m, the opponent can end the game only on an empty neighbour j of m
  with ``empty_nbrs[j] == 1`` before the move.

>>> from engines.trike.game import TrikeGame
>>> import random
>>> s = TrikeGame({"size": 3, "pie": False}).new_initial_state(random.Random(0))
>>> pos = Position.from_state(s)
>>> pos.moves()
[0, 1, 2, 3, 4, 5]
>>> pos.play(1); pos.play(3); pos.play(4); pos.play(2)
>>> pos.winning_trap() == 0, pos.to_move == BLACK_STONE
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engines.trike.board import Geometry, geometry
from engines.trike.game import BLACK, TrikeState

EMPTY, BLACK_STONE, WHITE_STONE = 0, 1, 2
SWAP_MOVE = -1

_ZOBRIST_RNG = random.Random(0x7121CE)
_MAX_CELLS = 190
# ZOBRIST[colour][cell]; PAWN_KEY[cell + 1] (index 0: no pawn yet); SWAP_KEY: swap allowed.
ZOBRIST = (
    (0,) * _MAX_CELLS,
    tuple(_ZOBRIST_RNG.getrandbits(64) for _ in range(_MAX_CELLS)),
    tuple(_ZOBRIST_RNG.getrandbits(64) for _ in range(_MAX_CELLS)),
)
PAWN_KEY = tuple(_ZOBRIST_RNG.getrandbits(64) for _ in range(_MAX_CELLS + 1))
SWAP_KEY = _ZOBRIST_RNG.getrandbits(64)


def majority(board: list[int], around: tuple[int, ...], colour: int) -> bool:
    """K6, the one count of the rule: with the pawn on a ``colour`` stone (or moving onto
    a trap for ``colour``: a cell with no empty neighbour, so the game ends there) and
    ``around`` the cells next to it, does ``colour`` hold more than half of the pawn's
    cell and ``around``? The result of a finished game and every trap test of the
    tactics and the solver ask this.

    >>> majority([1, 1, 2, 0], (1, 2), 1), majority([1, 2, 2, 0], (1, 2), 1)
    (True, False)
    """
    count = 1  # the pawn's own cell
    for k in around:
        if board[k] == colour:
            count += 1
    return 2 * count > len(around) + 1


class Position:
    """A mutable search position. ``to_move`` is 1 (black) or 2 (white); ``owner`` — the
    colour of the stone under the pawn — is the colour of the player who just moved
    (after a swap too: the swapper then owns the opening stone)."""

    __slots__ = ("geo", "pie", "board", "empty_nbrs", "pawn", "to_move", "swap", "hash", "empties")

    def __init__(self, geo: Geometry, pie: bool = False) -> None:
        self.geo = geo
        self.pie = pie  # K3 is on: the opening move allows a swap on the next turn
        self.board = [EMPTY] * geo.cells
        self.empty_nbrs = [len(nb) for nb in geo.neighbours]
        self.pawn = -1
        self.to_move = BLACK_STONE
        self.swap = False
        self.hash = 0
        self.empties = geo.cells

    @classmethod
    def from_state(cls, state: TrikeState) -> Position:
        pos = cls(state.geo, state.game.pie)
        for cell in range(state.geo.cells):
            if state.black >> cell & 1:
                pos.put(cell, BLACK_STONE)
            elif state.white >> cell & 1:
                pos.put(cell, WHITE_STONE)
        pos.pawn = state.pawn
        pos.to_move = BLACK_STONE if state.colour_to_move() == BLACK else WHITE_STONE
        pos.swap = state.swap_available()
        return pos

    @classmethod
    def empty(cls, size: int, pie: bool = False) -> Position:
        return cls(geometry(size), pie)

    def copy(self) -> Position:
        other = Position.__new__(Position)
        other.geo = self.geo
        other.pie = self.pie
        other.board = self.board[:]
        other.empty_nbrs = self.empty_nbrs[:]
        other.pawn = self.pawn
        other.to_move = self.to_move
        other.swap = self.swap
        other.hash = self.hash
        other.empties = self.empties
        return other

    def key(self) -> int:
        """Transposition key: stones, pawn, and whether a swap is allowed."""
        return self.hash ^ PAWN_KEY[self.pawn + 1] ^ (SWAP_KEY if self.swap else 0)

    def put(self, cell: int, colour: int) -> None:
        self.board[cell] = colour
        ec = self.empty_nbrs
        for j in self.geo.neighbours[cell]:
            ec[j] -= 1
        self.hash ^= ZOBRIST[colour][cell]
        self.empties -= 1

    def play(self, move: int) -> None:
        """Apply a legal move (a cell, or SWAP_MOVE). No checks: this is the search's."""
        if move == SWAP_MOVE:
            self.swap = False  # the colour to move stays; only the players' colours change
            return
        self.swap = self.pawn < 0 and self.pie
        self.put(move, self.to_move)
        self.pawn = move
        self.to_move = 3 - self.to_move

    def is_over(self) -> bool:
        return self.pawn >= 0 and self.empty_nbrs[self.pawn] == 0

    def winner(self) -> int:
        """Winning colour of a finished game (K6: more stones on or next to the pawn)."""
        owner = self.board[self.pawn]
        return owner if majority(self.board, self.geo.neighbours[self.pawn], owner) else 3 - owner

    def moves(self) -> list[int]:
        """Cells the pawn can reach (every empty cell before the opening), then SWAP_MOVE
        when a swap is allowed."""
        board = self.board
        if self.pawn < 0:
            return [c for c in range(self.geo.cells) if not board[c]]
        found = []
        for ray in self.geo.rays[self.pawn]:
            for c in ray:
                if board[c]:
                    break
                found.append(c)
        if self.swap:
            found.append(SWAP_MOVE)
        return found

    def trap_wins(self, cell: int, colour: int) -> bool:
        """Would ``colour`` win by ending the game on ``cell`` (all of its neighbours full)?"""
        return majority(self.board, self.geo.neighbours[cell], colour)

    def winning_trap(self) -> int:
        """A move that ends the game and wins for the mover, or -1."""
        if self.pawn < 0:
            return -1
        board, ec, col = self.board, self.empty_nbrs, self.to_move
        for j in self.geo.neighbours[self.pawn]:
            if not board[j] and not ec[j] and self.trap_wins(j, col):
                return j
        return -1

    def hands_over_trap(self, move: int) -> bool:
        """Does moving to ``move`` let the opponent end the game at once and win?"""
        board, ec = self.board, self.empty_nbrs
        opp = 3 - self.to_move
        for j in self.geo.neighbours[move]:
            if not board[j] and ec[j] == 1 and self.trap_wins(j, opp):
                return True
        return False

    def loses_at_once(self, move: int) -> bool:
        """True if ``move`` ends the game with a loss (only called when no trap wins) or
        hands the opponent a winning trap: the two-ply tactics of the playouts."""
        if move == SWAP_MOVE:
            return False
        if not self.empty_nbrs[move]:
            return not self.trap_wins(move, self.to_move)
        return self.hands_over_trap(move)

    def region_size(self, limit: int) -> int:
        """Empty cells the pawn can still ever reach (the connected empty area around it),
        counting up to ``limit + 1``."""
        board, nbrs = self.board, self.geo.neighbours
        if self.pawn < 0:
            return self.empties
        seen = {self.pawn}
        stack = [j for j in nbrs[self.pawn] if not board[j]]
        seen.update(stack)
        while stack and len(seen) <= limit + 1:
            c = stack.pop()
            for j in nbrs[c]:
                if j not in seen and not board[j]:
                    seen.add(j)
                    stack.append(j)
        return len(seen) - 1


def uniform_playout(pos: Position, rnd: Callable[[], float]) -> int:
    """Play uniformly random legal moves to the end (mutates ``pos``); the winning colour.

    >>> pos = Position.empty(13)
    >>> pos.play(45)
    >>> uniform_playout(pos, random.Random(3).random) in (1, 2)
    True
    """
    board = pos.board
    rays = pos.geo.rays
    nbrs = pos.geo.neighbours
    pawn, col = pos.pawn, pos.to_move
    if pawn < 0:
        pawn = int(rnd() * len(board))
        board[pawn] = col
        col = 3 - col
    while True:
        found = []
        for ray in rays[pawn]:
            for c in ray:
                if board[c]:
                    break
                found.append(c)
        if not found:
            break
        pawn = found[int(rnd() * len(found))]
        board[pawn] = col
        col = 3 - col
    owner = board[pawn]  # the last mover
    return owner if majority(board, nbrs[pawn], owner) else 3 - owner


def tactical_move(pos: Position, rnd: Callable[[], float]) -> int:
    """The two-ply tactical policy: take a winning trap; otherwise a uniformly random move
    that neither ends the game with a loss nor hands the opponent a winning trap (any
    move if all do). Ignores the swap.

    >>> pos = Position.empty(3)
    >>> for m in (1, 3, 4):
    ...     pos.play(m)
    >>> tactical_move(pos, random.Random(0).random)  # b2 (2) would hand Black a1
    5
    """
    trap = pos.winning_trap()
    if trap >= 0:
        return trap
    moves = [m for m in pos.moves() if m != SWAP_MOVE]
    count = len(moves)
    while count:
        i = int(rnd() * count)
        m = moves[i]
        if not pos.loses_at_once(m):
            return m
        count -= 1
        moves[i] = moves[count]
        moves[count] = m
    return moves[int(rnd() * len(moves))]


def one_ply_move(pos: Position, rnd: Callable[[], float]) -> int:
    """The one-ply tactical policy: take a winning trap, never walk into a losing one
    (a move that ends the game with a loss) unless forced; otherwise uniform."""
    trap = pos.winning_trap()
    if trap >= 0:
        return trap
    moves = [m for m in pos.moves() if m != SWAP_MOVE]
    safe = [m for m in moves if pos.empty_nbrs[m]]
    pool = safe or moves
    return pool[int(rnd() * len(pool))]


def tactical_playout(pos: Position, rnd: Callable[[], float]) -> int:
    """Play :func:`tactical_move` for both sides to the end (mutates ``pos``); the winner."""
    board, ec = pos.board, pos.empty_nbrs
    nbrs, rays = pos.geo.neighbours, pos.geo.rays
    if pos.pawn < 0:
        pos.play(int(rnd() * len(board)))
    pawn, col = pos.pawn, pos.to_move
    while ec[pawn]:
        opp = 3 - col
        move = -1
        # a winning trap: an empty neighbour of the pawn with no empty neighbour
        for j in nbrs[pawn]:
            if not board[j] and not ec[j] and majority(board, nbrs[j], col):
                move = j
                break
        if move < 0:
            found = []
            for ray in rays[pawn]:
                for c in ray:
                    if board[c]:
                        break
                    found.append(c)
            count_left = len(found)
            while count_left:
                i = int(rnd() * count_left)
                m = found[i]
                bad = not ec[m]  # a trap here loses: winning traps were taken above
                if not bad:
                    for j in nbrs[m]:
                        if not board[j] and ec[j] == 1 and majority(board, nbrs[j], opp):
                            bad = True
                            break
                if not bad:
                    move = m
                    break
                count_left -= 1
                found[i] = found[count_left]
                found[count_left] = m
            if move < 0:
                move = found[int(rnd() * len(found))]
        board[move] = col
        for j in nbrs[move]:
            ec[j] -= 1
        pawn = move
        col = opp
    pos.pawn, pos.to_move = pawn, col
    return pos.winner()
