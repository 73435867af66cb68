"""The shape every rule engine shares (docs/design.md §3, after OpenSpiel and python-chess).

A :class:`Game` holds the rules and options and makes initial states; a :class:`State`
is one position with the same few methods in every game; actions are small immutable
value objects with a JSON form (the record notation of docs/records.md) and a short text
notation. Randomness comes only from a :class:`random.Random` passed in, so
``game + options + seed + actions`` replays a game exactly.

Each game registers one :class:`GameSpec` (its Game and State classes, its notation, its
bot and its analysis); :data:`engines.GAMES` maps record names to them, so callers never
look a game up by module name or probe it with ``getattr``.

Errors are typed and all subclass :class:`ValueError`:

>>> issubclass(IllegalMoveError, ValueError) and issubclass(RecordError, ValueError)
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Protocol, TypeVar

JSON = Any
"""A value made of dicts, lists, str, int, float, bool and None."""


class GameError(ValueError):
    """Base of every error an engine raises about its input.

    ``str(err)`` is one English line (what ``trigono replay`` prints); the refusals a
    player meets also carry a ``kind`` (``"<game>.<why>"``, or a word all games share) and
    its ``params`` (JSON values), so a page can say them in its own language (the web's
    ``engine.<kind>``). ``kind`` is None when the message is all there is.

    >>> err = IllegalMoveError("c3 is occupied", "trike.occupied", cell="c3")
    >>> str(err), err.kind, err.params
    ('c3 is occupied', 'trike.occupied', {'cell': 'c3'})
    """

    kind: str | None = None
    params: Mapping[str, JSON] = MappingProxyType({})  # also for subclasses with their own __init__

    def __init__(self, message: str = "", kind: str | None = None, **params: JSON) -> None:
        super().__init__(message)
        self.kind = kind
        self.params = params


class RecordError(GameError):
    """A record, an option, a position or an action is malformed (bad shape, unknown field)."""


class InvalidMoveError(GameError):
    """An action's notation cannot be parsed."""


class IllegalMoveError(GameError):
    """An action is well formed but not allowed in this state."""


class GameOverError(IllegalMoveError):
    """An action was given after the game (or match) ended."""


ActionT = TypeVar("ActionT")


def check_keys(obj: JSON, allowed: Sequence[str], what: str, required: Sequence[str] = ()) -> dict[str, Any]:
    """Return ``obj`` as a dict after checking it has only ``allowed`` keys and all ``required``.

    >>> check_keys({"a": 1}, ["a", "b"], "options")
    {'a': 1}
    >>> check_keys({"c": 1}, ["a"], "options")
    Traceback (most recent call last):
    ...
    engines.core.RecordError: options: unknown field 'c'
    """
    if not isinstance(obj, dict):
        raise RecordError(f"{what}: expected an object, got {type(obj).__name__}")
    for key in obj:
        if key not in allowed:
            raise RecordError(f"{what}: unknown field {key!r}")
    for key in required:
        if key not in obj:
            raise RecordError(f"{what}: missing field {key!r}")
    return obj


def one_entry(obj: JSON, kinds: Sequence[str], what: str) -> tuple[str, JSON]:
    """The only ``(key, value)`` of ``obj``, an object with exactly one of ``kinds`` (the
    record notation of an action: ``{"pass": true}``).

    >>> one_entry({"draw": True}, ("place", "draw", "pass"), "action")
    ('draw', True)
    >>> one_entry({}, ("place", "draw", "pass"), "action")
    Traceback (most recent call last):
    ...
    engines.core.RecordError: action: expected exactly one of place, draw, pass
    """
    body = check_keys(obj, kinds, what)
    if len(body) != 1:
        raise RecordError(f"{what}: expected exactly one of {', '.join(kinds)}")
    ((kind, value),) = body.items()
    return kind, value


