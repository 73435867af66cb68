"""Trigono states built from data: a record's ``position`` (a rule-book situation in the
middle of a round) and a :meth:`TrigonoState.dump`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engines.core import JSON, RecordError, check_keys

if TYPE_CHECKING:  # the game module calls these functions: import it for types only
    from engines.trigono.game import TrigonoGame, TrigonoState

DUMP_FIELDS = (
    "options",
    "first",
    "round",
    "starter",
    "rounds_won",
    "round_results",
    "hands",
    "eliminated",
    "boards",
    "floor",
    "holes",
    "phase",
    "target",
    "finalists",
    "final_throws",
    "steps",
    "to_move",
    "winner",
    "log",
    "events",
)


def set_position(state: TrigonoState, position: Mapping[str, JSON]) -> None:
    """Set up a rule-book situation in the middle of a round (phase normal).

    Fields, all optional: ``hands`` {player: n} (others hold ``palets_per_player``),
    ``boards`` {board: n}, ``floor`` n, ``holes`` {hole: pending n}, ``eliminated``
    [players] (3+ players, empty hands), ``to_move`` (default: the first thrower; also
    the round's starter), ``round`` and ``rounds_won``. A situation where the round is
    already over or is a final is refused.

    >>> import random
    >>> from engines.trigono.actions import Throw
    >>> from engines.trigono.game import TrigonoGame
    >>> game = TrigonoGame({"players": ["Ana", "Ben"], "first": "Ana"})
    >>> s = game.new_initial_state(random.Random(0), {"hands": {"Ana": 1}, "boards": {"B1": 4}})
    >>> s.apply(Throw("Ana", "B1.big"))
    >>> s.hands, s.log[-1]["points"]
    ({'Ana': 5, 'Ben': 10}, 5)
    """
    opts = state.game.opts
    raw = check_keys(
        dict(position),
        ("hands", "boards", "floor", "holes", "eliminated", "to_move", "round", "rounds_won"),
        "position",
    )

    def counts(field: str, names: tuple[str, ...], base: dict[str, int]) -> dict[str, int]:
        given = check_keys(raw.get(field, {}), names, f"position.{field}")
        out = dict(base)
        for key, value in given.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RecordError(
                    f"position.{field}.{key}: expected a count >= 0, got {value!r}"
                )
            out[key] = value
        return out

    hands = counts("hands", opts.players, state.hands)
    boards = counts("boards", opts.layout.board_ids, state.boards)
    holes = counts("holes", opts.layout.holes, state.holes)
    floor = raw.get("floor", 0)
    if isinstance(floor, bool) or not isinstance(floor, int) or floor < 0:
        raise RecordError(f"position.floor: expected a count >= 0, got {floor!r}")
    rounds_won = counts("rounds_won", opts.players, state.rounds_won)
    if any(n >= opts.rounds_to_win for n in rounds_won.values()):
        raise RecordError("position.rounds_won: the match would already be over (T18)")
    round_no = raw.get("round", 1)
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
        raise RecordError(f"position.round: expected an integer >= 1, got {round_no!r}")
    eliminated = raw.get("eliminated", [])
    if not isinstance(eliminated, list) or any(p not in opts.players for p in eliminated):
        raise RecordError(
            f"position.eliminated: expected a list of players, got {eliminated!r}"
        )
    if eliminated and len(opts.players) < 3:
        raise RecordError("position.eliminated: nobody is eliminated with two players (T14)")
    for player in opts.players:
        if player in eliminated and hands[player]:
            raise RecordError(f"position: {player} is eliminated but holds palets")
        if player not in eliminated and not hands[player]:
            raise RecordError(
                f"position: {player} holds no palet (the round would be over)"
                if len(opts.players) == 2
                else f"position: {player} holds no palet: list them in eliminated"
            )
    remaining = [p for p in opts.players if p not in eliminated]
    if len(remaining) < 2:
        raise RecordError("position: the round would already be over (T15)")
    if len(remaining) == 2 and len(opts.players) >= 3 and opts.has_finals:
        raise RecordError("position: two players left would be a final (T17); not supported")
    to_move = raw.get("to_move", state.to_move)
    if to_move not in remaining:
        raise RecordError(
            f"position.to_move: expected a player still in the round, got {to_move!r}"
        )
    state.hands, state.boards, state.holes, state.floor = hands, boards, holes, floor
    state.rounds_won, state.round = rounds_won, round_no
    state.eliminated = [p for p in opts.players if p in eliminated]
    if opts.steps_back and opts.step_back_m > 0:
        state.steps = len(state.eliminated)  # T16: one step per elimination so far
    state.to_move = state.starter = to_move


def checked_dump(game: TrigonoGame, data: Mapping[str, JSON]) -> dict[str, Any]:
    """``data`` if it is a :meth:`TrigonoState.dump` made with ``game``'s options."""
    raw = check_keys(dict(data), DUMP_FIELDS, "state", required=DUMP_FIELDS)
    if raw["options"] != game.opts.to_json():
        raise RecordError("state: it was dumped with other options")
    if raw["first"] not in game.opts.players:
        raise RecordError(f"state: unknown first player {raw['first']!r}")
    return raw


def restore(state: TrigonoState, raw: Mapping[str, Any]) -> None:
    """Give a new state (started by ``raw["first"]``) the rest of a :func:`checked_dump`."""
    game = state.game
    state.round = int(raw["round"])
    state.starter = raw["starter"]
    state.rounds_won = dict(raw["rounds_won"])
    state.round_results = copy_json(raw["round_results"])
    state.hands = dict(raw["hands"])
    state.eliminated = list(raw["eliminated"])
    state.boards = dict(raw["boards"])
    state.floor = int(raw["floor"])
    state.holes = dict(raw["holes"])
    state.phase = raw["phase"]
    state.target = raw["target"]
    state.finalists = list(raw["finalists"])
    state.final_throws = int(raw["final_throws"])
    state.steps = int(raw["steps"])
    state.to_move = raw["to_move"]
    state.winner_name = raw["winner"]
    state.log = copy_json(raw["log"])
    state.events = copy_json(raw["events"])
    if set(state.hands) != set(game.opts.players) or set(state.holes) != set(
        game.opts.layout.holes
    ):
        raise RecordError("state: hands or holes do not match the options")


def copy_json(obj: Any) -> Any:
    """A copy of a JSON value (dicts and lists copied all the way down)."""
    if isinstance(obj, dict):
        return {k: copy_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [copy_json(v) for v in obj]
    return obj
