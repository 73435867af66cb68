"""Triolet play (docs/rules/triolet.md, L1–L15): the game and its states.

>>> import random
>>> game = TrioletGame({"players": ["Ana", "Ben"]})
>>> state = game.new_initial_state(random.Random(1))
>>> [len(r) for r in state.racks], len(state.bag), len(state.aside)
([3, 3], 74, 3)
>>> play = max(state.plays(), key=lambda p: p[0])
>>> state.apply(state.play_action(play[1]))
>>> state.to_json()["log"][0]["points"] == play[0]
True
>>> game.load(state.dump()) == state
True

Actions are in :mod:`.actions`, the options (variant switches) in :mod:`.rules`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import ClassVar

from engines.core import (
    JSON,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Pass,
    RecordError,
    SeatScoreGame,
    SeatScoreState,
    check_keys,
)
from engines.triolet import actions
from engines.triolet.actions import (
    Action,
    Exchange,
    Placement,
    PlayTokens,
    action_to_json,
)
from engines.triolet.board import (
    ALL_TOKENS,
    JOKER,
    MULTIPLIER,
    PLAY_AGAIN,
    RACK_SIZE,
    Board,
    Play,
    cell_index,
    cell_name,
    check_play,
    parse_token,
    token_name,
)
from engines.triolet.movegen import generate
from engines.triolet.rules import Rules

POSITION_FIELDS = ("board", "racks", "bag", "scores", "to_move")
SET_ASIDE = 3  # L2


DUMP_FIELDS = (
    "options",
    "shuffle_seed",
    "board",
    "racks",
    "bag",
    "aside",
    "scores",
    "to_move",
    "over",
    "log",
    "exchanges",
    "stalled",
)


class TrioletGame(SeatScoreGame[Action, "TrioletState"]):
    """Options and the factory of Triolet states."""

    name: ClassVar[str] = "triolet"
    notation = actions
    dump_fields = DUMP_FIELDS

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        super().__init__(options)
        self.rules = Rules.from_options(self.options)
        self.players: tuple[str, ...] = self.rules.players

    def seeded_state(self, seed: int) -> TrioletState:
        return TrioletState(self, shuffle_seed=seed)

    def rebuild(self, data: Mapping[str, JSON]) -> TrioletState:
        state = TrioletState(self, shuffle_seed=int(data["shuffle_seed"]))
        for name, token in data["board"]:
            joker = isinstance(token, str)
            value = int(token[1:]) if joker else int(token)
            state.board.place(cell_index(name), value, joker)
        state.racks = [[parse_token(t, "dump") for t in r] for r in data["racks"]]
        state.bag = [parse_token(t, "dump") for t in data["bag"]]
        state.aside = [parse_token(t, "dump") for t in data["aside"]]
        state.score_list = [int(s) for s in data["scores"]]
        state.to_move = int(data["to_move"])
        state.over = bool(data["over"])
        state.log = list(data["log"])
        state.exchanges = int(data["exchanges"])
        state.stalled = int(data["stalled"])
        return state


# --------------------------------------------------------------------------- state


class TrioletState(SeatScoreState[Action]):
    """One moment of a Triolet game.

    Public fields read by the bot: ``board`` (:class:`Board`), ``racks`` (tokens per seat,
    JOKER = 16), ``bag`` (next drawn first), ``aside`` (the 3 tokens set aside, L2 — in a
    ``position`` set-up, every token not on the board, a rack or the bag), ``score_list``,
    ``to_move`` (seat).
    """

    game: TrioletGame

    def __init__(self, game: TrioletGame, shuffle_seed: int) -> None:
        self.game = game
        self.rules = game.rules
        self.players = game.players
        self.shuffle_seed = shuffle_seed
        self.board = Board()
        n = len(self.players)
        self.racks: list[list[int]] = [[] for _ in range(n)]
        self.bag: list[int] = []
        self.aside: list[int] = []
        self.score_list: list[int] = [0] * n
        self.to_move = 0
        self.over = False
        self.log: list[dict[str, JSON]] = []
        self.exchanges = 0
        self.stalled = 0  # turns in a row without a token placed

    # ----------------------------------------------------------------- set-up

    def deal(self, rng: random.Random) -> None:
        """L2: 3 tokens set aside unseen, 3 per player, first player by lot."""
        tokens = list(ALL_TOKENS)
        rng.shuffle(tokens)
        self.aside = tokens[:SET_ASIDE]
        self.bag = tokens[SET_ASIDE:]
        first = rng.randrange(len(self.players))
        if self.rules.first is not None:
            first = self.players.index(self.rules.first)
        for seat in range(len(self.players)):
            self._refill(seat)
        self.to_move = first

    def set_up(self, position: Mapping[str, JSON], rng: random.Random) -> None:
        """Start from a docs/records.md ``position``: taken as given, but its tokens must exist."""
        pos = check_keys(position, POSITION_FIELDS, "position")
        left = Counter(ALL_TOKENS)

        def take(token: int, where: str) -> int:
            if left[token] <= 0:
                raise RecordError(f"position.{where}: no token {token_name(token)} is left")
            left[token] -= 1
            return token

        board = pos.get("board", {})
        if not isinstance(board, dict):
            raise RecordError("position.board: expected an object {cell: value}")
        for name, token in board.items():
            i = cell_index(name)
            joker = isinstance(token, str) and token.startswith("J")
            try:
                value = parse_token(int(token[1:]) if joker else token, f"board.{name}")
            except ValueError as err:
                raise RecordError(f"position.board.{name}: not a token: {token!r}") from err
            take(JOKER if joker else value, f"board.{name}")
            self.board.place(i, value, joker)
        racks = check_keys(pos.get("racks", {}), self.players, "position.racks")
        for seat, name in enumerate(self.players):
            rack = racks.get(name, [])
            if not isinstance(rack, list) or len(rack) > RACK_SIZE:
                raise RecordError(f"position.racks.{name}: expected a list of up to 3 tokens")
            self.racks[seat] = [
                take(parse_token(t, f"racks.{name}"), f"racks.{name}") for t in rack
            ]
        rest = sorted(left.elements())
        if "bag" in pos:
            bag = pos["bag"]
            if not isinstance(bag, list):
                raise RecordError("position.bag: expected a list of tokens")
            self.bag = [take(parse_token(t, "bag"), "bag") for t in bag]
            self.aside = sorted(left.elements())
        else:
            rng.shuffle(rest)  # the rest of the set, mixed; 3 of them set aside (L2)
            self.aside, self.bag = rest[:SET_ASIDE], rest[SET_ASIDE:]
        for seat, name in enumerate(self.players):
            if name not in racks:
                self._refill(seat)
        self.set_position_scores(pos)

    # ----------------------------------------------------------------- queries

    def lone_points(self, play: Play, points: int) -> int:
        """The ``lone_token`` switch: a first token alone scores 0 or its (multiplied) value."""
        if len(play) == 1 and not self.board.occupied and self.rules.lone_token == "face":
            i, token, value = play[0]
            return 0 if token == JOKER else value * MULTIPLIER[i]
        return points

    def plays(self, seat: int | None = None) -> list[tuple[int, Play]]:
        """Every legal play of the seat's rack with its points (the fast generator)."""
        seat = self.to_move if seat is None else seat
        found = generate(self.board, self.racks[seat])
        if not self.board.occupied and self.rules.lone_token == "face":
            found = [(self.lone_points(p, pts), p) for pts, p in found]
        return found

    def can_play(self, seat: int) -> bool:
        return bool(self.racks[seat]) and bool(generate(self.board, self.racks[seat]))

    def can_exchange(self) -> bool:
        return len(self.bag) >= self.rules.exchange_min_bag and bool(self.racks[self.to_move])

    @staticmethod
    def play_action(play: Play) -> PlayTokens:
        """The action of a generated play."""
        return PlayTokens(
            tuple(Placement(cell_name(i), v, t == JOKER) for i, t, v in play)
        )

    def exchanges_possible(self) -> list[Exchange]:
        if not self.can_exchange():
            return []
        rack = sorted(self.racks[self.to_move])
        found: set[tuple[int, ...]] = set()
        n = len(rack)
        for mask in range(1, 1 << n):
            found.add(tuple(rack[k] for k in range(n) if mask >> k & 1))
        return [Exchange(t) for t in sorted(found, key=lambda t: (len(t), t))]

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        actions: list[Action] = [self.play_action(p) for _, p in self.plays()]
        actions += self.exchanges_possible()
        if not actions:
            actions.append(Pass())
        return actions

    # ----------------------------------------------------------------- moves

    def apply(self, action: Action) -> None:
        if self.over:
            raise GameOverError("the game is over", "game_over")
        seat = self.to_move
        name = self.players[seat]
        entry: dict[str, JSON] = {"player": name, "action": action_to_json(action), "points": 0}
        if isinstance(action, PlayTokens):
            self._play(seat, action, entry)
        elif isinstance(action, Exchange):
            self._exchange(seat, action)
            self.log.append(entry)
            self._stall()
        elif isinstance(action, Pass):
            if self.can_exchange():
                raise IllegalMoveError("pass: an exchange is possible (L14)", "triolet.can_exchange")
            if self.can_play(seat):
                raise IllegalMoveError(f"pass: {name} can still play (L14)", "triolet.can_play", player=name)
            self.log.append(entry)
            if not any(self.can_play(s) for s in range(len(self.players))):
                self._blocked()
            else:
                self._stall()
        else:
            raise InvalidMoveError(f"not a Triolet action: {action!r}")

    def _take_from_rack(self, seat: int, tokens: Sequence[int]) -> list[int]:
        """The rack without ``tokens``; IllegalMoveError when the rack lacks one."""
        rack = list(self.racks[seat])
        for t in tokens:
            if t not in rack:
                raise IllegalMoveError(
                    f"{self.players[seat]} holds no token {token_name(t)} to use",
                    "triolet.not_held", player=self.players[seat], token=token_name(t),
                )
            rack.remove(t)
        return rack

    def _play(self, seat: int, action: PlayTokens, entry: dict[str, JSON]) -> None:
        placed = [(cell_index(p.cell), p.value, p.joker) for p in action.placements]
        rest = self._take_from_rack(seat, [JOKER if j else v for _, v, j in placed])
        points, sets, triolet = check_play(self.board, placed)
        if not sets:
            play = tuple((i, JOKER if j else v, v) for i, v, j in placed)
            points = self.lone_points(play, points)
        for i, v, j in placed:
            self.board.place(i, v, j)
        self.racks[seat] = rest
        self.stalled = 0
        self.score_list[seat] += points
        again = any(PLAY_AGAIN[i] for i, _, _ in placed)
        entry["points"] = points
        entry["sets"] = list(sets)
        entry["triolet"] = triolet
        entry["again"] = again
        self.log.append(entry)
        self._refill(seat)
        if not self.racks[seat]:
            self._going_out(seat)
        elif not again:  # L11: a play-again cell gives the same player another turn
            self._next_turn()

    def _exchange(self, seat: int, action: Exchange) -> None:
        if not 1 <= len(action.tokens) <= RACK_SIZE:
            raise IllegalMoveError("exchange: give back 1 to 3 tokens (L13)", "triolet.exchange_count")
        if not self.can_exchange():
            raise IllegalMoveError(
                f"exchange: the bag holds {len(self.bag)} tokens, "
                f"at least {self.rules.exchange_min_bag} are needed (L13)",
                "triolet.bag_low", n=len(self.bag), needed=self.rules.exchange_min_bag,
            )
        if len(self.bag) < len(action.tokens):
            raise IllegalMoveError("exchange: the bag holds fewer tokens than given back (L13)",
                                   "triolet.bag_short")
        rest = self._take_from_rack(seat, action.tokens)
        drawn = self.bag[: len(action.tokens)]  # L13: draw first, then return
        self.racks[seat] = rest + drawn
        self.bag = self.bag[len(action.tokens) :] + list(action.tokens)
        self.exchanges += 1
        random.Random(self.shuffle_seed + self.exchanges).shuffle(self.bag)

    def _stall(self) -> None:
        """Count turns without a token placed; end the game after ``stall_rounds`` rounds."""
        self.stalled += 1
        if self.stalled >= self.rules.stall_rounds * len(self.players):
            self._blocked()
        else:
            self._next_turn()

    def _refill(self, seat: int) -> None:
        rack = self.racks[seat]
        while len(rack) < RACK_SIZE and self.bag:
            rack.append(self.bag.pop(0))

    def _next_turn(self) -> None:
        self.to_move = (self.to_move + 1) % len(self.players)

    @staticmethod
    def rack_value(rack: Sequence[int]) -> int:
        return sum(t for t in rack if t != JOKER)

    def _going_out(self, seat: int) -> None:
        """L15: the bag is empty and the seat placed its last token."""
        self.score_list[seat] += sum(
            self.rack_value(r) for s, r in enumerate(self.racks) if s != seat
        )
        self.over = True

    def _blocked(self) -> None:
        """L15: nobody can play: everyone loses what is left on their rack."""
        for s, rack in enumerate(self.racks):
            self.score_list[s] -= self.rack_value(rack)
        self.over = True

    # ----------------------------------------------------------------- output

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": "triolet",
            "status": "over" if self.over else "playing",
            "to_move": self.current_player(),
            "scores": dict(self.scores()),
            "winner": self.winner(),
            "log": [dict(e) for e in self.log],
            "board": self.board.tokens(),
            "racks": {
                p: [token_name(t) for t in sorted(self.racks[s])]
                for s, p in enumerate(self.players)
            },
            "bag_count": len(self.bag),
        }

    def dump(self) -> dict[str, JSON]:
        return {
            "options": dict(self.game.options),
            "shuffle_seed": self.shuffle_seed,
            "board": [[name, token] for name, token in self.board.tokens().items()],
            "racks": [[token_name(t) for t in r] for r in self.racks],
            "bag": [token_name(t) for t in self.bag],
            "aside": [token_name(t) for t in self.aside],
            "scores": list(self.score_list),
            "to_move": self.to_move,
            "over": self.over,
            "log": [dict(e) for e in self.log],
            "exchanges": self.exchanges,
            "stalled": self.stalled,
        }

    def clone(self) -> TrioletState:
        other = TrioletState(self.game, self.shuffle_seed)
        other.board = self.board.copy()
        other.racks = [list(r) for r in self.racks]
        other.bag = list(self.bag)
        other.aside = list(self.aside)
        other.score_list = list(self.score_list)
        other.to_move = self.to_move
        other.over = self.over
        other.log = list(self.log)
        other.exchanges = self.exchanges
        other.stalled = self.stalled
        return other


