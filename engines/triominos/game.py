"""Triominos play (docs/rules/triominos.md, M1–M14): the game and its states.

Actions are in :mod:`.actions`, options, scores and the deal in :mod:`.rules`.

>>> import random
>>> game = TriominosGame({"players": ["Ana", "Ben"], "set": "classic"})
>>> state = game.new_initial_state(random.Random(1))
>>> len(state.racks[0]), len(state.racks[1]), len(state.pool)
(9, 9, 38)
>>> state.apply(state.legal_actions()[0])          # the opening: any tile, anywhere
>>> state.to_json()["log"][0]["points"] == sum(state.log[0]["action"]["place"]["corners"])
True
>>> game.load(state.dump()) == state
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import ClassVar

from engines.core import (
    JSON,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Pass,
    SeatScoreGame,
    SeatScoreState,
)
from engines.lattice import Cell
from engines.triominos import actions
from engines.triominos.actions import (
    Action,
    Draw,
    Place,
    action_to_json,
    check_cell,
    check_corners,
)
from engines.triominos.board import Board, cell_key, geometry, key_cell
from engines.triominos.position import set_up as set_up_position
from engines.triominos.rules import (
    DRAW_PENALTY,
    MAX_DRAWS,
    NO_PLAY_PENALTY,
    OPENING_TRIPLE_BONUS,
    OPENING_ZERO_BONUS,
    OUT_BONUS,
    YOUNG_OUT_BONUS,
    Rules,
    bonus_points,
    deal,
)
from engines.triominos.tiles import SETS, Corners, TileSet, canonical, parse_tile_name, tile_name

ORIGIN = cell_key(Cell(0, 0, "up"))


DUMP_FIELDS = (
    "options",
    "deal_seed",
    "board",
    "racks",
    "pool",
    "scores",
    "to_move",
    "draws",
    "round",
    "over",
    "log",
    "round_results",
    "opening_draw",
)


class TriominosGame(SeatScoreGame[Action, "TriominosState"]):
    """Options and the factory of Triominos states."""

    name: ClassVar[str] = "triominos"
    notation = actions
    dump_fields = DUMP_FIELDS

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        super().__init__(options)
        self.rules = Rules.from_options(self.options)
        self.tileset: TileSet = SETS[self.rules.set_name]
        self.players: tuple[str, ...] = self.rules.players

    def seeded_state(self, seed: int) -> TriominosState:
        return TriominosState(self, deal_seed=seed)

    def rebuild(self, data: Mapping[str, JSON]) -> TriominosState:
        state = TriominosState(self, deal_seed=int(data["deal_seed"]))
        ts = self.tileset
        for cell_json, corners in data["board"]:
            state.board.place(cell_key(check_cell(cell_json)), check_corners(corners))
        state.racks = [[ts.index_of(parse_tile_name(t)) for t in r] for r in data["racks"]]
        state.pool = [ts.index_of(parse_tile_name(t)) for t in data["pool"]]
        state.score_list = [int(s) for s in data["scores"]]
        state.to_move = int(data["to_move"])
        state.draws = int(data["draws"])
        state.round = int(data["round"])
        state.over = bool(data["over"])
        state.log = list(data["log"])
        state.round_results = list(data["round_results"])
        state.opening_draw = dict(data["opening_draw"])
        return state


# --------------------------------------------------------------------------- state


class TriominosState(SeatScoreState[Action]):
    """One moment of a Triominos game (or match, with a target score).

    Public fields are read by the bot: ``board`` (:class:`Board`), ``racks`` (tile indices
    per seat), ``pool`` (tile indices, next drawn first), ``score_list``, ``to_move`` (seat),
    ``draws`` (tiles drawn this turn).
    """

    game: TriominosGame

    def __init__(self, game: TriominosGame, deal_seed: int) -> None:
        self.game = game
        self.rules = game.rules
        self.tileset = game.tileset
        self.players = game.players
        self.deal_seed = deal_seed
        self.board = Board()
        n = len(self.players)
        self.racks: list[list[int]] = [[] for _ in range(n)]
        self.pool: list[int] = []
        self.score_list: list[int] = [0] * n
        self.to_move = 0
        self.draws = 0
        self.round = 1
        self.over = False
        self.log: list[dict[str, JSON]] = []
        self.round_results: list[dict[str, JSON]] = []
        self.opening_draw: dict[str, JSON] = {}

    # ----------------------------------------------------------------- set-up

    def deal(self, rng: random.Random) -> None:
        """The first round's deal: from the state's seed, like every round's (``rng`` is
        not used)."""
        self.start_round()

    def set_up(self, position: Mapping[str, JSON], rng: random.Random) -> None:
        """Start from a docs/records.md ``position`` (:func:`engines.triominos.position.set_up`)."""
        set_up_position(self, position, rng)

    def start_round(self) -> None:
        """Deal a round from the seed (:func:`engines.triominos.rules.deal`)."""
        dealt = deal(self.rules, self.tileset, self.deal_seed + self.round)
        self.racks, self.pool, self.to_move = dealt.racks, dealt.pool, dealt.first
        self.opening_draw = dict(dealt.opening_draw)
        self.board = Board()
        self.draws = 0

    # ----------------------------------------------------------------- queries

    def hand_mask(self, seat: int) -> int:
        """Bitmask of every placement of the seat's tiles (see :mod:`.tiles`)."""
        return self.tileset.hand_mask(self.racks[seat])

    def playable_tiles(self, seat: int) -> list[int]:
        """The tiles ``seat`` may place now: after a draw this turn, only the tile just
        drawn (M9: "draws one tile and may play it at once"; it is the rack's last)."""
        rack = self.racks[seat]
        if seat == self.to_move and self.draws and rack:
            return rack[-1:]
        return rack

    def playable_mask(self, seat: int) -> int:
        return self.tileset.hand_mask(self.playable_tiles(seat))

    def opening_tiles(self, seat: int) -> list[int]:
        """Tiles the seat may open an empty table with (M3)."""
        rack = self.racks[seat]
        if self.rules.rules != "pressman" or not rack:
            return list(rack)
        ts = self.tileset
        triples = [t for t in rack if len(set(ts.tiles[t])) == 1]
        if triples:
            allowed = {max(triples, key=lambda t: ts.pips[t])}
            allowed.update(t for t in triples if ts.pips[t] == 0)
            return sorted(allowed)
        best = max(ts.pips[t] for t in rack)
        return [t for t in rack if ts.pips[t] == best]

    def placements(self, seat: int | None = None) -> list[tuple[int, int]]:
        """Legal placements for a seat as (cell key, placement id), in board order.

        On an empty table they are the opening tiles at cell (0, 0, up).
        """
        seat = self.to_move if seat is None else seat
        ts = self.tileset
        if not self.board.tiles:
            return [(ORIGIN, p) for t in self.opening_tiles(seat) for p in ts.placements_of(t)]
        hand = self.playable_mask(seat)
        found: list[tuple[int, int]] = []
        fit = ts.fit
        frontier = self.board.frontier
        for key in sorted(frontier):
            mask = fit[frontier[key]] & hand
            while mask:
                low = mask & -mask
                found.append((key, low.bit_length() - 1))
                mask ^= low
        return found

    def can_place(self, seat: int, this_turn: bool = True) -> bool:
        """Whether ``seat`` has a legal placement now (``this_turn``: with M9's limit
        after a draw) or, with ``this_turn=False``, whether any tile of its rack fits."""
        if not self.board.tiles:
            return bool(self.racks[seat])
        hand = self.playable_mask(seat) if this_turn else self.hand_mask(seat)
        if not hand:
            return False
        fit = self.tileset.fit
        return any(fit[k] & hand for k in self.board.frontier.values())

    def can_draw(self) -> bool:
        opening = not self.board.tiles and bool(self.racks[self.to_move])
        return bool(self.pool) and self.draws < MAX_DRAWS and not opening

    def can_pass(self) -> bool:
        if self.draws >= MAX_DRAWS:
            return True
        return not self.pool and not self.can_place(self.to_move)

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        ts = self.tileset
        actions: list[Action] = [
            Place(key_cell(key), ts.placement_corners[p]) for key, p in self.placements()
        ]
        if self.can_draw():
            actions.append(Draw())
        if self.can_pass():
            actions.append(Pass())
        return actions

    def cell_bonus(self, key: int) -> tuple[str | None, int]:
        """The bonus any tile placed at frontier cell ``key`` earns now, and its points
        (M6–M8; M14: 1). It depends on the cell only, not on the tile."""
        bonus = self.board.bonus(key, self.rules.bridge == "pressman")
        return bonus, bonus_points(bonus, self.rules.young)

    def placement_score(self, key: int, corners: Corners) -> tuple[int, str | None, int]:
        """(points, bonus, opening bonus) for placing ``corners`` at ``key`` now (M5–M8, M14)."""
        opening = 0
        bonus: str | None = None
        extra = 0
        if not self.board.tiles:
            if self.rules.rules == "pressman" and len(set(corners)) == 1:
                opening = OPENING_ZERO_BONUS if corners[0] == 0 else OPENING_TRIPLE_BONUS
                if self.rules.young:
                    opening = 1
        else:
            bonus, extra = self.cell_bonus(key)
        pips = 1 if self.rules.young else sum(corners)
        return pips + extra + opening, bonus, opening

    # ----------------------------------------------------------------- moves

    def apply(self, action: Action) -> None:
        if self.over:
            raise GameOverError("the game is over", "game_over")
        seat = self.to_move
        name = self.players[seat]
        entry: dict[str, JSON] = {
            "player": name,
            "action": action_to_json(action),
            "points": 0,
            "bonus": None,
        }
        if isinstance(action, Place):
            self._place(seat, action, entry)
        elif isinstance(action, Draw):
            if not self.pool:
                raise IllegalMoveError("draw: the pool is empty", "triominos.pool_empty")
            if self.draws >= MAX_DRAWS:
                raise IllegalMoveError(f"draw: {name} already drew {MAX_DRAWS} tiles this turn", "triominos.drew_enough",
                                       player=name, n=MAX_DRAWS)
            if not self.can_draw():
                raise IllegalMoveError("draw: the opening player must place a tile", "triominos.opener_places")
            self.racks[seat].append(self.pool.pop(0))
            self.draws += 1
            penalty = 0 if self.rules.young else DRAW_PENALTY
            self.score_list[seat] -= penalty
            entry["points"] = -penalty
            self.log.append(entry)
        elif isinstance(action, Pass):
            if not self.can_pass():
                if self.pool:
                    raise IllegalMoveError(
                        f"pass: {name} must place or draw (drew {self.draws} of {MAX_DRAWS})",
                        "triominos.must_draw", player=name, drawn=self.draws, n=MAX_DRAWS,
                    )
                raise IllegalMoveError(f"pass: {name} can still place a tile", "triominos.can_place", player=name)
            if self.rules.young:
                penalty = 0
            elif self.draws >= MAX_DRAWS:
                penalty = NO_PLAY_PENALTY
            else:
                penalty = self.rules.empty_pool_penalty
            self.score_list[seat] -= penalty
            entry["points"] = -penalty
            self.log.append(entry)
            self._next_turn()
        else:
            raise InvalidMoveError(f"not a Triominos action: {action!r}")
        if not self.over and not self.pool:
            self._check_blocked()

    def _place(self, seat: int, action: Place, entry: dict[str, JSON]) -> None:
        ts = self.tileset
        key = cell_key(action.cell)
        corners = action.corners
        tile = ts.find(corners)
        label = tile_name(canonical(corners))
        if tile is None:
            raise IllegalMoveError(f"tile {label} is not in the {ts.name} set", "triominos.no_such_tile", tile=label)
        if tile not in self.racks[seat]:
            raise IllegalMoveError(f"{self.players[seat]} does not hold {label}", "triominos.not_held",
                                   player=self.players[seat], tile=label)
        if tile not in self.playable_tiles(seat):
            drawn = ts.name_of(self.racks[seat][-1])
            raise IllegalMoveError(
                f"after drawing, only the tile just drawn ({drawn}) may be placed (M9)",
                "triominos.only_drawn", tile=drawn,
            )
        board = self.board
        if key in board.tiles:
            raise IllegalMoveError(f"cell {action.cell.to_json()} is already covered", "triominos.covered",
                                   cell=action.cell.to_json())
        if board.tiles:
            if key not in board.frontier:
                raise IllegalMoveError(
                    f"cell {action.cell.to_json()} shares no side with a tile (M4)",
                    "triominos.not_adjacent", cell=action.cell.to_json(),
                )
            clash = board.conflicts(key, corners)
            if clash is not None:
                held = board.value[geometry(key)[0][clash]]
                raise IllegalMoveError(
                    f"corner {clash} is {corners[clash]} but touches a {held} (M4)",
                    "triominos.corner_clash", corner=clash, value=corners[clash], held=held,
                )
        elif tile not in self.opening_tiles(seat):
            raise IllegalMoveError(f"{label} may not open: the highest triple opens (M3)", "triominos.not_opening",
                                   tile=label)
        points, bonus, opening = self.placement_score(key, corners)
        board.place(key, corners)
        self.racks[seat].remove(tile)
        self.score_list[seat] += points
        entry["points"] = points
        entry["bonus"] = bonus
        if opening:
            entry["opening_bonus"] = opening
        self.log.append(entry)
        if not self.racks[seat]:
            self._going_out(seat)
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.to_move = (self.to_move + 1) % len(self.players)
        self.draws = 0

    def _hand_total(self, seat: int) -> int:
        return sum(self.tileset.pips[t] for t in self.racks[seat])

    def _going_out(self, seat: int) -> None:
        """M11: +25 and the opponents' remaining numbers (M14: 5)."""
        others = sum(self._hand_total(s) for s in range(len(self.players)) if s != seat)
        gain = YOUNG_OUT_BONUS if self.rules.young else OUT_BONUS + others
        self.score_list[seat] += gain
        self._end_round({"end": "out", "player": self.players[seat], "points": {
            self.players[seat]: gain}})

    def _check_blocked(self) -> None:
        """M12: pool empty and nobody can place: settle the round."""
        n = len(self.players)
        if any(self.can_place(s, this_turn=False) for s in range(n)):
            return
        totals = [self._hand_total(s) for s in range(n)]
        change = [0] * n
        if self.rules.young:
            pass
        elif self.rules.blocked == "subtract":
            change = [-t for t in totals]
        else:
            low = min(totals)
            for s in range(n):
                if totals[s] == low:
                    change[s] = sum(totals) - totals[s] - totals[s]
        for s in range(n):
            self.score_list[s] += change[s]
        self._end_round({"end": "blocked", "player": None, "points": {
            self.players[s]: change[s] for s in range(n)}})

    def _end_round(self, result: dict[str, JSON]) -> None:
        result["round"] = self.round
        self.round_results.append(result)
        target = self.rules.target
        if target is None or max(self.score_list) >= target:
            self.over = True
            return
        self.round += 1
        self.start_round()

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict[str, JSON]:
        ts = self.tileset
        return {
            "game": "triominos",
            "status": "over" if self.over else "playing",
            "to_move": self.current_player(),
            "scores": dict(self.scores()),
            "winner": self.winner(),
            "log": [dict(e) for e in self.log],
            "board": [
                {"cell": key_cell(k).to_json(), "corners": list(c), "tile": tile_name(canonical(c))}
                for k, c in self.board.tiles.items()
            ],
            "racks": {
                p: sorted(ts.name_of(t) for t in self.racks[s]) for s, p in enumerate(self.players)
            },
            "pool_count": len(self.pool),
            "round": self.round,
            "draws_this_turn": self.draws,
            "round_results": [dict(r) for r in self.round_results],
            "opening_draw": dict(self.opening_draw),
        }

    def dump(self) -> dict[str, JSON]:
        ts = self.tileset
        return {
            "options": dict(self.game.options),
            "deal_seed": self.deal_seed,
            "board": [[key_cell(k).to_json(), list(c)] for k, c in self.board.tiles.items()],
            "racks": [[ts.name_of(t) for t in r] for r in self.racks],
            "pool": [ts.name_of(t) for t in self.pool],
            "scores": list(self.score_list),
            "to_move": self.to_move,
            "draws": self.draws,
            "round": self.round,
            "over": self.over,
            "log": [dict(e) for e in self.log],
            "round_results": [dict(r) for r in self.round_results],
            "opening_draw": dict(self.opening_draw),
        }

    def clone(self) -> TriominosState:
        other = TriominosState(self.game, self.deal_seed)
        other.board = self.board.copy()
        other.racks = [list(r) for r in self.racks]
        other.pool = list(self.pool)
        other.score_list = list(self.score_list)
        other.to_move = self.to_move
        other.draws = self.draws
        other.round = self.round
        other.over = self.over
        other.log = list(self.log)
        other.round_results = list(self.round_results)
        other.opening_draw = dict(self.opening_draw)
        return other


