"""The Trike computer opponent: MCTS-Solver with tactical playouts and an exact endgame.

* Monte Carlo tree search (UCT) over a transposition table (nodes keyed on stones, pawn
  and swap right), so transpositions share statistics.
* Proven results are backed up (MCTS-Solver): a node is won when one child is lost for
  the opponent, lost when every child is won for them. Moves that end the game with a
  loss or hand the opponent a winning trap are never expanded (they are proven losses).
* Leaves whose reachable region is small are solved exactly (:mod:`engines.trike.solver`),
  and the root is solved first when its region is small enough.
* Playouts use the two-ply tactical policy of :mod:`engines.trike.search`.
* The pie swap is one more action: after a swap the same colour moves, played by the
  other side, so the tree compares "play on" with "swap" from the same evaluation.

Values are stored for the player who moved into a node (the owner of the stone under
the pawn — after a swap too), so a parent always maximises its children's values.

>>> import random
>>> from engines.trike.game import TrikeGame
>>> game = TrikeGame({"size": 3})
>>> state = game.new_initial_state(random.Random(0))
>>> for cell in ["b1", "c1", "c2", "b2"]:
...     state.apply(game.parse_action(cell))
>>> choose(state, random.Random(1), 0.2).to_str()   # the winning trap
'a1'
>>> hint(state, 0.2)["why"]
'wins by force (proved)'
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable

from engines.core import JSON, GameOverError
from engines.trike.actions import SWAP_ACTION, TrikeAction
from engines.trike.game import TrikeState
from engines.trike.search import SWAP_MOVE, Position, tactical_playout
from engines.trike.solver import OutOfBudget, Solver

UNPROVEN, OWNER_WINS, OWNER_LOSES = 0, 1, -1
EXPLORATION = 0.9
LEAF_SOLVE_REGION = 12  # regions this small are solved exactly when a leaf is expanded
LEAF_SOLVE_NODES = 3000
ROOT_SOLVE_REGION = 26


class Node:
    """Statistics of one position for the player who moved into it (its owner)."""

    __slots__ = ("moves", "children", "visits", "wins", "proven")

    def __init__(self) -> None:
        self.moves: list[int] | None = None
        self.children: list[Node | None] = []
        self.visits = 0
        self.wins = 0.0
        self.proven = UNPROVEN


class Search:
    """One MCTS-Solver search tree from a root position.

    >>> pos = Position.empty(9)
    >>> pos.play(40)
    >>> s = Search(pos, random.Random(0))
    >>> s.run(max_playouts=200)
    >>> s.root.visits >= 200
    True
    """

    def __init__(self, root: Position, rng: random.Random, solver: Solver | None = None) -> None:
        self.root_pos = root
        self.rng = rng
        self.solver = solver or Solver()
        self.table: dict[int, Node] = {}
        self.root = self._node(root)
        self.playouts = 0

    def _node(self, pos: Position) -> Node:
        key = pos.key()
        node = self.table.get(key)
        if node is None:
            node = self.table[key] = Node()
        return node

    def _expand(self, node: Node, pos: Position) -> None:
        """List the moves worth searching and prove what one or two plies show."""
        winning = pos.winning_trap()
        if winning >= 0:
            node.moves, node.children, node.proven = [winning], [None], OWNER_LOSES
            return
        moves = pos.moves()
        if pos.pawn < 0 and pos.empties == pos.geo.cells:
            # the empty board is symmetric (D3): one opening per orbit, so a short search
            # spreads its simulations over ~6x fewer openings
            moves = sorted({min(perm[c] for perm in pos.geo.symmetry_tables) for c in moves})
        keep = [m for m in moves if not pos.loses_at_once(m)]
        if not keep:
            # every move loses at once: the owner wins; keep one so a move can be chosen
            node.moves, node.children, node.proven = moves[:1], [None], OWNER_WINS
            return
        if pos.pawn >= 0 and not pos.swap:
            if pos.region_size(LEAF_SOLVE_REGION) <= LEAF_SOLVE_REGION:
                try:
                    mover_wins = self.solver.wins(pos, LEAF_SOLVE_NODES)
                    node.proven = OWNER_LOSES if mover_wins else OWNER_WINS
                except OutOfBudget:
                    pass
        self.rng.shuffle(keep)
        node.moves = keep
        node.children = [None] * len(keep)

    def iterate(self) -> None:
        """One selection / expansion / playout / back-up pass."""
        pos = self.root_pos.copy()
        node = self.root
        path = [node]
        # owner colour of each node on the path: the stone under the pawn (it alternates,
        # except across a swap, where the colour stays and the player changes)
        owners = [pos.board[pos.pawn] if pos.pawn >= 0 else 2]
        rnd = self.rng.random
        while True:
            if node.proven or pos.is_over():
                break
            if node.moves is None:
                self._expand(node, pos)
                if node.proven:
                    break
            moves = node.moves
            assert moves is not None
            children = node.children
            chosen = -1
            try:
                chosen = children.index(None)
            except ValueError:
                pass
            if chosen >= 0:
                pos.play(moves[chosen])
                child = self._node(pos)
                children[chosen] = child
                path.append(child)
                owners.append(pos.board[pos.pawn])
                node = child
                if child.visits == 0:
                    break
                continue
            # all children exist: solver bookkeeping, then UCT
            best, best_value, all_lost = -1, -1.0, True
            log_n = math.log(node.visits + 1)
            for i, kid in enumerate(children):
                assert kid is not None
                if kid.proven == OWNER_WINS:
                    node.proven = OWNER_LOSES
                    best = -2
                    break
                if kid.proven == OWNER_LOSES:
                    continue
                all_lost = False
                n = kid.visits
                value = (kid.wins / n + EXPLORATION * math.sqrt(log_n / n)) if n else 1e9
                if value > best_value:
                    best, best_value = i, value
            if best == -2:
                break
            if all_lost:
                node.proven = OWNER_WINS
                break
            pos.play(moves[best])
            picked = children[best]
            assert picked is not None
            node = picked
            path.append(node)
            owners.append(pos.board[pos.pawn])
        # evaluate the leaf
        if node.proven:
            winner = owners[-1] if node.proven == OWNER_WINS else 3 - owners[-1]
        elif pos.is_over():
            winner = pos.winner()
            node.proven = OWNER_WINS if winner == pos.board[pos.pawn] else OWNER_LOSES
        else:
            winner = tactical_playout(pos.copy(), rnd)
            self.playouts += 1
        for node, owner in zip(path, owners, strict=True):
            node.visits += 1
            if owner == winner:
                node.wins += 1.0

    def run(self, budget_s: float | None = None, max_playouts: int | None = None) -> None:
        """Search until the time or playout budget is spent or the root is proved."""
        deadline = time.perf_counter() + budget_s if budget_s is not None else math.inf
        limit = max_playouts if max_playouts is not None else 1 << 62
        count = 0
        while not self.root.proven and count < limit:
            self.iterate()
            count += 1
            if not count & 15 and time.perf_counter() > deadline:
                break

    def best(self) -> tuple[int, str]:
        """The move to play and a short reason."""
        root = self.root
        if root.moves is None:
            self._expand(root, self.root_pos.copy())
        assert root.moves is not None
        scored = []
        for move, child in zip(root.moves, root.children, strict=True):
            if child is not None and child.proven == OWNER_WINS:
                return move, "wins by force (proved)"
            lost = child is not None and child.proven == OWNER_LOSES
            visits = child.visits if child is not None else 0
            rate = child.wins / visits if child is not None and visits else 0.0
            scored.append((not lost, visits, rate, move))
        if root.proven == OWNER_LOSES and len(root.moves) > 1:
            # proved won at expansion by the exact solver: ask it for the winning move
            try:
                wins, move = self.solver.best_move(self.root_pos.copy(), LEAF_SOLVE_NODES * 10)
                if wins:
                    return move, "wins by force (proved)"
            except OutOfBudget:
                pass
        scored.sort(reverse=True)
        alive, visits, rate, move = scored[0]
        if root.proven == OWNER_WINS or not alive:
            return move, "every move loses against perfect play (proved)"
        return move, f"wins {rate:.0%} of {visits} simulations"


def _root_position(state: TrikeState) -> Position:
    if state.is_terminal():
        raise GameOverError("the game is over", "game_over")
    return Position.from_state(state)


def _to_action(move: int) -> TrikeAction:
    return SWAP_ACTION if move == SWAP_MOVE else TrikeAction(move)


def decide(state: TrikeState, rng: random.Random, budget_s: float,
           max_playouts: int | None = None) -> tuple[TrikeAction, str]:
    """The bot's move and why. Small regions are solved exactly; otherwise MCTS-Solver."""
    start = time.perf_counter()
    pos = _root_position(state)
    moves = pos.moves()
    if len(moves) == 1:
        return _to_action(moves[0]), "the only legal move"
    solver = Solver()
    trap = pos.winning_trap()
    if trap >= 0:
        return _to_action(trap), "wins by force (proved)"
    if pos.pawn >= 0 and not pos.swap and pos.region_size(ROOT_SOLVE_REGION) <= ROOT_SOLVE_REGION:
        try:
            wins, move = solver.best_move(pos, deadline=start + 0.4 * budget_s)
            if wins:
                return _to_action(move), "wins by force (proved)"
        except OutOfBudget:
            pass
    search = Search(pos, rng, solver)
    remaining = budget_s - (time.perf_counter() - start)
    search.run(max(remaining, 0.01) if max_playouts is None else None, max_playouts)
    move, why = search.best()
    return _to_action(move), why


