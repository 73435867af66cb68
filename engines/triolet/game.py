"""Triolet rules (shared/rules/triolet.md, L1–L15) and the RECORDS.md record format.

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

Variant switches (options besides ``players``):

- ``lone_token``: ``"zero"`` (default: a token that makes no set — only the first token
  of a game can — scores 0) or ``"face"`` (its value, times its cell's multiplier).
- ``exchange_min_bag``: the bag must hold at least this many tokens for an exchange
  (L13; default 5).
- ``first``: the player who starts (default: drawn by lot with the seed, L2).
- ``stall_rounds`` **[ours]**: L15 "nobody can play" while the bag still allows
  exchanges could last for ever (players swapping tokens on a board that takes none of
  theirs, or one that chooses to exchange for ever). The game ends as blocked (L15
  settlement) once this many rounds in a row went by without a token placed (default 2).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from engines.core import (
    JSON,
    Game,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Pass,
    RecordError,
    SeatScoreState,
    check_keys,
    parse_players,
)
from engines.triolet.board import (
    ALL_TOKENS,
    JOKER,
    MAX_VALUE,
    MULTIPLIER,
    PLAY_AGAIN,
    RACK_SIZE,
    Board,
    Play,
    cell_index,
    cell_name,
    check_play,
    generate,
    parse_token,
    token_name,
)

OPTION_FIELDS = ("players", "lone_token", "exchange_min_bag", "first", "stall_rounds")
POSITION_FIELDS = ("board", "racks", "bag", "scores", "to_move")
SET_ASIDE = 3  # L2


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, order=True)
class Placement:
    """One token put on a cell: ``value`` is the number (a joker's declared value).

    >>> Placement.from_str("H10:J0")
    Placement(cell='H10', value=0, joker=True)
    """

    cell: str
    value: int
    joker: bool = False

    def to_str(self) -> str:
        return f"{self.cell}:{'J' if self.joker else ''}{self.value}"

    @classmethod
    def from_str(cls, text: object) -> Placement:
        if not isinstance(text, str) or text.count(":") != 1:
            raise RecordError(f"play: expected \"CELL:VALUE\", got {text!r}")
        where, what = text.split(":")
        cell_index(where)
        joker = what.startswith("J")
        digits = what[1:] if joker else what
        if not digits.isdigit() or not 0 <= int(digits) <= MAX_VALUE or len(digits) > 2:
            raise RecordError(f"play: not a token value in {text!r} (0-15, or J0-J15)")
        return cls(where, int(digits), joker)


def _board_order(p: Placement) -> int:
    return cell_index(p.cell)


@dataclass(frozen=True)
class PlayTokens:
    """Place 1–3 tokens (L3); kept in board order so equal plays compare equal.

    >>> PlayTokens.from_str("H9:10 H8:5").to_str()
    'H8:5 H9:10'
    """

    placements: tuple[Placement, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "placements", tuple(sorted(self.placements, key=_board_order)))

    def to_str(self) -> str:
        return " ".join(p.to_str() for p in self.placements)

    @classmethod
    def from_str(cls, text: str) -> PlayTokens:
        return cls(tuple(Placement.from_str(t) for t in text.split()))


@dataclass(frozen=True)
class Exchange:
    """Swap 1–3 rack tokens with the bag (L13); tokens are values or JOKER (16).

    >>> Exchange.from_str("exchange 3 J").tokens
    (3, 16)
    """

    tokens: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(sorted(self.tokens)))

    def to_str(self) -> str:
        return "exchange " + " ".join(str(token_name(t)) for t in self.tokens)

    @classmethod
    def from_str(cls, text: str) -> Exchange:
        words = text.split()
        if not words or words[0] != "exchange":
            raise InvalidMoveError(f"not an exchange: {text!r}")
        try:
            return cls(tuple(parse_token("J" if w == "J" else int(w), "exchange") for w in words[1:]))
        except ValueError as err:
            raise InvalidMoveError(f"not an exchange: {text!r}") from err


Action = PlayTokens | Exchange | Pass


def action_from_str(text: str) -> Action:
    """Parse the text notation: ``"H8:5 H9:J7"``, ``"exchange 3 J"`` or ``"pass"``.

    >>> action_from_str("pass"), action_from_str("exchange 1").to_str()
    (Pass(), 'exchange 1')
    """
    if text == "pass":
        return Pass()
    if text.startswith("exchange"):
        return Exchange.from_str(text)
    try:
        return PlayTokens.from_str(text)
    except RecordError as err:
        raise InvalidMoveError(str(err)) from err


def parse_action(obj: JSON) -> Action:
    """An action from the RECORDS.md notation.

    >>> parse_action({"play": ["H8:5", "H9:10", "H10:J0"]}).to_str()
    'H8:5 H9:10 H10:J0'
    >>> parse_action({"exchange": [3, "J"]})
    Exchange(tokens=(3, 16))
    >>> parse_action({"pass": False})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: pass: expected true
    """
    body = check_keys(obj, ("play", "exchange", "pass"), "action")
    if len(body) != 1:
        raise RecordError("action: expected exactly one of play, exchange, pass")
    ((kind, value),) = body.items()
    if kind == "pass":
        if value is not True:
            raise RecordError("pass: expected true")
        return Pass()
    if not isinstance(value, list) or not 1 <= len(value) <= RACK_SIZE:
        raise RecordError(f"{kind}: expected a list of 1 to 3 tokens")
    if kind == "play":
        return PlayTokens(tuple(Placement.from_str(t) for t in value))
    return Exchange(tuple(parse_token(t, "exchange") for t in value))


def action_to_json(action: Action) -> JSON:
    if isinstance(action, PlayTokens):
        return {"play": [p.to_str() for p in action.placements]}
    if isinstance(action, Exchange):
        return {"exchange": [token_name(t) for t in action.tokens]}
    return {"pass": True}


# --------------------------------------------------------------------------- options


@dataclass(frozen=True)
class Rules:
    """Validated options (see the module docstring for the variant switches).

    >>> Rules.from_options({}).players
    ('P1', 'P2')
    >>> Rules.from_options({"players": ["A"]})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: players: 2 to 4 players, got 1
    """

    players: tuple[str, ...]
    lone_token: str
    exchange_min_bag: int
    first: str | None
    stall_rounds: int

    @classmethod
    def from_options(cls, options: Mapping[str, JSON]) -> Rules:
        opts = check_keys(dict(options), OPTION_FIELDS, "options")
        players = parse_players(opts.get("players", ["P1", "P2"]), 2, 4)
        lone = opts.get("lone_token", "zero")
        if lone not in ("zero", "face"):
            raise RecordError(f"lone_token: expected 'zero' or 'face', got {lone!r}")
        least = opts.get("exchange_min_bag", 5)
        if isinstance(least, bool) or not isinstance(least, int) or least < 1:
            raise RecordError(f"exchange_min_bag: expected a number >= 1, got {least!r}")
        first = opts.get("first")
        if first is not None and first not in players:
            raise RecordError(f"first: not a player: {first!r}")
        stall = opts.get("stall_rounds", 2)
        if isinstance(stall, bool) or not isinstance(stall, int) or stall < 1:
            raise RecordError(f"stall_rounds: expected a number >= 1, got {stall!r}")
        return cls(tuple(players), lone, least, first, stall)


# --------------------------------------------------------------------------- game


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


class TrioletGame(Game[Action]):
    """Options and the factory of Triolet states."""

    name: ClassVar[str] = "triolet"

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        super().__init__(options)
        self.rules = Rules.from_options(self.options)
        self.players: tuple[str, ...] = self.rules.players

    def new_initial_state(
        self, rng: random.Random, position: Mapping[str, JSON] | None = None
    ) -> TrioletState:
        state = TrioletState(self, shuffle_seed=rng.getrandbits(63))
        if position is None:
            state.deal(rng)
        else:
            state.set_up(position, rng)
        return state

    def parse_action(self, obj: JSON) -> Action:
        return parse_action(obj)

    def action_to_json(self, action: Action) -> JSON:
        return action_to_json(action)

    def load(self, data: Mapping[str, JSON]) -> TrioletState:
        try:
            check_keys(data, DUMP_FIELDS, "dump", required=DUMP_FIELDS)
            if data["options"] != self.options:
                raise RecordError("dump: made with other options")
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
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, RecordError):
                raise
            raise RecordError(f"dump: malformed ({err})") from err
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
        """Start from a RECORDS.md ``position``: taken as given, but its tokens must exist."""
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
            raise GameOverError("the game is over")
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
                raise IllegalMoveError("pass: an exchange is possible (L14)")
            if self.can_play(seat):
                raise IllegalMoveError(f"pass: {name} can still play (L14)")
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
                    f"{self.players[seat]} holds no token {token_name(t)} to use"
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
        if not self.can_exchange():
            raise IllegalMoveError(
                f"exchange: the bag holds {len(self.bag)} tokens, "
                f"at least {self.rules.exchange_min_bag} are needed (L13)"
            )
        if len(self.bag) < len(action.tokens):
            raise IllegalMoveError("exchange: the bag holds fewer tokens than given back (L13)")
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


