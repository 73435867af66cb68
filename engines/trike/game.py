"""The Trike rules engine (docs/rules/trike.md K1–K6, notation docs/records.md § Trike).

Stones are two bitboards (Python ints, bit i = cell i in board order); the pawn is a cell
index. The colour to move is never stored: it is the opposite of the stone under the pawn
(Black before the opening), which a swap (K3) leaves unchanged — the swap only changes
which player owns which colour.

>>> game = TrikeGame({"size": 3})
>>> state = game.new_initial_state(random.Random(0))
>>> for cell in ["b1", "c1", "c2", "b2", "a1"]:
...     state.apply(game.parse_action(cell))
>>> state.is_terminal(), state.scores(), state.winner()
(True, {'black': 2, 'white': 1}, 'black')
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engines.core import (
    JSON,
    Game,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    RecordError,
    State,
    check_keys,
)
from engines.trike import actions
from engines.trike.actions import SWAP_ACTION, TrikeAction, parse_action
from engines.trike.board import MAX_SIZE, MIN_SIZE, Geometry, cell_name, geometry

BLACK = "black"
WHITE = "white"
COLOURS = (BLACK, WHITE)
DEFAULT_SIZE = 13


def _names(geo: Geometry, mask: int) -> list[str]:
    return [geo.names[i] for i in range(geo.cells) if mask >> i & 1]


class TrikeState(State[TrikeAction]):
    """One Trike position. ``black``/``white`` are bitboards, ``pawn`` a cell or -1."""

    game: TrikeGame

    def __init__(self, game: TrikeGame) -> None:
        self.game = game
        self.players = game.players
        self.geo = game.geo
        self.black = 0
        self.white = 0
        self.pawn = -1
        self.swapped = False
        self.colors: dict[str, str] = {game.players[0]: BLACK, game.players[1]: WHITE}
        self.log: list[dict[str, JSON]] = []

    # ----------------------------------------------------------------- queries
    @property
    def occupied(self) -> int:
        return self.black | self.white

    def colour_to_move(self) -> str:
        """Black before the opening, then the opposite of the stone under the pawn."""
        if self.pawn < 0 or self.white >> self.pawn & 1:
            return BLACK
        return WHITE

    def stone_count(self) -> int:
        return self.occupied.bit_count()

    def swap_available(self) -> bool:
        """K3: only the second player's first turn (one stone down), only with the pie rule."""
        return bool(self.game.pie) and not self.swapped and self.stone_count() == 1

    def is_terminal(self) -> bool:
        """K5 in O(1): the pawn has no empty neighbour."""
        if self.pawn < 0:
            return False
        mask = self.geo.neighbour_mask[self.pawn]
        return self.occupied & mask == mask

    def current_player(self) -> str | None:
        if self.is_terminal():
            return None
        colour = self.colour_to_move()
        return next(p for p, c in self.colors.items() if c == colour)

    def target_cells(self) -> list[int]:
        """K4: the cells the pawn can reach (K2: every empty cell before the opening),
        in board order."""
        occ = self.occupied
        if self.pawn < 0:
            return [i for i in range(self.geo.cells) if not occ >> i & 1]
        targets = []
        for ray in self.geo.rays[self.pawn]:
            for cell in ray:
                if occ >> cell & 1:
                    break
                targets.append(cell)
        targets.sort()
        return targets

    def legal_actions(self) -> list[TrikeAction]:
        if self.is_terminal():
            return []
        actions = [TrikeAction(c) for c in self.target_cells()]
        if self.swap_available():
            actions.append(SWAP_ACTION)
        return actions

    def colour_scores(self) -> dict[str, int]:
        """K6: stones of each colour on or next to the pawn (0 each before the end)."""
        if not self.is_terminal():
            return {BLACK: 0, WHITE: 0}
        around = self.geo.neighbour_mask[self.pawn] | 1 << self.pawn
        return {BLACK: (self.black & around).bit_count(), WHITE: (self.white & around).bit_count()}

    def scores(self) -> dict[str, float]:
        by_colour = self.colour_scores()
        return {p: by_colour[c] for p, c in self.colors.items()}

    def winner_colour(self) -> str | None:
        if not self.is_terminal():
            return None
        s = self.colour_scores()
        return BLACK if s[BLACK] > s[WHITE] else WHITE

    def winner(self) -> str | None:
        colour = self.winner_colour()
        if colour is None:
            return None
        return next(p for p, c in self.colors.items() if c == colour)

    # ----------------------------------------------------------------- moves
    def apply(self, action: TrikeAction) -> None:
        if not isinstance(action, TrikeAction):
            raise InvalidMoveError(f"not a Trike action: {action!r}")
        if self.is_terminal():
            raise GameOverError("the game is over", "game_over")
        player = self.current_player()
        assert player is not None
        if action.cell is None:
            if not self.swap_available():
                raise IllegalMoveError("swap is only allowed as the second action (pie rule)", "trike.swap_late")
            self.colors = {p: (WHITE if c == BLACK else BLACK) for p, c in self.colors.items()}
            self.swapped = True
        else:
            cell = action.cell
            if not 0 <= cell < self.geo.cells:
                raise IllegalMoveError(f"no cell {cell_name(cell)} on a side-{self.geo.size} board", "trike.no_cell",
                                       cell=cell_name(cell), size=self.geo.size)
            if self.occupied >> cell & 1:
                raise IllegalMoveError(f"{cell_name(cell)} is occupied", "trike.occupied", cell=cell_name(cell))
            if self.pawn >= 0 and cell not in self.target_cells():
                raise IllegalMoveError(
                    f"the pawn on {cell_name(self.pawn)} cannot reach {cell_name(cell)}",
                    "trike.unreachable", pawn=cell_name(self.pawn), cell=cell_name(cell),
                )
            if self.colour_to_move() == BLACK:
                self.black |= 1 << cell
            else:
                self.white |= 1 << cell
            self.pawn = cell
        self.log.append({"player": player, "action": action.to_str(), "points": 0})

    # ----------------------------------------------------------------- records
    def to_json(self) -> dict[str, JSON]:
        geo = self.geo
        stones = {geo.names[i]: BLACK if self.black >> i & 1 else WHITE
                  for i in range(geo.cells) if self.occupied >> i & 1}
        over = self.is_terminal()
        return {
            "game": "trike",
            "status": "over" if over else "playing",
            "to_move": self.current_player(),
            "scores": self.scores(),
            "winner": self.winner(),
            "size": geo.size,
            "stones": stones,
            "pawn": geo.names[self.pawn] if self.pawn >= 0 else None,
            "colors": dict(self.colors),
            "legal_moves": [a.to_str() for a in self.legal_actions()],
            "log": [dict(e) for e in self.log],
        }

    def dump(self) -> dict[str, JSON]:
        geo = self.geo
        return {
            "options": self.game.options_json(),
            "black": _names(geo, self.black),
            "white": _names(geo, self.white),
            "pawn": geo.names[self.pawn] if self.pawn >= 0 else None,
            "swapped": self.swapped,
            "colors": dict(self.colors),
            "log": [dict(e) for e in self.log],
        }

    def clone(self) -> TrikeState:
        other = TrikeState(self.game)
        other.black, other.white, other.pawn = self.black, self.white, self.pawn
        other.swapped = self.swapped
        other.colors = dict(self.colors)
        other.log = [dict(e) for e in self.log]
        return other


