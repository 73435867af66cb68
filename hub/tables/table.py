"""Tables: one game of any registered engine, driven by log entries (R1).

A table is a pure fold over its entries: ``apply_entry`` is deterministic given the
table and the entry (times come from the entry, never from the clock), so replaying the
log — from the start or from a snapshot — rebuilds exactly the same table. The game
itself is held as a list of actions in the record notation (docs/records.md); corrections
(undo, amend) change that list and the engine state is rebuilt from it, so the export is
always a replayable record.

Games other than Trigono need nothing from the hub but the engine contract: moves come
as ``{"move": ACTION}`` and bots through the game's registration (``GameSpec.bot``).

*Inputs* (:meth:`Hub.submit`): a dict with one of these keys (plus optional ``"by"``,
who sent it, and ``"player"``, the player it is sent for: a move sent for a player who
is not to move is refused):

- ``{"answer": {"prompt": "p7", "choice": X}}`` — answer an open prompt;
- ``{"landed": "board:B1" | "floor" | HOLE}`` — Trigono: where the palet of the player
  to throw came to rest (a hole when the sensors missed it);
- ``{"invalid": True}`` — Trigono: the open (or else the last) drop bounced on the
  floor first (T10);
- ``{"undo": True}`` — take back the last action (a new log entry, R1);
- ``{"void": ENTRY_ID}`` — Trigono: a sensor event did not happen (its drop, knock-in or
  block is removed from what was derived from it);
- ``{"recount": {"board": "B1", "count": 3}}`` — Trigono: palets counted on a board; a
  mismatch raises an alert naming the difference;
- ``{"amend": {"index": K, "action": ACTION}}`` — replace action K of the game record;
- ``{"target": HOLE}`` — Trigono: the finalist's target (T17);
- ``{"next_round": True}`` — Trigono: palets are collected, arm the sensors again;
- ``{"move": ACTION}`` — a move in the game's record notation (any game);
- ``{"hint": True}`` — ask the game's bot for a hint (shown in the view's ``hint``).
- ``{"abandon": True}`` — end the table without a result (its match was sent back to a
  queue or replayed elsewhere): nothing more is played, its boards may be bound to
  another table;
- ``{"decided": {"ranking": [[NAME, ...], ...]}}`` — end the table with a result given
  off it (a tournament match entered by hand or decided by a forfeit): the ranking is
  kept as the table's result (``decided`` in its view and summary, whose ``status`` then
  reads ``decided``), nothing more is played, its boards may be bound to another table;
- ``{"archive": True | False}`` — put the table away from the live ones (any game, any
  time; false brings it back): ``archived`` in its summary and view.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Self

from engines import GAMES, game_spec
from engines.core import Bot, Game, GameError, GameOverError, State, check_keys
from engines.records import initial_state
from hub.errors import BadInputError, RefusedError
from hub.log.store import Entry
from hub.tables import drawing
from hub.tables.moments import Moments, actor, after_action, place_labels

MAX_EVENTS = 60  # events kept for the view
MAX_ALERTS = 50


def game_bot(game: str) -> Bot[Any, Any] | None:
    """The computer opponent of a registered game, or None when it has none."""
    return GAMES[game].bot


INPUT_EXTRAS = ("by", "player")
SNAPSHOT_FORMAT = 2
"""What :meth:`Table.dump` writes. 1 (no ``format`` field): events and alerts held an
English ``text`` and a device's ``by`` was a sentence ("button floor on B1"). A snapshot
is only a cache of the log (R1): one of another format is not read, the table is folded
again from its entries (hub/tables/tableset.py), so an old hub's log shows as a new
hub would have built it."""


def parse_input(inp: Any) -> dict[str, Any]:
    """The body of an input's log entry: ``{"input": {KEY: VALUE}}`` plus ``by`` and
    ``player`` when given; BadInputError unless there is exactly one action key.

    >>> parse_input({"move": "b2", "player": "Ana"})
    {'input': {'move': 'b2'}, 'player': 'Ana'}
    """
    if not isinstance(inp, Mapping):
        raise BadInputError("an input is an object")
    keys = [k for k in inp if k not in INPUT_EXTRAS]
    if len(keys) != 1:
        raise BadInputError("an input has exactly one action key (plus optional by, player)")
    body: dict[str, Any] = {"input": {keys[0]: inp[keys[0]]}}
    for extra in INPUT_EXTRAS:
        if extra in inp:
            if not isinstance(inp[extra], str):
                raise BadInputError(f"{extra}: expected a string")
            body[extra] = inp[extra]
    return body


def engine_reason(err: GameError) -> dict[str, Any]:
    """An engine's refusal as params of the hub's own: ``reason`` (the engine's English
    line) and, when the engine names it, ``why`` (its kind) with ``why_params``, for pages
    to say it in their language (the web's ``engine.<why>``).

    >>> from engines.core import IllegalMoveError
    >>> engine_reason(IllegalMoveError("c3 is occupied", "trike.occupied", cell="c3"))
    {'reason': 'c3 is occupied', 'why': 'trike.occupied', 'why_params': {'cell': 'c3'}}
    >>> engine_reason(IllegalMoveError("no"))
    {'reason': 'no'}
    """
    if err.kind is None:
        return {"reason": str(err)}
    return {"reason": str(err), "why": err.kind, "why_params": dict(err.params)}


def default_players(printed: Mapping[str, Any]) -> list[str]:
    """Player names from a printed state when no seats were given (the engine's default)."""
    for key in ("rounds_won", "scores", "colors", "racks", "hands"):
        value = printed.get(key)
        if isinstance(value, dict) and value:
            return list(value)
    return ["P1", "P2"]


class Table:
    """A table of any game: seats, the action list, the engine state, events and alerts."""

    def __init__(self, table_id: str, spec: Mapping[str, Any], created_at: float) -> None:
        """``spec`` is the body of the table's ``create`` entry (already validated)."""
        self.id = table_id
        self.spec = dict(spec)
        self.game_name: str = spec["game"]
        self.options: dict[str, Any] = dict(spec["options"])
        self.seed: int = spec["seed"]
        self.seats: list[dict[str, Any]] = list(spec["seats"])
        self.has_bots = any(seat["bot"] for seat in self.seats)
        self.created_at = created_at
        self.registration = game_spec(self.game_name)  # the game's parts and type (engines.GAMES)
        self.game: Game[Any] = self.registration.game(self.options)
        self.actions: list[dict[str, Any]] = []  # {"action": JSON, "src": [entry ids], "by": str}
        self.events: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []
        self._alert_keys: set[str] = set()  # the keys of the keyed alerts (one alert per key)
        self.applied_through = 0  # id of the last entry applied
        self.version = 0
        """Bumped by every entry applied but a board's health report: a console input
        names the version of the view it answers, and one answering an older view is
        refused (two referees answering one question: the first applies)."""
        self.hint: dict[str, Any] | None = None
        self.archived = False  # put away by the organizer: not among the live tables
        self.abandoned = False  # ended without a result: its boards are free again
        self.decided: list[list[str]] | None = None  # ended with a result given off the table
        self.commands: list[tuple[str, str]] = []
        """(board, command) the table asks the hub to send its boards once the entry that
        led to them is stored (:meth:`take_commands`); transient: a replay sends none."""
        self.state: State[Any] = self._initial()
        self._version = 0  # bumped whenever the state changes (printed-state cache key)
        self._printed: tuple[int, dict[str, Any]] | None = None
        self._legal: tuple[int, list[Any]] | None = None
        self.moments = Moments(self.registration.place_label)  # what just happened, for the pages (hub/tables/moments.py)

    # -- building ----------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The docs/records.md game record of this table."""
        return {
            "game": self.game_name,
            "options": self.options,
            "seed": self.seed,
            "actions": [a["action"] for a in self.actions],
        }

    def _initial(self) -> State[Any]:
        return initial_state({"game": self.game_name, "options": self.options, "seed": self.seed})

    def rebuild(self, actions: list[dict[str, Any]]) -> None:
        """Replace the action list and recompute the state; RefusedError (changing
        nothing) when an action would then be illegal."""
        state = self._initial()
        for index, item in enumerate(actions):
            try:
                state.apply(state.parse_action(item["action"]))
            except GameError as err:
                player, to_move = actor(item), state.current_player()
                if player is not None and to_move is not None and player != to_move:
                    # The usual case (a void or an undo shifts whose throw it is): said as
                    # names, so every page can word it (not the engine's English).
                    raise RefusedError(f"action {index} would be illegal: {err}", "would_be_out_of_turn",
                                       index=index, player=player, to_move=to_move, **engine_reason(err)) from None
                raise RefusedError(f"action {index} would be illegal: {err}", "would_be_illegal",
                                   index=index, **engine_reason(err)) from None
        old, self.actions, self.state = self.actions, actions, state
        self._version += 1
        self.moments.correct(old, actions)

    def play(self, action: Any, src: list[int], by: str) -> None:
        """Apply one action (record notation) to the state; RefusedError if illegal."""
        try:
            parsed = self.state.parse_action(action)
            self.state.apply(parsed)
        except GameError as err:
            kind = "game_over" if isinstance(err, GameOverError) else "illegal_move"
            raise RefusedError(str(err), kind, **engine_reason(err)) from None
        finally:
            self._version += 1  # apply raises before changing anything, but be safe
        self.actions.append({"action": self.game.action_to_json(parsed), "src": src, "by": by})
        entry, events = self.last_played()
        self.moments.add(after_action(entry, events, self.registration.place_label), len(self.actions) - 1)

    def last_played(self) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]]:
        """The engine's log entry of the last action and the structured events it caused
        (read, not copied: for :mod:`hub.tables.moments`)."""
        printed = self.printed()
        log = printed.get("log") or [{"player": None, "action": self.actions[-1]["action"]}]
        return log[-1], list(printed.get("last_events") or [])

    def trial(self) -> Self:
        """A copy to try an entry on before it is stored (``Hub._apply_checked``): the
        engine state cloned, each container the table changes copied one level deep
        (their items are replaced, never changed in place), spec, game and layout shared.
        ``copy.deepcopy`` took 1.4 ms of each console input (bench/web_stream.py)."""
        twin = copy.copy(self)
        twin.state = self.state.clone()
        twin.actions, twin.events, twin.alerts = list(self.actions), list(self.events), list(self.alerts)
        twin._alert_keys, twin.commands = set(self._alert_keys), list(self.commands)
        twin.moments = self.moments.copy()
        return twin

    # -- entries -----------------------------------------------------------------------
    def apply_entry(self, entry: Entry) -> None:
        """Apply one stored entry. Console inputs raise a HubError when refused (the
        hub then rolls the entry back); device entries never raise, they alert.

        An entry this table has folded already is skipped (each entry is applied once,
        R1): a sleeping table the ingest wakes for a board's late event reads that
        event from the store as it loads, before the ingest hands it over."""
        assert entry.id is not None
        if entry.id <= self.applied_through:
            return
        body = entry.body
        if entry.source == "device":
            self.on_device(entry)
        elif "settle" in body:
            self.on_timer(entry)
        else:
            self.on_input(entry)
        self.applied_through = entry.id
        if entry.source != "device" or entry.body.get("type") != "health":
            self.version += 1

    def on_device(self, entry: Entry) -> None:
        """A board's message routed to this table (only Trigono tables have boards)."""
        self.note(entry, "no_sensors", type=entry.body.get("type"))

    def on_timer(self, entry: Entry) -> None:
        """A decision of the hub's timers (Trigono settle windows)."""

    def on_input(self, entry: Entry) -> None:
        body = entry.body
        inp = body.get("input")
        if not isinstance(inp, dict) or len(inp) != 1:
            raise BadInputError("an input is an object with one key (see hub.facade)")
        (key, value), = inp.items()
        player = body.get("player")
        by = str(body.get("by") or entry.source)
        handler = getattr(self, f"input_{key}", None)
        if handler is None:
            raise BadInputError(f"unknown input {key!r} for a {self.game_name} table")
        if (self.abandoned or self.decided is not None) and key != "archive":
            how = "abandoned" if self.abandoned else "decided off the table"
            raise RefusedError(f"{key}: the table was {how}", "table_abandoned", input=key)
        if player is not None and player != self.state.current_player():
            to_move = self.state.current_player()
            raise RefusedError(f"it is not {player}'s turn (to move: {to_move})", "not_your_turn",
                               player=player, to_move=to_move)
        handler(value, entry, by)
        self.hint = None
        self.note(entry, "input", by=by, key=key, value=value, player=player)

    def input_move(self, value: Any, entry: Entry, by: str) -> None:
        assert entry.id is not None
        self.play(value, [entry.id], by)

    @property
    def finished(self) -> bool:
        """The game is over, or the table was abandoned or decided off it: nothing more
        is played here."""
        return self.abandoned or self.decided is not None or self.state.is_terminal()

    def input_abandon(self, value: Any, entry: Entry, by: str) -> None:
        """End the table without a result (its match was sent back to the queue or reset):
        no more moves, and its boards may be bound to another table."""
        if value is not True:
            raise BadInputError("abandon: expected true")
        if self.finished:
            raise RefusedError("abandon: the game is over already", "game_over")
        self.abandoned = True

    def input_decided(self, value: Any, entry: Entry, by: str) -> None:
        """End the table with a result given off it (a tournament match entered by hand):
        ``{"ranking": [[name, ...], ...]}``, each seat's player once, best first."""
        ranking = value.get("ranking") if isinstance(value, Mapping) and set(value) == {"ranking"} else None
        names = [s["name"] for s in self.seats]
        if (not isinstance(ranking, list) or not all(isinstance(g, list) and g for g in ranking)
                or sorted(str(n) for g in ranking for n in g) != sorted(names)):
            raise BadInputError("decided: expected {ranking: [[name, ...], ...]} naming each player once")
        if self.finished:
            raise RefusedError("decided: the game is over already", "game_over")
        self.decided = [[str(n) for n in g] for g in ranking]

    def input_archive(self, value: Any, entry: Entry, by: str) -> None:
        """Put the table away (true) or back among the live tables (false)."""
        if not isinstance(value, bool):
            raise BadInputError("archive: expected true or false")
        self.archived = value

    def input_undo(self, value: Any, entry: Entry, by: str) -> None:
        if value is not True:
            raise BadInputError("undo: expected true")
        if not self.actions:
            raise RefusedError("undo: nothing to undo", "nothing_to_undo")
        self.rebuild(self.actions[:-1])

    def input_amend(self, value: Any, entry: Entry, by: str) -> None:
        try:
            check_keys(value, ("index", "action"), "amend", required=("index", "action"))
        except GameError as err:
            raise BadInputError(str(err)) from None
        index = value["index"]
        if not isinstance(index, int) or not 0 <= index < len(self.actions):
            raise RefusedError(f"amend: no action {index!r}", "no_such_action", index=index)
        try:
            action = self.game.action_to_json(self.state.parse_action(value["action"]))
        except GameError as err:
            raise BadInputError(f"amend: {err}") from None
        actions = list(self.actions)
        actions[index] = {**actions[index], "action": action, "by": by}
        self.rebuild(actions)

    # -- what the hub asks ---------------------------------------------------------------
    def bot_to_move(self) -> str | None:
        """The bot seat to move, if any."""
        if self.finished:
            return None
        player = self.state.current_player()
        for seat in self.seats:
            if seat["name"] == player and seat["bot"]:
                return player
        return None

    def due(self, now: float, clock: Any = None) -> list[dict[str, Any]]:
        """Bodies of timer entries the hub must store now (none for plain games);
        ``clock`` tells a board's own time (:meth:`hub.tables.referee.TrigonoTable.due`)."""
        return []

    def clock_wanted(self, now: float) -> tuple[str, int] | None:
        """(board, boot) whose time this table waits to learn (none for plain games)."""
        return None

    def timer_wanted(self) -> bool:
        """Whether :meth:`due` may soon have an entry (the hub's timer then ticks often)."""
        return False

    def physical_boards(self) -> list[str]:
        return []

    def position_of(self, board: str) -> str | None:
        """The position a bound physical board serves on this table (the fleet page)."""
        return None

    def take_commands(self) -> list[tuple[str, str]]:
        """The device commands asked since the last call (the hub sends them)."""
        commands, self.commands = self.commands, []
        return commands

    # -- events and alerts ---------------------------------------------------------------
    def note(self, entry: Entry, kind: str, /, **params: Any) -> None:
        """An event of the table's log: a ``kind`` with ``params`` and no words (the web's
        catalogue words it in the page's language; hub/tables/wording.py in English at
        the hub's edges)."""
        self.events.append({"id": entry.id, "at": entry.at, "source": entry.source, "kind": kind,
                            "params": params})
        if len(self.events) > MAX_EVENTS:
            del self.events[0]

    def alert(self, entry: Entry, kind: str, /, *, level: str = "warning", board: str | None = None,
              key: str | None = None, **params: Any) -> None:
        """An alert for the referee; one per ``key`` (a newer one replaces it). ``board``
        is also a parameter of its words."""
        if board is not None:
            params = {"board": board, **params}
        if key is not None:
            self.clear_alert(key)
            self._alert_keys.add(key)
        self.alerts.append({"id": entry.id, "at": entry.at, "level": level, "kind": kind,
                            "params": params, "board": board, "key": key})
        if len(self.alerts) > MAX_ALERTS:
            self._alert_keys.discard(self.alerts.pop(0)["key"])

    def clear_alert(self, key: str) -> None:
        # A set of the keys in use: asked after every throw, while up to MAX_ALERTS
        # alerts may be listed.
        if key in self._alert_keys:
            self.alerts = [a for a in self.alerts if a.get("key") != key]
            self._alert_keys.discard(key)

    # -- views ---------------------------------------------------------------------------
    def printed(self) -> dict[str, Any]:
        """The engine's printed state, cached per state version: for the hub's own reading
        only (never hand it out: callers could change it)."""
        if self._printed is None or self._printed[0] != self._version:
            self._printed = (self._version, self.state.to_json())
        return self._printed[1]

    def prompts(self) -> list[dict[str, Any]]:
        return []

    def summary(self) -> dict[str, Any]:
        printed = self.printed()
        return {
            "id": self.id,
            "game": self.game_name,
            "status": "decided" if self.decided is not None else printed.get("status"),
            "to_move": printed.get("to_move"),
            "winner": printed.get("winner"),
            "round": printed.get("round"),
            "players": [s["name"] for s in self.seats],
            "boards": self.physical_boards(),
            "prompts": len(self.prompts()),
            "alerts": len(self.alerts),
            "created_at": self.created_at,
            "archived": self.archived,
            "abandoned": self.abandoned,
            "decided": self.decided,
        }

    def legal_actions(self, player: str) -> list[Any]:
        """``player``'s legal actions in the record notation ([] unless they are to
        move), computed once per state version."""
        if self.state.is_terminal() or self.state.current_player() != player:
            return []
        if self._legal is None or self._legal[0] != self._version:
            self._legal = (self._version, [self.game.action_to_json(a)
                                           for a in self.state.legal_actions()])
        return list(self._legal[1])

    def view(self, state: dict[str, Any] | None = None, events: int | None = None) -> dict[str, Any]:
        """The referee's view (hub/facade.py); ``state`` replaces the printed state
        (an observation, for a public view); ``events``: only that many of the newest."""
        printed = self.state.to_json() if state is None else state
        if self.decided is not None:  # the pages read a table's end from its printed status
            printed = {**printed, "status": "decided"}
        return {
            "id": self.id,
            "version": self.version,
            "game": self.game_name,
            "capabilities": self.registration.capabilities(),  # what the pages branch on, never the name
            "options": self.options,
            "seed": self.seed,
            "created_at": self.created_at,
            "seats": [dict(s) for s in self.seats],
            "players": [s["name"] for s in self.seats],
            "state": printed,
            "status": printed.get("status"),
            "to_move": printed.get("to_move"),
            "winner": printed.get("winner"),
            "armed": False,
            "layout": [],
            "prompts": self.prompts(),
            "throw": None,
            "alerts": [{k: v for k, v in a.items() if k != "key"} for a in self.alerts],
            "events": list(self.events if events is None else self.events[-events:]),
            "hint": self.hint,
            "moments": self.moments.view(),
            "places": place_labels(printed, self.registration.place_label),
            "drawing": drawing.of(printed),
            "archived": self.archived,
            "abandoned": self.abandoned,
            "decided": self.decided,
        }

    # -- snapshots -----------------------------------------------------------------------
    def dump(self) -> dict[str, Any]:
        return {
            "format": SNAPSHOT_FORMAT,
            "actions": self.actions,
            "state": self.state.dump(),
            "events": self.events,
            "alerts": self.alerts,
            "applied_through": self.applied_through,
            "version": self.version,
            "archived": self.archived,
            "abandoned": self.abandoned,
            "decided": self.decided,
            "moments": self.moments.dump(),
        }

    def load(self, data: Mapping[str, Any]) -> None:
        self.actions = list(data["actions"])
        self.state = self.game.load(data["state"])
        self._version += 1
        self.events = list(data["events"])
        self.alerts = list(data["alerts"])
        self._alert_keys = {a["key"] for a in self.alerts if a.get("key") is not None}
        self.applied_through = int(data["applied_through"])
        self.version = int(data.get("version", 0))  # snapshots older than the field: 0
        self.archived = bool(data.get("archived", False))  # older snapshots have none
        self.abandoned = bool(data.get("abandoned", False))
        self.decided = data.get("decided")  # older snapshots have none
        self.moments.load(data.get("moments"))  # older snapshots have none

