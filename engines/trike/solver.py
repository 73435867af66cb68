"""Exact Trike solver: boolean negamax with a transposition table and trap tactics.

Only the empty area the pawn can still reach (its region) changes during a solve, so the
cost grows with the region, not the board: regions of about 20 empty cells solve in
milliseconds to tens of milliseconds (docs/performance.md).

Pruning that keeps the result exact (see :mod:`engines.trike.search`): a winning trap
next to the pawn is a win at once; a move that ends the game with a loss, or that lets
the opponent end it with a win, is a loss and is never searched.

The whole-board solve reproduces the solved facts of docs/rules/trike.md for side 3:

>>> solve_openings(3)
{'a1': False, 'b1': True, 'b2': True, 'c1': False, 'c2': True, 'c3': False}
"""

from __future__ import annotations

import time

from engines.core import JSON
from engines.trike.board import geometry
from engines.trike.game import TrikeState
from engines.trike.search import PAWN_KEY, SWAP_MOVE, ZOBRIST, Position, majority

WIN, LOSS, UNKNOWN = "win", "loss", "unknown"


class OutOfBudget(Exception):
    """The node or time budget ran out before a proof."""


class Solver:
    """Proves positions won or lost for the player to move. The table is keyed on the
    whole board, so it stays valid across solves of one game and can be reused.

    >>> pos = Position.empty(3)
    >>> pos.play(1)                     # Black opens on b1
    >>> Solver().wins(pos)              # White to move loses
    False
    """

    def __init__(self, max_entries: int = 3_000_000) -> None:
        self.table: dict[int, bool] = {}
        self.max_entries = max_entries
        self.nodes = 0
        self._limit = 0
        self._deadline = 0.0

    def wins(self, pos: Position, node_limit: int | None = None,
             deadline: float | None = None) -> bool:
        """True if the player to move in ``pos`` wins with perfect play (``pos`` is left
        unchanged). Raises :class:`OutOfBudget` past ``node_limit`` searched nodes or
        the ``time.perf_counter()`` ``deadline``."""
        if pos.pawn < 0:
            raise ValueError("solve the openings one by one (see solve_openings)")
        if pos.is_over():
            raise ValueError("the game is over")
        if pos.swap:
            # K3: with a swap available the mover wins either way: if the position is won
            # for the colour to move they play on, otherwise they swap.
            return True
        if len(self.table) > self.max_entries:
            self.table.clear()
        self.nodes = 0
        self._limit = node_limit if node_limit is not None else 1 << 62
        self._deadline = deadline if deadline is not None else float("inf")
        board, ec = pos.board, pos.empty_nbrs
        saved = (board[:], ec[:], pos.hash)
        try:
            return self._solve(pos, pos.pawn, pos.to_move)
        finally:
            # an OutOfBudget unwinds without the undo steps: restore the position
            board[:], ec[:] = saved[0], saved[1]
            pos.hash = saved[2]

    def best_move(self, pos: Position, node_limit: int | None = None,
                  deadline: float | None = None) -> tuple[bool, int]:
        """(wins, move): a winning move if there is one, else any legal move."""
        if self.wins(pos, node_limit, deadline):
            for move in pos.moves():
                if move == SWAP_MOVE:
                    after = pos.copy()
                    after.play(SWAP_MOVE)
                    if not self.wins(after, node_limit, deadline):
                        return True, move
                    continue
                after = pos.copy()
                after.play(move)
                if after.is_over():
                    if after.winner() == pos.to_move:
                        return True, move
                elif not self.wins(after, node_limit, deadline):
                    return True, move
        return False, pos.moves()[0]

    def _solve(self, pos: Position, pawn: int, col: int) -> bool:
        key = pos.hash ^ PAWN_KEY[pawn + 1]
        known = self.table.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self._limit:
            raise OutOfBudget
        if not self.nodes & 1023:
            if time.perf_counter() > self._deadline:
                raise OutOfBudget
            if len(self.table) > self.max_entries:
                self.table.clear()  # a cache of exact results: dropping it stays exact
        board, ec = pos.board, pos.empty_nbrs
        nbrs = pos.geo.neighbours
        opp = 3 - col
        for j in nbrs[pawn]:
            if not board[j] and not ec[j] and majority(board, nbrs[j], col):
                self.table[key] = True
                return True
        candidates = []
        for ray in pos.geo.rays[pawn]:
            for m in ray:
                if board[m]:
                    break
                if not ec[m]:
                    continue  # ends the game, and not with a win (checked above)
                safe = True
                for j in nbrs[m]:
                    if not board[j] and ec[j] == 1 and majority(board, nbrs[j], opp):
                        safe = False
                        break
                if safe:
                    candidates.append(m)
        # Most empty neighbours first (open cells keep the mover's options). Measured on
        # side-13 regions of 19-24 cells: ~3x fewer nodes in total than fewest-first.
        if len(candidates) > 1:
            candidates.sort(key=ec.__getitem__, reverse=True)
        zob = ZOBRIST[col]
        for m in candidates:
            board[m] = col
            for j in nbrs[m]:
                ec[j] -= 1
            pos.hash ^= zob[m]
            opponent_wins = self._solve(pos, m, opp)
            pos.hash ^= zob[m]
            for j in nbrs[m]:
                ec[j] += 1
            board[m] = 0
            if not opponent_wins:
                self.table[key] = True
                return True
        self.table[key] = False
        return False


def solve_openings(size: int, solver: Solver | None = None) -> dict[str, bool]:
    """For each opening cell, True if the player who places it wins with perfect play
    before any swap (docs/rules/trike.md's solved facts; the pie rule is off)."""
    solver = solver or Solver()
    result = {}
    for cell in range(geometry(size).cells):
        pos = Position.empty(size)
        pos.play(cell)
        result[geometry(size).names[cell]] = not solver.wins(pos)
    return result


def analyze(state: TrikeState, budget: float, solver: Solver | None = None) -> dict[str, JSON]:
    """``{"to_move": P, "moves": {action: "win"|"loss"|"unknown"}}`` for a TrikeState:
    each legal action's proven result for the player to move (docs/records.md ``trigono
    analyze``). Moves are retried with a growing node budget until all are proved or
    ``budget`` seconds pass.

    >>> import random
    >>> from engines.trike.game import TrikeGame
    >>> state = TrikeGame({"size": 3, "pie": False}).new_initial_state(random.Random(0))
    >>> analyze(state, budget=5)["moves"]
    {'a1': 'loss', 'b1': 'win', 'b2': 'win', 'c1': 'loss', 'c2': 'win', 'c3': 'loss'}
    """
    deadline = time.perf_counter() + max(0.0, budget)
    solver = solver or Solver()
    pos = Position.from_state(state)
    labels: dict[str, str] = {}
    open_moves: list[tuple[str, Position]] = []
    for action in state.legal_actions():
        name = action.to_str()
        after = pos.copy()
        after.play(SWAP_MOVE if action.cell is None else action.cell)
        if after.is_over():
            labels[name] = WIN if after.winner() == pos.to_move else LOSS
        else:
            # after a swap the same colour moves, now played by the opponent: the swapper
            # wins iff that colour loses, as after any other move
            labels[name] = UNKNOWN
            open_moves.append((name, after))
    limit = 2000
    while open_moves and time.perf_counter() < deadline:
        still_open = []
        for name, after in open_moves:
            try:
                labels[name] = LOSS if solver.wins(after, limit, deadline) else WIN
            except OutOfBudget:
                still_open.append((name, after))
        open_moves = still_open
        limit *= 4
    return {"to_move": state.current_player(), "moves": labels}