class TrikeGame(Game[TrikeAction]):
    """Trike: options ``size`` (3–19, default 13), ``players`` (two names, the first is
    Black), ``pie`` (default true).

    >>> TrikeGame({"size": 20})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: options.size: expected an integer 3..19
    """

    name = "trike"
    notation = actions

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        super().__init__(options)
        opts = check_keys(self.options, ("size", "players", "pie"), "options")
        size = opts.get("size", DEFAULT_SIZE)
        if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
            raise RecordError(f"options.size: expected an integer {MIN_SIZE}..{MAX_SIZE}")
        players = opts.get("players", [BLACK, WHITE])
        if (
            not isinstance(players, list)
            or len(players) != 2
            or not all(isinstance(p, str) and p for p in players)
            or players[0] == players[1]
        ):
            raise RecordError("options.players: expected two different non-empty names")
        pie = opts.get("pie", True)
        if not isinstance(pie, bool):
            raise RecordError("options.pie: expected true or false")
        self.size: int = size
        self.players: tuple[str, str] = (players[0], players[1])
        self.pie: bool = pie
        self.geo = geometry(size)

    def options_json(self) -> dict[str, JSON]:
        return {"size": self.size, "players": list(self.players), "pie": self.pie}

    def new_initial_state(
        self, rng: random.Random, position: Mapping[str, JSON] | None = None
    ) -> TrikeState:
        """An empty board (K2), or ``position`` = ``{"stones": {cell: colour}, "pawn": cell}``
        taken as given (the pawn must stand on a stone; colour to move follows from it)."""
        state = TrikeState(self)
        if position is None:
            return state
        pos = check_keys(position, ("stones", "pawn"), "position")
        stones = pos.get("stones", {})
        if not isinstance(stones, dict):
            raise RecordError("position.stones: expected an object {cell: colour}")
        for name, colour in stones.items():
            cell = self._cell(name, "position.stones")
            if colour == BLACK:
                state.black |= 1 << cell
            elif colour == WHITE:
                state.white |= 1 << cell
            else:
                raise RecordError(f"position.stones.{name}: expected 'black' or 'white'")
        pawn = pos.get("pawn")
        if pawn is None:
            if stones:
                raise RecordError("position.pawn: required when there are stones")
        else:
            cell = self._cell(pawn, "position.pawn")
            if not state.occupied >> cell & 1:
                raise RecordError("position.pawn: the pawn must stand on a stone")
            state.pawn = cell
        return state

    def _cell(self, name: JSON, what: str) -> int:
        try:
            return self.geo.index(name)
        except InvalidMoveError as err:
            raise RecordError(f"{what}: {err}") from err

    def parse_action(self, obj: JSON) -> TrikeAction:
        return parse_action(obj, self.geo)

    def load(self, data: Mapping[str, JSON]) -> TrikeState:
        """Rebuild a state from :meth:`TrikeState.dump` (RecordError if inconsistent)."""
        d = check_keys(data, ("options", "black", "white", "pawn", "swapped", "colors", "log"),
                       "dump", required=("options", "black", "white", "pawn", "swapped", "colors", "log"))
        opts = d["options"]
        if not isinstance(opts, dict) or opts.get("size", DEFAULT_SIZE) != self.size:
            raise RecordError("dump: options differ from this game's")
        if not isinstance(d["black"], list) or not isinstance(d["white"], list):
            raise RecordError("dump: black and white are lists of cells")
        stones = {name: BLACK for name in d["black"]} | {name: WHITE for name in d["white"]}
        state = self.new_initial_state(random.Random(0), {"stones": stones, "pawn": d["pawn"]})
        state.swapped = bool(d["swapped"])
        colors = d["colors"]
        if not isinstance(colors, dict) or set(colors) != set(self.players) or set(
            colors.values()
        ) != set(COLOURS):
            raise RecordError("dump.colors: expected each player with one colour")
        state.colors = {p: colors[p] for p in self.players}
        log = d["log"]
        if not isinstance(log, list):
            raise RecordError("dump.log: expected a list")
        state.log = [dict(e) for e in log]
        return state



__all__ = ["BLACK", "WHITE", "TrikeGame", "TrikeState"]