def number_option(value: JSON, what: str, least: int) -> int:
    """``value`` if it is an integer (not a bool) of at least ``least``, else RecordError.

    >>> number_option(0, "stall_rounds", 1)
    Traceback (most recent call last):
    ...
    engines.core.RecordError: stall_rounds: expected a number >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise RecordError(f"{what}: expected a number >= {least}, got {value!r}")
    return value


def choice_option(value: JSON, what: str, allowed: Sequence[str]) -> str:
    """``value`` if it is one of the ``allowed`` words, else RecordError.

    >>> choice_option("face", "lone_token", ("zero", "face"))
    'face'
    >>> choice_option(["zero"], "lone_token", ("zero", "face"))
    Traceback (most recent call last):
    ...
    engines.core.RecordError: lone_token: expected 'zero' or 'face', got ['zero']
    """
    if value not in allowed:
        raise RecordError(f"{what}: expected {' or '.join(map(repr, allowed))}, got {value!r}")
    return str(value)


def flag_option(value: JSON, what: str) -> bool:
    """``value`` if it is true or false, else RecordError."""
    if not isinstance(value, bool):
        raise RecordError(f"{what}: expected true or false, got {value!r}")
    return value


class State(ABC, Generic[ActionT]):
    """One position of a game. Mutable; :meth:`clone` gives an independent copy."""

    game: Game[ActionT]
    players: Sequence[str]
    """The players' names in seat order (``options.players``); fixed for the whole game."""

    @abstractmethod
    def current_player(self) -> str | None:
        """The name of the player to act, or None when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[ActionT]:
        """Every action allowed now (empty when the game is over).

        Games whose actions come from the physical world (Trigono) return the actions the
        current player could report; the list need not be exhaustive there.
        """

    @abstractmethod
    def apply(self, action: ActionT) -> None:
        """Apply a legal action, or raise :class:`IllegalMoveError` and change nothing."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game (for Trigono: the match) is over."""

    @abstractmethod
    def scores(self) -> dict[str, float]:
        """Points per player so far (the final scores when terminal)."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The printed state of docs/records.md: ``game``, ``status``, ``to_move``, ``scores``,
        ``winner``, ``log`` and the game's own fields."""

    @abstractmethod
    def dump(self) -> dict[str, JSON]:
        """Everything needed to rebuild this exact state (hidden information included)."""

    @abstractmethod
    def clone(self) -> State[ActionT]:
        """An independent copy."""

    def winner(self) -> str | None:
        """The winner's name once the game is over, else None."""
        return None

    def observation(self, player: str | None) -> dict[str, JSON]:
        """What ``player`` may see: :meth:`to_json` without the information hidden from
        them (other players' racks become lists of ``None`` of the same length, tokens
        others put back in an exchange become ``None``). ``None`` is a spectator and sees
        public information only. The printed state never shows the seed or the order of
        a bag or pool (only their counts), so neither does an observation.

        Games with no hidden information (Trigono, Trike) return :meth:`to_json` as is.
        ``player`` is a name, as :meth:`current_player` gives and logs record (not a seat
        index); a name that is not a player raises :class:`RecordError`.
        """
        self.check_viewer(player)
        return self.to_json()

    def check_viewer(self, player: str | None) -> None:
        """RecordError unless ``player`` is None (a spectator) or one of :attr:`players`."""
        if player is not None and player not in self.players:
            raise RecordError(f"observation: {player!r} is not a player")

    def ranking(self) -> list[list[str]]:
        """The final standing of a terminal state: groups of players, best first; players
        in one group tied (seat order within a group). This default ranks by
        :meth:`scores` (highest first), which is the match result in every game:
        Trigono's rounds won (the match winner alone first), Triominos and Triolet
        points, Trike stones around the pawn (never tied: the winner, then the loser).
        Raises :class:`IllegalMoveError` before the end.
        """
        if not self.is_terminal():
            raise IllegalMoveError("ranking: the game is not over", "not_over")
        return rank_by_score(self.players, self.scores())

    def parse_action(self, obj: JSON) -> ActionT:
        """Parse an action given in the record notation (JSON), raising RecordError/InvalidMoveError."""
        return self.game.parse_action(obj)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.dump() == other.dump()

    __hash__ = None  # type: ignore[assignment]


class Game(ABC, Generic[ActionT]):
    """Rules plus options; the factory of initial states.

    A subclass names its ``actions`` module as :attr:`notation`, which gives
    :meth:`parse_action` and :meth:`action_to_json`.
    """

    name: ClassVar[str]
    notation: Notation[ActionT]
    """The game's ``actions`` module: the docs/records.md notation of an action."""

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        self.options: dict[str, JSON] = dict(options or {})

    @abstractmethod
    def new_initial_state(
        self, rng: random.Random, position: Mapping[str, JSON] | None = None
    ) -> State[ActionT]:
        """The start of a game: dealt with ``rng``, or set up from a record's ``position``."""

    def parse_action(self, obj: JSON) -> ActionT:
        """An action from its record notation (JSON); raises RecordError/InvalidMoveError.
        A game whose notation depends on its options (Trike's board size) checks that here."""
        return self.notation.parse_action(obj)

    def action_to_json(self, action: ActionT) -> JSON:
        """An action in its record notation (inverse of :meth:`parse_action`)."""
        return self.notation.action_to_json(action)

    @abstractmethod
    def load(self, data: Mapping[str, JSON]) -> State[ActionT]:
        """Rebuild a state from :meth:`State.dump`."""


