"""The Trigono referee: sensor events and console inputs → Trigono actions (docs/design.md §6).

A Trigono table is bound to physical boards and a layout: each bound board maps its
hole names (``big``, ``small``, ``jackpot``…) to the engine's hole ids. Then:

- a ``drop`` (or a ``blocked`` beam, T13: a drop plus an alert) opens a *throw* for the
  player to move, and a settle window of ``settle_s`` seconds from the drop. More drops
  of the same board within the window (by the board's clock) are knock-ins (T12). When
  the hub's timer closes the window (a logged ``settle`` entry), or a later sensor event
  shows it is over, the throw is resolved: the first
  drop is the thrown palet, the others are ``knocked`` — and if the engine refuses that
  reading, each other drop is tried as the thrown one before the referee is asked;
- while a throw is open the console may say the palet bounced on the floor first
  (``invalid``, T10); the ``valid`` prompt shows that question, defaulting to valid;
- with no drop, only the console, a throw-line button (``floor``/``board``) or the
  weight sensor (one more palet on a board) can say where the palet came to rest: the
  ``landed`` prompt stays open until one does (R2);
- a ``throw`` from a board's throw gate (hardware/throw-line.md) opens the thrower's
  *landing* for ``landing_s`` seconds (on that board's clock): a drop or a weight change
  within it decides the throw as above; nothing at all → ``floor``, scored by the sensors
  (R2) when every board of the table is weighed (its hello, a ``weight`` event or the
  ``throw`` itself said it has a load cell) — else, or
  when something ambiguous happened meanwhile, the ``landed`` prompt stays. A second
  ``throw`` of the same lane within ``MERGE_S`` is the same throw (merged); a throw from
  another board's lane than the thrower's home (T3), or while another throw is being
  decided, is flagged (an alert) and never scored. With no throw (no gate, or it missed
  the palet) everything works as before;
- ``bounce`` events are logged and never scored (T11); a hole whose board then says its
  beam B failed (beam A alone decides) offers that passage as a drop: the ``landed``
  prompt's default is that hole (issue 24 item 9);
- after a round the sensors are disarmed (players pick the palets out of the holes)
  until the console starts the next round;
- undo, void, amend, recount are new entries (R1): the action list is edited and the
  engine state rebuilt from it.

Button names a board may send: ``floor``, ``board`` (this board), ``invalid``, ``undo``,
``next_round``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from engines.core import GameError, check_keys
from firmware import protocol
from hub.errors import BadInputError, ConflictError, RefusedError
from hub.log.store import Entry
from hub.tables.layout import Bindings
from hub.tables.table import Table
from hub.tables.throws import (
    DECIDE_S,
    BoardClock,
    last_hole_throw,
    mark_events,
    past_window,
    prompt,
    readings,
    settle_over,
    without_entry,
)

DEFAULT_SETTLE_S = 1.0
DEFAULT_LANDING_S = 3.0  # flight (~0.6 s) + the load cell's steady reading (< 2 s) + margin
MERGE_S = 0.5  # two triggers of one lane this close are one throw (a wobbling palet, a hand behind it)
A_ALONE = "beam A alone decides"  # the firmware's fault words for a dead beam B
BUTTON_INPUTS = ("floor", "board", "invalid", "undo", "next_round")


def _thrower(item: Mapping[str, Any]) -> Any:
    """Who threw, for an action item that is a throw (else None): a throw is made in its
    thrower's turn, so a throw taken out before another player's is always refused."""
    throw = item["action"].get("throw") if isinstance(item.get("action"), dict) else None
    return throw.get("player") if isinstance(throw, dict) else None


class TrigonoTable(Table):
    """A refereed Trigono match on physical boards."""

    def __init__(self, table_id: str, spec: Mapping[str, Any], created_at: float) -> None:
        super().__init__(table_id, spec, created_at)
        self.settle_s: float = float(spec.get("referee", {}).get("settle_s", DEFAULT_SETTLE_S))
        self.landing_s: float = float(spec.get("referee", {}).get("landing_s", DEFAULT_LANDING_S))
        self.landing: dict[str, Any] | None = None  # a throw seen at the line, not decided yet
        self.weighed: dict[str, bool] = {}  # physical board -> it has a load cell (hello, weight, throw)
        self.misread: dict[str, Any] | None = None  # a passage a dead beam B made a bounce
        self.armed = True
        self.throw: dict[str, Any] | None = None
        self.stuck = False  # the open throw could not be resolved: the referee must say
        self.rounds_seen = 0  # rounds finished when the last action was applied
        self.voided: list[int] = []  # sensor entries the referee voided
        self._voids_cache: tuple[Any, dict[int, bool]] | None = None  # voids_accepted's replays, per state version
        self._round_end_cache: tuple[int, dict[str, Any] | None] | None = None  # round_end's replay, per state version
        self.bindings = Bindings(list(spec.get("boards", [])), list(self.printed().get("holes", {})))

    def trial(self) -> Self:
        twin = super().trial()
        twin.throw = None if self.throw is None else {**self.throw, "drops": list(self.throw["drops"])}
        twin.voided = list(self.voided)
        twin._voids_cache = None  # its own (the cache's dict is filled in place)
        twin._round_end_cache = None
        twin.landing = None if self.landing is None else dict(self.landing)
        twin.weighed = dict(self.weighed)
        twin.misread = None if self.misread is None else dict(self.misread)
        return twin

    # -- the layout ----------------------------------------------------------------------
    def physical_boards(self) -> list[str]:
        return self.bindings.boards()

    def position_of(self, board: str) -> str | None:
        return self.bindings.engine_board(board) if self.bindings.get(board) is not None else None

    def _where_choices(self) -> list[str]:
        """Where a palet can rest; plus every hole whose sensor has an open fault, so the
        referee scores that hole by hand until the board says it works again."""
        choices = [f"board:{b}" for b in self.printed().get("boards", {})] + ["floor"]
        for a in self.alerts:
            key = str(a.get("key") or "")
            if key.startswith("fault:") and "." in key:
                mapped = self.bindings.engine_hole(*key[len("fault:"):].split(".", 1))
                if mapped is not None and mapped[0] not in choices:
                    choices.append(mapped[0])
        return choices

    # -- device events --------------------------------------------------------------------
    def on_device(self, entry: Entry) -> None:
        msg = entry.body
        kind = msg.get("type")
        board = str(msg.get("board"))
        hole = msg.get("hole")
        if kind == "hello":
            unmapped = self.bindings.unmapped(board, list(msg.get("holes", [])))
            self.note(entry, "hello", board=board, fw=msg.get("fw"), holes=list(msg.get("holes", [])))
            self.weighed[board] = msg.get("loadcell") is True
            if unmapped:
                self.alert(entry, "unmapped", holes=unmapped,
                           board=board, key=f"unmapped:{board}")
            else:
                self.clear_alert(f"unmapped:{board}")
        elif kind in ("drop", "blocked"):
            if kind == "blocked":
                self.alert(entry, "blocked", hole=f"{board}.{hole}",
                           board=board, key=f"blocked:{board}.{hole}")
            self._on_drop(entry, board, str(hole), kind)
        elif kind == "cleared":  # a blocked beam opened, or a faulty one works again
            self.clear_alert(f"blocked:{board}.{hole}")
            self.clear_alert(f"fault:{board}.{hole}")
            self.note(entry, "beam_clear", hole=f"{board}.{hole}")
        elif kind == "bounce":
            self.note(entry, "bounce_out", hole=f"{board}.{hole}")
            mapped = self.bindings.engine_hole(board, str(hole))
            self.misread = None if mapped is None else {
                "hole": mapped[0], "board": board, "name": hole, "actions": len(self.actions)}
        elif kind == "fault":
            where = f"{board}.{hole}" if hole else board
            self.alert(entry, "fault", where=where, reason=msg.get("reason"), level="error",
                       board=board, key=f"fault:{where}")
            self._on_a_alone(entry, board, hole, str(msg.get("reason", "")))
        elif kind == "throw":
            self._on_throw(entry, board, str(msg.get("lane")))
        elif kind == "button":
            self._on_button(entry, board, str(msg.get("button")))
        elif kind == "weight":
            self.weighed[board] = True
            self._on_weight(entry, board, int(msg.get("board_palets", 0)))
        else:
            self.note(entry, "board_kind", board=board, kind=kind)

    def _on_a_alone(self, entry: Entry, board: str, hole: Any, reason: str) -> None:
        """A dead beam B, told right after the passage that revealed it (firmware: a
        beam-A-only passage self-tests its hole): that passage was a bounce only for want
        of beam B, so the throw it ended is offered as that hole (one tap)."""
        misread = self.misread
        if (A_ALONE not in reason or misread is None or misread["board"] != board or misread["name"] != hole
                or misread["actions"] != len(self.actions)):
            return
        misread["alerted"] = True
        if self.landing is not None:
            self.landing["ambiguous"] = True  # not the floor: the referee says (one tap)
        self.alert(entry, "misread_drop", hole=misread["hole"], board=board, key=f"misread:{board}.{hole}")

    def _on_throw(self, entry: Entry, board: str, lane: str) -> None:
        """A palet crossed ``board``'s throw gate outward: open the thrower's landing, or
        merge it with the one open, or flag it."""
        assert entry.id is not None
        where = f"{board}.{lane}"
        if entry.body.get("loadcell") is True:
            self.weighed[board] = True
        if not self.armed or self.finished:
            self.note(entry, "throw_ignored", lane=where)
            return
        player = self.state.current_player()
        landing = self.landing
        if landing is not None and landing["device"] == board and landing["boot"] == entry.body.get("boot") \
                and 0 <= protocol.t_us_diff(int(entry.body.get("t_us", 0)), landing["t_us"]) <= MERGE_S * 1e6:
            self.note(entry, "throw_merged", lane=where, player=landing["player"])  # one palet, two triggers
            return
        if landing is not None or self.throw is not None:
            # A second palet before the first is decided, or the first trigger was not a
            # palet: either way the sensors cannot say which landed where, so nothing is
            # taken for the floor (a drop or a weight change still decides).
            if landing is not None:
                landing["ambiguous"] = True
            self.alert(entry, "throw_out_of_turn", lane=where, player=player, board=board,
                       key=f"throw_flag:{board}")
            return
        home = self.printed().get("homes", {}).get(player)
        lane_board = self.bindings.engine_board(board)
        if home is not None and len(self.printed().get("boards", {})) > 1 and lane_board != home:
            self.alert(entry, "throw_wrong_lane", lane=where, player=player, home=home, board=board,
                       key=f"throw_flag:{board}")
            return
        self.landing = {"player": player, "lane": where, "device": board, "boot": entry.body.get("boot"),
                        "t_us": entry.body.get("t_us"), "entry": entry.id, "closes_at": entry.at + self.landing_s,
                        "ambiguous": False}
        self.note(entry, "throw_seen", lane=where, player=player)

    def _landing_window(self) -> dict[str, Any]:
        """The open landing as a throw of :mod:`hub.tables.throws` (its window's clock)."""
        assert self.landing is not None
        landing = self.landing
        return {"drops": [{"board": landing["device"], "boot": landing["boot"], "t_us": landing["t_us"],
                           "entry": landing["entry"]}], "closes_at": landing["closes_at"]}

    def _close_landing(self, entry: Entry) -> None:
        """Nothing decided the throw within its window: on the floor (R2), when every
        board is weighed and nothing ambiguous happened; else the prompt stays."""
        landing, self.landing = self.landing, None
        if landing is None or self.throw is not None or self.state.current_player() != landing["player"]:
            return
        if landing["ambiguous"] or not all(self.weighed.get(b) for b in self.physical_boards()):
            self.note(entry, "throw_undecided", lane=landing["lane"], player=landing["player"])
            return
        self._device_input(entry, {"landed": "floor"}, "sensors")

    def _settle_early(self, entry: Entry) -> None:
        """Resolve the open throw now if this sensor event is past its settle window
        (:func:`hub.tables.throws.past_window`: on the board's own clock)."""
        if self.throw is not None and not self.stuck and past_window(self.throw, entry.body, self.settle_s):
            self._resolve(entry)

    def _on_drop(self, entry: Entry, board: str, hole: str, kind: str) -> None:
        assert entry.id is not None
        self._settle_early(entry)
        mapped = self.bindings.engine_hole(board, hole)
        if mapped is None:
            self.note(entry, "not_in_layout", hole=f"{board}.{hole}", kind=kind)
            self.alert(entry, "unmapped", holes=[hole], board=board,
                       key=f"unmapped:{board}")
            return
        engine_hole, from_board = mapped
        if not self.armed:
            self.note(entry, "ignored_between_rounds", hole=engine_hole, kind=kind)
            return
        if self.finished:
            self.note(entry, "ignored_match_over", hole=engine_hole, kind=kind)
            return
        drop = {"hole": engine_hole, "from": from_board, "entry": entry.id, "kind": kind,
                "board": board, "boot": entry.body.get("boot"), "t_us": entry.body.get("t_us")}
        if self.throw is None:
            self.landing = None  # a throw seen at the line: this drop decides it
            self.throw = {"player": self.state.current_player(), "drops": [drop],
                          "invalid": False, "closes_at": entry.at + self.settle_s}
            self.stuck = False
            self.note(entry, "drop", hole=engine_hole, player=self.throw["player"])
        elif self.stuck:
            self.throw["drops"].append(drop)
            self.note(entry, "drop_while_deciding", hole=engine_hole)
        else:
            self.throw["drops"].append(drop)
            self.note(entry, "knock_in_settle", hole=engine_hole)

    def _on_button(self, entry: Entry, board: str, button: str) -> None:
        if button != "invalid":
            self._settle_early(entry)
        if button not in BUTTON_INPUTS:
            self.note(entry, "button", board=board, button=button)
            return
        inputs: dict[str, Any] = {
            "floor": {"landed": "floor"},
            "board": {"landed": f"board:{self.bindings.engine_board(board)}"},
            "invalid": {"invalid": True},
            "undo": {"undo": True},
            "next_round": {"next_round": True},
        }
        self._device_input(entry, inputs[button], {"kind": "button", "board": board, "button": button})

    def _on_weight(self, entry: Entry, board: str, palets: int) -> None:
        self._settle_early(entry)
        engine_board = self.bindings.engine_board(board)
        on_board = self.printed().get("boards", {}).get(engine_board)
        if (self.armed and self.throw is None and not self.finished
                and on_board is not None and palets == on_board + 1):
            self._device_input(entry, {"landed": f"board:{engine_board}"}, {"kind": "weight", "board": board})
        else:
            if self.landing is not None and on_board is not None and palets != on_board:
                self.landing["ambiguous"] = True  # a board changed, not by one more: ask
            self.note(entry, "weight", board=board, palets=palets)

    def _device_input(self, entry: Entry, inp: dict[str, Any], device: str | dict[str, Any]) -> None:
        """A sensor answering for the console (R2): refused inputs become alerts.

        ``device``: ``"sensors"`` (the beams and scales together), or the one device
        that answered, as data — ``{"kind": "button", "board": "B1", "button": "floor"}``
        or ``{"kind": "weight", "board": "B1"}`` — then ``by`` is ``"device"`` and the
        event or alert carries it as ``device`` (its words: the web's ``event.by.<kind>``,
        hub/tables/wording.py at the hub's edges; issue 31.5: no sentence to parse back)."""
        (key, value), = inp.items()
        who: dict[str, Any] = {"by": device} if isinstance(device, str) else {"by": "device", "device": device}
        try:
            getattr(self, f"input_{key}")(value, entry, who["by"])
            self.note(entry, "input", **who, key=key, value=value)
        except (RefusedError, BadInputError) as err:
            # refusal/refusal_params: the refusal's own kind, for its words (hub.errors)
            self.alert(entry, "input_refused", **who, key=key, reason=str(err), refusal=err.kind,
                       refusal_params=err.params)

    # -- the settle window ------------------------------------------------------------------
    def due(self, now: float, clock: BoardClock | None = None) -> list[dict[str, Any]]:
        """The settle entry to log when the open throw's window is over
        (:func:`hub.tables.throws.settle_over`), or the landing entry when an open
        landing's window is (the same clocks)."""
        if self.throw is None and self.landing is not None:
            if settle_over(self._landing_window(), self.landing_s, now, clock):
                return [{"settle": {"landing": self.landing["entry"]}}]
            return []
        if self.throw is None or self.stuck or not settle_over(self.throw, self.settle_s, now, clock):
            return []
        return [{"settle": {"first": self.throw["drops"][0]["entry"]}}]

    def timer_wanted(self) -> bool:
        return (self.throw is not None and not self.stuck) or self.landing is not None

    def clock_wanted(self, now: float) -> tuple[str, int] | None:
        """(board, boot) whose clock the open throw waits for, once its window is over on
        the hub's clock: the hub then asks that board for a health message (its time)."""
        if self.throw is None and self.landing is not None:
            if now < self.landing["closes_at"] + DECIDE_S or self.landing["boot"] is None:
                return None
            return (self.landing["device"], self.landing["boot"])
        if self.throw is None or self.stuck or now < self.throw["closes_at"] + DECIDE_S:
            return None
        first = self.throw["drops"][0]
        return (first["board"], first["boot"]) if first.get("boot") is not None else None

    def on_timer(self, entry: Entry) -> None:
        if "landing" in entry.body["settle"]:
            if self.landing is not None and self.landing["entry"] == entry.body["settle"]["landing"]:
                self._close_landing(entry)
            return
        first = entry.body["settle"].get("first")
        if self.throw is None or self.stuck or self.throw["drops"][0]["entry"] != first:
            return  # that throw was resolved or voided meanwhile
        self._resolve(entry)

    def _resolve(self, entry: Entry) -> None:
        assert self.throw is not None
        throw = self.throw
        errors, whys = [], []
        for action, src in readings(throw):
            try:
                self.play(action, src, "sensors")
            except RefusedError as err:
                errors.append(str(err))
                # each reason as a kind with params too (the web words them: hub.errors)
                whys.append({"kind": err.kind, "params": err.params})
                continue
            self.throw, self.stuck = None, False
            # Between throws nothing falls: the boards test their beams now (a dead beam
            # shows as a fault before the next palet, not after it is missed).
            self.commands = [(b, "selftest") for b in self.physical_boards()]
            n = len(src) - 1
            kind = "throw_knocking" if n else "throw_invalid" if throw["invalid"] else "throw"
            self.note(entry, kind, player=throw["player"], hole=action["throw"]["to"], n=n,
                      invalid=throw["invalid"])
            self._after_action(entry)
            return
        self.stuck = True
        self.alert(entry, "cannot_referee", player=throw["player"], reasons=errors, refusals=whys,
                   level="error", key="stuck")

    def last_played(self) -> tuple[Mapping[str, Any], list[Mapping[str, Any]]]:
        # Straight from the engine's state: the printed one copies the whole log, a
        # tenth of a millisecond at every throw the hub ingests.
        state: Any = self.state
        return state.log[-1], list(state.events)

    def rebuild(self, actions: list[dict[str, Any]]) -> None:
        super().rebuild(actions)
        self.rounds_seen = self._rounds_done()

    def _rounds_done(self) -> int:
        """Rounds finished so far. Reads the engine's round counter when it has one (the
        printed state copies the whole log: too slow for every sensor event)."""
        current = getattr(self.state, "round", None)
        if isinstance(current, int):
            return current - 1
        return len(self.printed().get("round_results", []))

    def _after_action(self, entry: Entry) -> None:
        """Disarm between rounds (palets are being collected) and when the match is over."""
        self.clear_alert("stuck")
        self.landing = None  # the throw is decided
        if self.misread is not None and self.misread.get("alerted"):
            self.clear_alert(f"misread:{self.misread['board']}.{self.misread['name']}")
        self.misread = None
        done = self._rounds_done()
        if done > self.rounds_seen or self.state.is_terminal():
            self.armed = False
        self.rounds_seen = done

    # -- console inputs ---------------------------------------------------------------------
    def input_move(self, value: Any, entry: Entry, by: str) -> None:
        if self.throw is not None:
            self._cancel_throw("replaced by a move from the console")
        super().input_move(value, entry, by)
        self._after_action(entry)

    def input_rebind(self, value: Any, entry: Entry, by: str) -> None:
        """``{"position": ENGINE_BOARD, "board": PHYSICAL_ID}``: another physical board serves
        that position from now on (the fleet page's assign: a dead board swapped for a
        spare). Its holes map as the previous board's did; what the previous one sent
        before stays scored."""
        if not isinstance(value, Mapping) or set(value) != {"position", "board"}:
            raise BadInputError('rebind: expected {"position": engine board, "board": physical board}')
        position, board = value["position"], value["board"]
        if not isinstance(board, str) or not board:
            raise BadInputError("rebind: board must be a board id")
        bindings = self.bindings.to_json()
        found = [b for b in bindings if b["as"] == position]
        if not found:
            known = ", ".join(str(b["as"]) for b in bindings) or "none"
            raise RefusedError(f"rebind: no position {position!r} on this table (positions: {known})",
                               "unknown_position", position=str(position), known=known)
        if board in self.bindings.boards() and found[0]["board"] != board:
            raise ConflictError(f"rebind: board {board} already serves this table as "
                                f"{self.bindings.engine_board(board)}", "board_bound", board=board, table=self.id)
        found[0]["board"] = board
        self.bindings = Bindings(bindings, list(self.printed().get("holes", {})))

    def input_landed(self, value: Any, entry: Entry, by: str) -> None:
        assert entry.id is not None
        if not isinstance(value, str):
            raise BadInputError("landed: expected 'board:ID', 'floor' or a hole id")
        if self.throw is not None and not self.stuck:
            raise RefusedError("landed: a drop is settling; void it first if it was not this palet", "drop_settling")
        player = self.state.current_player()
        if player is None:
            raise RefusedError("landed: nobody is to throw", "nobody_to_throw")
        if self.throw is not None:
            self._cancel_throw("replaced by the referee's answer")
        self.play({"throw": {"player": player, "to": value}}, [entry.id], by)
        self._after_action(entry)

    def input_invalid(self, value: Any, entry: Entry, by: str) -> None:
        if value is not True:
            raise BadInputError("invalid: expected true")
        if self.throw is not None:
            self.throw["invalid"] = True
            if self.stuck:
                self._resolve(entry)
            return
        index = last_hole_throw(self.actions)
        if index is None:
            raise RefusedError("invalid: no drop into a hole to mark", "nothing_to_mark")
        throw = self.actions[index]["action"]["throw"]
        self._amend(index, {"throw": {**throw, "invalid": True}}, by)

    def _amend(self, index: int, action: dict[str, Any], by: str) -> None:
        actions = list(self.actions)
        actions[index] = {**actions[index], "action": action, "by": by}
        self.rebuild(actions)

    def input_undo(self, value: Any, entry: Entry, by: str) -> None:
        if value is not True:
            raise BadInputError("undo: expected true")
        if self.throw is not None:
            self._cancel_throw("undone")
            return
        self.landing = None
        super().input_undo(value, entry, by)
        self.armed = True

    def input_void(self, value: Any, entry: Entry, by: str) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadInputError("void: expected an entry id")
        self._void(value, entry)
        self.voided.append(value)

    def _void(self, value: int, entry: Entry) -> None:
        if self.throw is not None:
            drops = [d for d in self.throw["drops"] if d["entry"] != value]
            if len(drops) != len(self.throw["drops"]):
                if drops:
                    self.throw["drops"] = drops
                    if self.stuck:
                        self._resolve(entry)
                else:
                    self._cancel_throw(f"entry {value} voided")
                return
        actions = without_entry(self.actions, value)
        if actions is None:
            raise RefusedError(f"void: entry {value} is not part of any open throw or action", "not_voidable",
                               entry=value)
        self.rebuild(actions)

    def input_recount(self, value: Any, entry: Entry, by: str) -> None:
        try:
            check_keys(value, ("board", "count"), "recount", required=("board", "count"))
        except GameError as err:
            raise BadInputError(str(err)) from None
        boards = self.printed().get("boards", {})
        if value["board"] not in boards:
            raise BadInputError(f"recount: no board {value['board']!r}")
        count = value["count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise BadInputError("recount: count must be an integer >= 0")
        expected = boards[value["board"]]
        if count == expected:
            self.clear_alert(f"recount:{value['board']}")
        else:
            self.alert(entry, "recount_mismatch", board=value["board"], count=count,
                       expected=expected, key=f"recount:{value['board']}")

    def input_target(self, value: Any, entry: Entry, by: str) -> None:
        assert entry.id is not None
        self.play({"target": value}, [entry.id], by)
        if self.throw is not None and self.stuck:
            self._resolve(entry)

    def input_next_round(self, value: Any, entry: Entry, by: str) -> None:
        if value is not True:
            raise BadInputError("next_round: expected true")
        if self.armed:
            raise RefusedError("next_round: the round is already under way", "round_under_way")
        if self.state.is_terminal():
            raise RefusedError("next_round: the match is over", "game_over")
        self.armed = True
        # The palets are out of the holes: the load cells take the empty board as zero.
        self.commands = [(b, "tare") for b in self.physical_boards()]

    def input_answer(self, value: Any, entry: Entry, by: str) -> None:
        try:
            check_keys(value, ("prompt", "choice"), "answer", required=("prompt", "choice"))
        except GameError as err:
            raise BadInputError(str(err)) from None
        prompt = next((p for p in self.prompts() if p["id"] == value["prompt"]), None)
        if prompt is None:
            raise RefusedError(f"answer: prompt {value['prompt']!r} is not open", "prompt_closed",
                               prompt=value["prompt"])
        choice = value["choice"]
        if prompt["choices"] and choice not in prompt["choices"]:
            raise BadInputError(f"answer: {choice!r} is not one of {prompt['choices']}", "bad_choice",
                                choice=choice, choices=prompt["choices"])
        kind = prompt["kind"]
        if kind == "landed":
            self.input_landed(choice, entry, by)
        elif kind == "valid":
            if choice == "invalid":
                self.input_invalid(True, entry, by)
        elif kind == "target":
            self.input_target(choice, entry, by)
        elif kind == "next_round":
            self.input_next_round(True, entry, by)
        else:  # "fix": the referee says where the thrown palet went
            self.input_landed(choice, entry, by)

    def _cancel_throw(self, why: str) -> None:
        self.throw, self.stuck = None, False
        self.clear_alert("stuck")

    # -- views ------------------------------------------------------------------------------
    def prompts(self) -> list[dict[str, Any]]:
        printed = self.printed()
        n = len(self.actions)
        player = printed.get("to_move")
        if self.finished:
            return []
        if not self.armed:
            return [prompt(f"next_round-{n}", "next_round", None, ["start"], round=printed.get("round"))]
        if printed.get("phase") == "final" and printed.get("target") is None:
            return [prompt(f"target-{n}", "target", player, sorted(printed.get("holes", {})))]
        if self.throw is not None and self.stuck:
            return [prompt(f"fix-{n}-{self.throw['drops'][0]['entry']}", "fix", self.throw["player"], [])]
        if self.throw is not None:
            first = self.throw["drops"][0]
            return [prompt(f"valid-{first['entry']}", "valid", self.throw["player"], ["valid", "invalid"],
                            default="valid", hole=first["hole"])]
        misread = self.misread if self.misread is not None and self.misread.get("alerted") else None
        if misread is not None and misread["hole"] in self._where_choices():
            # the passage a dead beam B made a bounce: one tap makes it the drop it was
            return [prompt(f"landed-{n}", "landed", player, self._where_choices(), default=misread["hole"],
                           misread=misread["hole"])]
        return [prompt(f"landed-{n}", "landed", player, self._where_choices())]

    def view(self, state: dict[str, Any] | None = None, events: int | None = None) -> dict[str, Any]:
        out = super().view(state, events)
        out["armed"] = self.armed
        out["layout"] = self.bindings.to_json()
        out["throw"] = None if self.throw is None else {
            "player": self.throw["player"],
            "drops": [dict(d) for d in self.throw["drops"]],
            "invalid": self.throw["invalid"],
            "closes_at": self.throw["closes_at"],
            "stuck": self.stuck,
        }
        out["settle_s"] = self.settle_s
        out["landing"] = None if self.landing is None else {
            "player": self.landing["player"], "lane": self.landing["lane"], "closes_at": self.landing["closes_at"]}
        out["starter"] = self.starter()
        out["round_end"] = self.round_end()
        sensor_events = {e["id"] for e in out["events"] if e["source"] == "device"}
        out["events"] = mark_events(out["events"], self.voids_accepted(sensor_events - set(self.voided)), self.voided)
        return out

    def round_end(self) -> dict[str, Any] | None:
        """The palets as the round's last throw left them (``round``, ``winner`` (None:
        drawn), ``hands``, ``boards``, ``holes``, ``floor``, ``eliminated``) while they are
        picked up: from the round's end until the referee says they are collected (the
        next round's start), when the last action ended the round. The engine starts the
        next round within that throw: without this the screens would jump to an empty
        board and the spectators never see the winning one. Replayed from the actions (a
        snapshot does not hold it), once per round end."""
        if self.armed or self.finished or not self.actions:
            return None
        cached = self._round_end_cache
        if cached is None or cached[0] != self._version:
            state: Any = self._initial()
            for item in self.actions:
                state.apply(state.parse_action(item["action"]))
            ended = getattr(state, "round_end", None)
            self._round_end_cache = cached = (self._version, None if ended is None else dict(ended))
        return cached[1]

    def starter(self) -> dict[str, Any]:
        """Who starts the round and why (T4), and the seats in the order they throw:
        ``{"player", "why", "round", "play_order", "before_first_throw"}``. ``why`` is
        ``drawn`` (by lot, with the seed) or ``chosen`` (named when the table was made) for
        the first round; then ``round_won`` (the last round's winner), ``drawn_round_same``
        or ``drawn_round_next`` (after a drawn round, per the ``draw_starter`` option)."""
        printed = self.printed()
        player, seats = printed.get("starter"), list(printed.get("players") or [])
        results = list(printed.get("round_results") or [])
        if not results:
            why = "chosen" if self.options.get("first") is not None else "drawn"
        elif results[-1].get("winner") is not None:
            why = "round_won"
        else:
            why = f"drawn_round_{self.options.get('draw_starter', 'same')}"
        at = seats.index(player) if player in seats else 0
        round_n = printed.get("round")
        # Not the hands (a palet in a hole brings palets back to them): the log says the round of each throw.
        thrown = any(isinstance(e, dict) and e.get("round") == round_n for e in printed.get("log") or [])
        return {"player": player, "why": why, "round": round_n, "play_order": seats[at:] + seats[:at],
                "before_first_throw": not thrown}

    def voids_accepted(self, entries: set[int]) -> set[int]:
        """Which of these sensor entries :meth:`input_void` would accept now: a drop of
        the open throw, or one an action came from whose removal (or its knock-in's)
        leaves every later action legal. An old drop usually is not: taking its throw
        out shifts whose turn each later throw was, and the hub refuses that. Worked out
        by replaying, the replays sharing their common start (cached per state version)."""
        open_drops = {d["entry"] for d in (self.throw or {}).get("drops", [])}
        key = (self._version, len(self.actions))
        if self._voids_cache is None or self._voids_cache[0] != key:
            self._voids_cache = (key, {})
        known = self._voids_cache[1]  # entry -> accepted, for this state (the public and the referee's view share it)
        missing = entries - open_drops - set(known)
        if missing:
            accepted = self._replays_without(missing)
            known.update({entry_id: entry_id in accepted for entry_id in missing})
        return (entries & open_drops) | {e for e in entries - open_drops if known[e]}

    def _replays_without(self, entries: set[int]) -> set[int]:
        """The entries whose void (:func:`without_entry`) gives an action list the
        engine replays to its end."""
        made_by = {src: index for index, item in enumerate(self.actions) for src in item["src"]}
        tried: dict[int, list[tuple[int, list[dict[str, Any]]]]] = {}  # changed index -> (entry, what replaces it)
        accepted: set[int] = set()
        for entry_id in entries & set(made_by):
            index = made_by[entry_id]
            changed = without_entry(self.actions[index:index + 1], entry_id) or []
            if not changed and index == len(self.actions) - 1:
                accepted.add(entry_id)  # the last action taken out: the ones before were all played
                continue
            thrower = _thrower(self.actions[index])
            next_thrower = _thrower(self.actions[index + 1]) if index + 1 < len(self.actions) else None
            if not changed and None not in (thrower, next_thrower) and thrower != next_thrower:
                continue  # the next throw would come out of turn: refused without replaying (T4)
            tried.setdefault(index, []).append((entry_id, changed))
        state = self._initial()
        last_tried = max(tried, default=-1)
        for index, item in enumerate(self.actions):
            if index > last_tried:
                break
            for entry_id, changed in tried.get(index, []):
                twin = state.clone()
                try:
                    for later in [*changed, *self.actions[index + 1:]]:
                        twin.apply(twin.parse_action(later["action"]))
                except GameError:
                    continue
                accepted.add(entry_id)
            state.apply(state.parse_action(item["action"]))
        return accepted

    def dump(self) -> dict[str, Any]:
        data = super().dump()
        data["referee"] = {"armed": self.armed, "throw": self.throw, "stuck": self.stuck,
                           "rounds_seen": self.rounds_seen, "voided": self.voided, "landing": self.landing,
                           "weighed": self.weighed, "misread": self.misread,
                           "bindings": self.bindings.to_json()}
        return data

    def load(self, data: Mapping[str, Any]) -> None:
        super().load(data)
        ref = data["referee"]
        self.armed, self.throw, self.stuck = ref["armed"], ref["throw"], ref["stuck"]
        self.rounds_seen = ref["rounds_seen"]
        self.voided = list(ref.get("voided", []))  # snapshots before voided was kept have none
        self._voids_cache = None
        self.landing = ref.get("landing")  # snapshots before the throw gate have none of these
        self.weighed = dict(ref.get("weighed", {}))
        self.misread = ref.get("misread")
        if "bindings" in ref:  # a board swapped in (input_rebind); older snapshots: the spec's
            self.bindings = Bindings(list(ref["bindings"]), list(self.printed().get("holes", {})))
