"""The Trigono referee: sensor events and console inputs → Trigono actions (DESIGN.md §6).

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
- ``bounce`` events are logged and never scored (T11);
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
from hub.errors import BadInputError, RefusedError
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
BUTTON_INPUTS = ("floor", "board", "invalid", "undo", "next_round")


class TrigonoTable(Table):
    """A refereed Trigono match on physical boards."""

    def __init__(self, table_id: str, spec: Mapping[str, Any], created_at: float) -> None:
        super().__init__(table_id, spec, created_at)
        self.settle_s: float = float(spec.get("referee", {}).get("settle_s", DEFAULT_SETTLE_S))
        self.armed = True
        self.throw: dict[str, Any] | None = None
        self.stuck = False  # the open throw could not be resolved: the referee must say
        self.rounds_seen = 0  # rounds finished when the last action was applied
        self.voided: list[int] = []  # sensor entries the referee voided
        self.bindings = Bindings(list(spec.get("boards", [])), list(self.printed().get("holes", {})))

    def trial(self) -> Self:
        twin = super().trial()
        twin.throw = None if self.throw is None else {**self.throw, "drops": list(self.throw["drops"])}
        twin.voided = list(self.voided)
        return twin

    # -- the layout ----------------------------------------------------------------------
    def physical_boards(self) -> list[str]:
        return self.bindings.boards()

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
        elif kind == "fault":
            where = f"{board}.{hole}" if hole else board
            self.alert(entry, "fault", where=where, reason=msg.get("reason"), level="error",
                       board=board, key=f"fault:{where}")
        elif kind == "button":
            self._on_button(entry, board, str(msg.get("button")))
        elif kind == "weight":
            self._on_weight(entry, board, int(msg.get("board_palets", 0)))
        else:
            self.note(entry, "board_kind", board=board, kind=kind)

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
        self._device_input(entry, inputs[button], f"button {button} on {board}")

    def _on_weight(self, entry: Entry, board: str, palets: int) -> None:
        self._settle_early(entry)
        engine_board = self.bindings.engine_board(board)
        on_board = self.printed().get("boards", {}).get(engine_board)
        if (self.armed and self.throw is None and not self.finished
                and on_board is not None and palets == on_board + 1):
            self._device_input(entry, {"landed": f"board:{engine_board}"}, f"weight on {board}")
        else:
            self.note(entry, "weight", board=board, palets=palets)

    def _device_input(self, entry: Entry, inp: dict[str, Any], what: str) -> None:
        """A sensor answering for the console (R2): refused inputs become alerts."""
        (key, value), = inp.items()
        try:
            getattr(self, f"input_{key}")(value, entry, what)
            self.note(entry, "input", by=what, key=key, value=value)
        except (RefusedError, BadInputError) as err:
            # refusal/refusal_params: the refusal's own kind, for its words (hub.errors)
            self.alert(entry, "input_refused", by=what, key=key, reason=str(err), refusal=err.kind,
                       refusal_params=err.params)

    # -- the settle window ------------------------------------------------------------------
    def due(self, now: float, clock: BoardClock | None = None) -> list[dict[str, Any]]:
        """The settle entry to log when the open throw's window is over
        (:func:`hub.tables.throws.settle_over`)."""
        if self.throw is None or self.stuck or not settle_over(self.throw, self.settle_s, now, clock):
            return []
        return [{"settle": {"first": self.throw["drops"][0]["entry"]}}]

    def timer_wanted(self) -> bool:
        return self.throw is not None and not self.stuck

    def clock_wanted(self, now: float) -> tuple[str, int] | None:
        """(board, boot) whose clock the open throw waits for, once its window is over on
        the hub's clock: the hub then asks that board for a health message (its time)."""
        if self.throw is None or self.stuck or now < self.throw["closes_at"] + DECIDE_S:
            return None
        first = self.throw["drops"][0]
        return (first["board"], first["boot"]) if first.get("boot") is not None else None

    def on_timer(self, entry: Entry) -> None:
        first = entry.body["settle"].get("first")
        if self.throw is None or self.stuck or self.throw["drops"][0]["entry"] != first:
            return  # that throw was resolved or voided meanwhile
        self._resolve(entry)

    def _resolve(self, entry: Entry) -> None:
        assert self.throw is not None
        throw = self.throw
        errors = []
        for action, src in readings(throw):
            try:
                self.play(action, src, "sensors")
            except RefusedError as err:
                errors.append(str(err))
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
        self.alert(entry, "cannot_referee", player=throw["player"], reasons=errors,
                   level="error", key="stuck")

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
        out["events"] = mark_events(out["events"], self.throw, self.actions, self.voided)
        return out

    def dump(self) -> dict[str, Any]:
        data = super().dump()
        data["referee"] = {"armed": self.armed, "throw": self.throw, "stuck": self.stuck,
                           "rounds_seen": self.rounds_seen, "voided": self.voided}
        return data

    def load(self, data: Mapping[str, Any]) -> None:
        super().load(data)
        ref = data["referee"]
        self.armed, self.throw, self.stuck = ref["armed"], ref["throw"], ref["stuck"]
        self.rounds_seen = ref["rounds_seen"]
        self.voided = list(ref.get("voided", []))  # snapshots before voided was kept have none