def rank_by_score(players: Sequence[str], scores: Mapping[str, float]) -> list[list[str]]:
    """Players grouped by score, highest first; ties share a group, in seat order.

    >>> rank_by_score(["Ana", "Ben", "Cy"], {"Ana": 3, "Ben": 7, "Cy": 3})
    [['Ben'], ['Ana', 'Cy']]
    """
    levels = sorted({scores[p] for p in players}, reverse=True)
    return [[p for p in players if scores[p] == level] for level in levels]


def hide_racks(printed: dict[str, JSON], player: str | None) -> dict[str, JSON]:
    """An observation for games with racks (Triominos, Triolet): ``printed`` (a fresh
    :meth:`State.to_json`, changed in place) with every rack but ``player``'s turned into
    ``None`` tiles and the tokens others put back in an exchange hidden.

    >>> printed = {"racks": {"Ana": ["0-1-2"], "Ben": ["1-1-1", "2-3-4"]},
    ...            "log": [{"player": "Ana", "action": {"exchange": [3, 5]}, "points": 0}]}
    >>> seen = hide_racks(printed, "Ben")
    >>> seen["racks"], seen["log"][0]["action"]
    ({'Ana': [None], 'Ben': ['1-1-1', '2-3-4']}, {'exchange': [None, None]})
    """
    racks = printed["racks"]
    assert isinstance(racks, dict)
    printed["racks"] = {p: rack if p == player else [None] * len(rack) for p, rack in racks.items()}
    log = printed["log"]
    assert isinstance(log, list)
    for entry in log:
        action = entry["action"]
        if entry["player"] != player and isinstance(action, dict) and "exchange" in action:
            entry["action"] = {"exchange": [None] * len(action["exchange"])}
    return printed


StateT = TypeVar("StateT", bound=State[Any])


@dataclass(frozen=True)
class Bot(Generic[StateT, ActionT]):
    """A game's computer opponent (``engines/<game>/bot.py``).

    ``choose(state, rng, budget_s)`` returns a legal action for the player to move,
    searching about ``budget_s`` seconds with randomness from ``rng`` only;
    ``hint(state, budget_s)`` returns at least ``{"action": <record notation>, "why":
    <short text>}`` for the player to move.
    """

    choose: Callable[[StateT, random.Random, float], ActionT]
    hint: Callable[[StateT, float], dict[str, JSON]]


@dataclass(frozen=True)
class GameType:
    """What a game is, as data (after OpenSpiel's ``GameType``): what the hub and the pages
    branch on, never the game's name (tests/test_game_names.py). Its :meth:`to_json` goes
    in every table view as ``capabilities`` (with what the spec adds, :meth:`GameSpec.capabilities`).

    - ``renderer``: the page module drawing the game, ``web/static/games/<renderer>.js``
      (web/GAMES.md; ``fallback.js`` while it does not exist).
    - ``drawing``: the geometry the hub works out for the pages (hub/tables/drawing.py):
      ``"board_layout"`` (sensor boards, their holes and jackpots), ``"tile_cells"``
      (triangles a tile is on or may go), ``"hex_triangle"`` (a triangle of hexagons),
      ``"fixed_board"`` (:attr:`GameSpec.fixed_board`), or None (drawn from the state).
    - ``sensor_boards``: played with palets on sensor boards: a table binds physical
      boards, the hub referees what they report (hub/tables/referee.py), the pages show
      the boards' layout, people watch the play page (they do not play on it), and there
      is no game against the computer.
    - ``turn``: what a player does in turn, ``"move"`` or ``"throw"`` (the pages say
      ``table.to_<turn>``); ``ends``: what ends, ``"game"`` or ``"match"``
      (``table.<ends>_over``).
    - ``rounds``: a match of rounds: the pages show the round, rounds won, who is out.
    - ``tally``: the printed state's field, per player, a seat's line shows:
      ``"scores"`` (points) or ``"hands"`` (palets still in hand).
    - ``min_players`` / ``max_players``: seats (None: no fixed maximum, Trigono's
      boards decide, T3).

    >>> GameType("trike", min_players=2, max_players=2).to_json()["turn"]
    'move'
    """

    renderer: str
    drawing: str | None = None
    sensor_boards: bool = False
    turn: str = "move"
    ends: str = "game"
    rounds: bool = False
    tally: str = "scores"
    min_players: int = 2
    max_players: int | None = None

    def to_json(self) -> dict[str, JSON]:
        return {"renderer": self.renderer, "drawing": self.drawing, "sensor_boards": self.sensor_boards,
                "turn": self.turn, "ends": self.ends, "rounds": self.rounds, "tally": self.tally,
                "min_players": self.min_players, "max_players": self.max_players}