def choose(state: TrikeState, rng: random.Random, budget_s: float) -> TrikeAction:
    """A legal action for the player to move, searching about ``budget_s`` seconds."""
    return decide(state, rng, budget_s)[0]


# The reasons decide() gives, as a kind with params for pages in other languages than
# the English ``why`` (the web words ``hint.trike.<kind>``).
REASON_KINDS = {
    "the only legal move": "only_move",
    "wins by force (proved)": "proved_win",
    "every move loses against perfect play (proved)": "proved_loss",
}
SIMULATIONS = re.compile(r"wins (?P<rate>\d+)% of (?P<visits>\d+) simulations")


def reason(why: str) -> dict[str, JSON]:
    """``why`` as ``{"kind": ..., **params}``.

    >>> reason("wins 54% of 169 simulations"), reason("wins by force (proved)")
    ({'kind': 'simulations', 'rate': 54, 'visits': 169}, {'kind': 'proved_win'})
    """
    found = SIMULATIONS.fullmatch(why)
    if found:
        return {"kind": "simulations", "rate": int(found["rate"]), "visits": int(found["visits"])}
    return {"kind": REASON_KINDS.get(why, "other")}


def hint(state: TrikeState, budget_s: float) -> dict[str, JSON]:
    """``{"action": <notation>, "why": <short text>, "reason": {"kind", ...}}`` for the
    player to move."""
    action, why = decide(state, random.Random(0), budget_s)
    return {"action": action.to_str(), "why": why, "reason": reason(why)}


Policy = Callable[[TrikeState, random.Random, float], TrikeAction]