PlaceLabel = tuple[str, dict[str, JSON]]
"""A place a game's actions name, as pages word it: a kind and its parameters
(``("big", {"board": "B1"})``; the web's catalogue key ``where.<kind>``)."""


@dataclass(frozen=True)
class PlayerStats:
    """What one game's log says of each player (issue 34.4), as whole counts that add up
    across games: ``count(state, actions)`` applies ``actions`` to ``state`` (a record's
    initial state) and returns ``{player: {counter: n}}``; ``ratios`` name the shares a
    page shows, ``(name, numerator, denominator)`` over the summed counters (a share of
    sums, never an average of shares)."""

    count: Callable[[Any, Sequence[JSON]], dict[str, dict[str, int]]]
    ratios: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class GameSpec(Generic[StateT, ActionT]):
    """One game's registration: everything a caller needs, by name, with no probing.

    - ``name``: the record name (``"trike"``) and ``game``/``state``: its classes.
    - ``game_type``: what the game is (:class:`GameType`): what callers branch on.
    - ``parse_action(obj)`` / ``action_to_json(action)``: the docs/records.md notation of an
      action, needing no options (a log can be read without the game); the Game's
      methods of the same names also check the action against its options (board size).
    - ``bot``: the computer opponent, or None (Trigono is played by people).
    - ``analyze(state, budget_s)``: ``trigono analyze``'s report, or None when the
      game has none.
    - ``always_a_winner``: every finished game has a single first (Trigono: play goes
      on until one player has won the rounds needed), so a result with a shared first
      place is a typing error, never a tie.
    - ``scoreboard(printed)``: a few lines of plain text for a printed state
      (:meth:`State.to_json`), or None when the game has none (Trigono has one).
    - ``hexagon_boards(prefix)``: for games played on physical boards (Trigono), the
      options ``boards`` of the standard table, six boards around one vertex with ids
      ``<prefix>1`` … ``<prefix>6``; None for the others.
    - ``fixed_board()``: for games on a fixed grid (Triolet), what a page draws of it —
      its columns, rows and bonus cells; None for the others.
    - ``place_label(where)``: for games whose actions name places (Trigono's holes,
      boards and floor), the :data:`PlaceLabel` of a place id; None for the others.
    - ``detailed_ranking(printed)``: a finer ranking of a finished game than its scores
      (a tournament's ``trigono_detailed``), or None.
    - ``short_options``: options for a short game (the simulated tournaments).
    - ``player_stats``: what a game's log says of each player (:class:`PlayerStats`:
      Trigono's holes and finals, Triominos' points per tile...), or None.
    """

    name: str
    game: type[Game[ActionT]]
    state: type[StateT]
    parse_action: Callable[[JSON], ActionT]
    action_to_json: Callable[[ActionT], JSON]
    game_type: GameType
    bot: Bot[StateT, ActionT] | None = None
    analyze: Callable[[StateT, float], dict[str, JSON]] | None = None
    always_a_winner: bool = False
    scoreboard: Callable[[Mapping[str, JSON]], str] | None = None
    hexagon_boards: Callable[[str], list[dict[str, JSON]]] | None = None
    fixed_board: Callable[[], dict[str, JSON]] | None = None
    place_label: Callable[[str], PlaceLabel] | None = None
    detailed_ranking: Callable[[Mapping[str, JSON]], list[list[str]]] | None = None
    short_options: Mapping[str, JSON] = field(default_factory=lambda: MappingProxyType({}))
    player_stats: PlayerStats | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> GameSpec[StateT, ActionT]:
        return self  # one registration per game, never changed: copies of a table share it

    def capabilities(self) -> dict[str, JSON]:
        """What a page may know of the game (in every table view, and the hub's
        ``game_types()``): its :class:`GameType` and which optional parts it has.

        >>> from engines import game_spec
        >>> caps = game_spec("trike").capabilities()
        >>> caps["renderer"], caps["bot"], caps["sensor_boards"], caps["hexagon"]
        ('trike', True, False, False)
        """
        return {**self.game_type.to_json(), "bot": self.bot is not None, "hexagon": self.hexagon_boards is not None,
                "detailed_ranking": self.detailed_ranking is not None}


class Notation(Protocol[ActionT]):
    """A game's ``actions`` module, as far as its registration needs it."""

    def parse_action(self, obj: JSON, /) -> ActionT: ...

    def action_to_json(self, action: ActionT, /) -> JSON: ...


StateT_contra = TypeVar("StateT_contra", bound=State[Any], contravariant=True)
ActionT_co = TypeVar("ActionT_co", covariant=True)


class BotModule(Protocol[StateT_contra, ActionT_co]):
    """A game's ``bot`` module (see :class:`Bot`), as far as its registration needs it."""

    def choose(self, state: StateT_contra, rng: random.Random, budget_s: float, /) -> ActionT_co: ...

    def hint(self, state: StateT_contra, budget_s: float, /) -> dict[str, JSON]: ...


def build_spec(
    name: str,
    game: type[Game[ActionT]],
    state: type[StateT],
    actions: Notation[ActionT],
    bot: BotModule[StateT, ActionT] | None = None,
    analyze: Callable[[StateT, float], dict[str, JSON]] | None = None,
    *,
    game_type: GameType,
    always_a_winner: bool = False,
    scoreboard: Callable[[Mapping[str, JSON]], str] | None = None,
    hexagon_boards: Callable[[str], list[dict[str, JSON]]] | None = None,
    fixed_board: Callable[[], dict[str, JSON]] | None = None,
    place_label: Callable[[str], PlaceLabel] | None = None,
    detailed_ranking: Callable[[Mapping[str, JSON]], list[list[str]]] | None = None,
    short_options: Mapping[str, JSON] | None = None,
    player_stats: PlayerStats | None = None,
) -> GameSpec[StateT, ActionT]:
    """A game package's :class:`GameSpec`, from its classes and its ``actions`` and
    ``bot`` modules (the notation and the opponent are those modules' functions).

    >>> from engines.trike import actions, bot, game
    >>> spec = build_spec("trike", game.TrikeGame, game.TrikeState, actions, bot, game_type=GameType("trike"))
    >>> spec.action_to_json(spec.parse_action("c2")), spec.bot is not None, spec.analyze
    ('c2', True, None)
    """
    opponent = None if bot is None else Bot(bot.choose, bot.hint)
    return GameSpec(name, game, state, actions.parse_action, actions.action_to_json, game_type, opponent, analyze,
                    always_a_winner, scoreboard, hexagon_boards, fixed_board, place_label, detailed_ranking,
                    MappingProxyType(dict(short_options or {})), player_stats)


class SeatScoreState(State[ActionT]):
    """A state for games scored in points per seat (Triominos, Triolet).

    Subclasses keep ``players`` (seat order), ``score_list`` (points per seat), ``to_move``
    (a seat) and ``over``; the winner is the single highest score (a tie has none). Their
    printed state has ``racks`` {player: [tiles]}, hidden from the others in an
    observation (:func:`hide_racks`).
    """

    players: Sequence[str]
    score_list: list[int]
    to_move: int
    over: bool

    def current_player(self) -> str | None:
        return None if self.over else self.players[self.to_move]

    def is_terminal(self) -> bool:
        return self.over

    def observation(self, player: str | None) -> dict[str, JSON]:
        self.check_viewer(player)
        return hide_racks(self.to_json(), player)

    def scores(self) -> dict[str, float]:
        return {p: s for p, s in zip(self.players, self.score_list, strict=True)}

    def winner(self) -> str | None:
        if not self.over:
            return None
        best = max(self.score_list)
        leaders = [p for p, s in zip(self.players, self.score_list, strict=True) if s == best]
        return leaders[0] if len(leaders) == 1 else None

    @abstractmethod
    def deal(self, rng: random.Random) -> None:
        """Start a new game (a new state, not yet dealt): racks, bag or pool, first player."""

    @abstractmethod
    def set_up(self, position: Mapping[str, JSON], rng: random.Random) -> None:
        """Start a new state from a docs/records.md ``position`` instead (``rng``: whatever the
        position leaves to chance)."""

    def set_position_scores(self, position: Mapping[str, JSON]) -> None:
        """Read a record position's ``scores`` {player: int} and ``to_move`` (default seat 0)."""
        scores = check_keys(position.get("scores", {}), self.players, "position.scores")
        for seat, name in enumerate(self.players):
            value = scores.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int):
                raise RecordError(f"position.scores.{name}: expected an integer")
            self.score_list[seat] = value
        to_move = position.get("to_move", self.players[0])
        if to_move not in self.players:
            raise RecordError(f"position.to_move: unknown player {to_move!r}")
        self.to_move = self.players.index(to_move)


SeatStateT = TypeVar("SeatStateT", bound=SeatScoreState[Any])


class SeatScoreGame(Game[ActionT], Generic[ActionT, SeatStateT]):
    """The Game of a :class:`SeatScoreState` (Triominos, Triolet): a state is made with
    a seed drawn from the ``rng`` (for the shuffles to come), then dealt or set up from a
    record's position; a dump holds :attr:`dump_fields`, checked by :func:`load_dump`.
    """

    dump_fields: ClassVar[tuple[str, ...]]
    """The keys of the state's :meth:`State.dump`, ``"options"`` first."""

    def new_initial_state(
        self, rng: random.Random, position: Mapping[str, JSON] | None = None
    ) -> SeatStateT:
        state = self.seeded_state(rng.getrandbits(63))
        if position is None:
            state.deal(rng)
        else:
            state.set_up(position, rng)
        return state

    def load(self, data: Mapping[str, JSON]) -> SeatStateT:
        return load_dump(self, data, self.dump_fields, self.rebuild)

    @abstractmethod
    def seeded_state(self, seed: int) -> SeatStateT:
        """A new state of this game with its seed, before the deal."""

    @abstractmethod
    def rebuild(self, data: Mapping[str, JSON]) -> SeatStateT:
        """The state a dump describes (the dump's fields already checked)."""


LoadedT = TypeVar("LoadedT")


def load_dump(
    game: Game[Any],
    data: Mapping[str, JSON],
    fields: Sequence[str],
    build: Callable[[Mapping[str, JSON]], LoadedT],
) -> LoadedT:
    """The scaffolding of :meth:`Game.load` for dumps ``{"options", ...fields}``: check
    the fields and that the dump was made with ``game``'s options, then ``build`` the
    state; any KeyError, TypeError or ValueError while building becomes a RecordError
    (tests/engines/test_core.py).
    """
    check_keys(data, fields, "dump", required=fields)
    if data["options"] != game.options:
        raise RecordError("dump: made with other options")
    try:
        return build(data)
    except RecordError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"dump: malformed ({err})") from err


@dataclass(frozen=True)
class Pass:
    """The turn ends with nothing played (Triominos M9/M10, Triolet L14); ``{"pass": true}``.

    >>> Pass.from_str("pass")
    Pass()
    """

    def to_str(self) -> str:
        return "pass"

    @classmethod
    def from_str(cls, text: str) -> Pass:
        if text != "pass":
            raise InvalidMoveError(f"not a pass: {text!r}")
        return cls()


def parse_players(value: JSON, low: int, high: int) -> list[str]:
    """The ``players`` option: ``low`` to ``high`` distinct non-empty names in seat order.

    >>> parse_players(["Ana", "Ben"], 2, 4)
    ['Ana', 'Ben']
    >>> parse_players(["Ana"], 2, 4)
    Traceback (most recent call last):
    ...
    engines.core.RecordError: players: 2 to 4 players, got 1
    """
    if (
        not isinstance(value, list)
        or not all(isinstance(p, str) and p for p in value)
        or len(set(value)) != len(value)
    ):
        raise RecordError("players: expected a list of distinct non-empty names")
    if not low <= len(value) <= high:
        raise RecordError(f"players: {low} to {high} players, got {len(value)}")
    return value
