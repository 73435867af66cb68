"""The Trigono referee (hub/tables/referee.py) as a pure fold over log entries: no hub, no
threads, no store, no sleeps. Time passes only through the entries' ``at`` and the
boards' ``t_us``, and the settle window closes when ``due(now)`` says so (R1: the log
is the truth, so folding the same entries again gives the same table)."""

from __future__ import annotations

import copy
from itertools import count
from typing import Any

import pytest

from engines.records import replay
from hub.errors import BadInputError, RefusedError
from hub.log.store import Entry
from hub.tables import throws
from hub.tables.referee import TrigonoTable
from hub.tables.spec import TableSpec
from hub.tables.table import Table
from hub.tables.tableset import make_table


class Fold:
    """A Trigono table and the log that built it; every input is one entry."""

    def __init__(self, settle_s: float = 1.0, boards: list[Any] | None = None, **options: Any) -> None:
        spec = TableSpec.build("trigono", seats=["Ana", "Ben"], boards=boards or ["B1"], seed=1,
                               options={"first": "Ana", **options}, referee={"settle_s": settle_s})
        self.body = spec.entry_body(1, settle_s)
        table = make_table("t1", self.body, 0.0)
        assert isinstance(table, TrigonoTable)
        self.table = table
        self.log: list[Entry] = []
        self._ids = count(2)
        self._seqs: dict[str, int] = {}
        self.now = 0.0

    def _apply(self, source: str, body: dict[str, Any], **kw: Any) -> Entry:
        entry = Entry(next(self._ids), self.now, source, "t1", body, **kw)
        self.table.apply_entry(entry)
        self.log.append(entry)
        return entry

    def device(self, kind: str, *, t_ms: int, board: str = "B1", **fields: Any) -> Entry:
        """A board's event at ``t_ms`` on its own clock (arriving at ``self.now``)."""
        seq = self._seqs[board] = self._seqs.get(board, 0) + 1
        msg = {"type": kind, "board": board, "boot": 1, "seq": seq, "t_us": t_ms * 1000, **fields}
        return self._apply("device", msg, board=board, boot=1, seq=seq)

    def console(self, **inp: Any) -> Entry:
        return self._apply("console", {"input": inp, "by": "referee"})

    def tick(self, now: float) -> None:
        """What the hub's timer does: store and apply every entry the table says is due."""
        self.now = now
        for body in self.table.due(now):
            self._apply("hub", body)

    def throws(self) -> list[dict[str, Any]]:
        return [a["action"]["throw"] for a in self.table.actions if "throw" in a["action"]]

    def refold(self) -> Table:
        """A new table from the same entries (what a restart does)."""
        table = make_table("t1", self.body, 0.0)
        for entry in self.log:
            try:
                table.apply_entry(entry)
            except (BadInputError, RefusedError):
                pass
        return table


def prompt_kinds(table: Table) -> list[str]:
    return [p["kind"] for p in table.prompts()]


def test_a_drop_is_the_current_throwers_once_the_settle_window_closes_T5() -> None:
    f = Fold(settle_s=1.0)
    f.device("drop", t_ms=0, hole="big")
    assert f.throws() == [] and prompt_kinds(f.table) == ["valid"]
    f.tick(0.9)
    assert f.throws() == []  # still settling: a knock-in may follow (T12)
    f.tick(1.0)
    assert f.throws() == [{"player": "Ana", "to": "B1.big"}]
    assert f.table.state.current_player() == "Ben" and prompt_kinds(f.table) == ["landed"]


def test_a_second_drop_in_the_window_on_the_boards_clock_is_a_knock_in_T12() -> None:
    f = Fold(settle_s=0.4)
    f.console(landed="board:B1")
    f.console(landed="board:B1")
    f.device("drop", t_ms=0, hole="small")
    f.device("drop", t_ms=300, hole="big")
    f.tick(5.0)
    assert f.throws()[-1] == {"player": "Ana", "to": "B1.small",
                              "knocked": [{"from": "B1", "to": "B1.big"}]}


def test_a_drop_after_the_window_on_the_boards_clock_resolves_the_first_at_once() -> None:
    f = Fold(settle_s=0.4)
    f.device("drop", t_ms=0, hole="big")
    f.device("drop", t_ms=2000, hole="small")  # a backlog arriving at once: the clock says when
    assert f.throws() == [{"player": "Ana", "to": "B1.big"}]
    f.tick(10.0)
    assert f.throws() == [{"player": "Ana", "to": "B1.big"}, {"player": "Ben", "to": "B1.small"}]


def test_drops_that_make_no_legal_throw_ask_the_referee_and_a_void_fixes_it() -> None:
    f = Fold(settle_s=0.3)
    f.device("drop", t_ms=0, hole="small")
    second = f.device("drop", t_ms=100, hole="big")  # nothing lay on B1: no knock-in possible
    f.tick(1.0)
    assert f.table.stuck and prompt_kinds(f.table) == ["fix"]
    assert f.table.due(99.0) == []  # a stuck throw waits for the referee, not the clock
    f.console(void=second.id)
    assert f.throws() == [{"player": "Ana", "to": "B1.small"}] and f.table.throw is None
    assert f.table.alerts == []


def test_a_bounce_out_is_logged_and_never_scored_T11() -> None:
    f = Fold()
    f.device("bounce", t_ms=0, hole="big")
    f.tick(5.0)
    assert f.table.actions == [] and f.table.state.current_player() == "Ana"


def test_a_blocked_beam_counts_as_a_drop_and_alerts_until_cleared_T13() -> None:
    f = Fold()
    f.device("blocked", t_ms=0, hole="small")
    f.tick(2.0)
    assert f.throws() == [{"player": "Ana", "to": "B1.small"}]
    assert [a["key"] for a in f.table.alerts] == ["blocked:B1.small"]
    f.device("cleared", t_ms=3000, hole="small")
    assert f.table.alerts == []


def test_the_referee_marks_a_settling_drop_invalid_T10() -> None:
    f = Fold()
    f.device("drop", t_ms=0, hole="big")
    (prompt,) = f.table.prompts()
    f.console(answer={"prompt": prompt["id"], "choice": "invalid"})
    f.tick(1.0)
    assert f.throws() == [{"player": "Ana", "to": "B1.big", "invalid": True}]


def test_the_landed_prompt_takes_one_answer_and_refuses_stale_or_wrong_ones_R2() -> None:
    f = Fold()
    (prompt,) = f.table.prompts()
    assert prompt["kind"] == "landed" and prompt["choices"] == ["board:B1", "floor"]
    f.console(answer={"prompt": prompt["id"], "choice": "floor"})
    with pytest.raises(RefusedError):
        f.console(answer={"prompt": prompt["id"], "choice": "floor"})
    with pytest.raises(BadInputError):
        f.console(answer={"prompt": f.table.prompts()[0]["id"], "choice": "moon"})
    assert f.throws() == [{"player": "Ana", "to": "floor"}]


def test_throw_line_button_and_weight_sensor_answer_for_the_console_R2() -> None:
    f = Fold()
    f.device("weight", t_ms=0, board_palets=1)  # one more palet on B1: Ana's rests there
    f.device("button", t_ms=100, button="floor")  # Ben's went to the floor
    assert f.throws() == [{"player": "Ana", "to": "board:B1"}, {"player": "Ben", "to": "floor"}]


def test_a_round_end_disarms_the_sensors_until_the_next_round_T14() -> None:
    f = Fold(palets_per_player=2)
    for _ in range(4):  # Ana throws both; Ben's last chance (T14) misses too: a draw
        f.console(landed="floor")
    assert not f.table.armed and prompt_kinds(f.table) == ["next_round"]
    f.device("drop", t_ms=0, hole="big")  # a palet picked out of a hole
    f.tick(5.0)
    assert len(f.table.actions) == 4
    f.console(next_round=True)
    assert f.table.armed and prompt_kinds(f.table) == ["landed"]


def test_a_hello_with_holes_outside_the_layout_is_an_alert() -> None:
    f = Fold()
    f.device("hello", t_ms=0, fw="1.0", config="c", holes=["big", "small", "extra"])
    assert [a["key"] for a in f.table.alerts] == ["unmapped:B1"]
    f.device("hello", t_ms=10, fw="1.0", config="c", holes=["big", "small"])
    assert f.table.alerts == []


def test_refolding_the_log_and_folding_on_from_a_snapshot_give_the_same_table_R1() -> None:
    f = Fold(settle_s=0.4)
    f.device("drop", t_ms=0, hole="big")
    f.tick(1.0)
    f.console(landed="floor")
    snapshot = copy.deepcopy(f.table.dump())
    at_snapshot = len(f.log)
    f.device("drop", t_ms=5000, hole="small")
    f.device("drop", t_ms=5100, hole="big")
    f.tick(7.0)
    f.console(undo=True)
    f.console(landed="board:B1")
    assert f.refold().view() == f.table.view()
    resumed = make_table("t1", f.body, 0.0)
    resumed.load(snapshot)
    for entry in f.log[at_snapshot:]:
        resumed.apply_entry(entry)
    assert resumed.view() == f.table.view()
    assert replay(f.table.record()).to_json() == f.table.state.to_json()


def test_a_layout_binding_that_names_no_hole_of_the_layout_is_refused() -> None:
    with pytest.raises(BadInputError):
        Fold(boards=[{"board": "B1", "holes": {"big": "B9.big"}}])


def test_the_window_closes_on_the_boards_clock_so_a_delayed_knock_in_joins_it_T12() -> None:
    """Issue 13 finding 6: a knock-in that reaches the hub late (a broker restart, a
    resend) is still a knock-in: the window closes only once the board has shown that its
    own time passed it — or, for a board gone silent, FALLBACK_S later on the hub's clock."""
    f = Fold(settle_s=0.4)
    f.console(landed="board:B1")
    f.console(landed="board:B1")
    shown: dict[tuple[str, int], int] = {}

    def tick(now: float) -> None:
        f.now = now
        for body in f.table.due(now, lambda board, boot: shown.get((board, boot))):
            f._apply("hub", body)

    f.device("drop", t_ms=0, hole="small")
    shown[("B1", 1)] = 0
    tick(3.0)  # long past on the hub's clock; the board has shown nothing later
    assert f.table.throw is not None and f.table.clock_wanted(3.0) == ("B1", 1)
    f.device("drop", t_ms=300, hole="big")  # delayed 3 s by the network
    shown[("B1", 1)] = 300_000 + 1_000_000  # then a health message: the board's time moved on
    tick(3.1)
    assert f.throws()[-1] == {"player": "Ana", "to": "B1.small", "knocked": [{"from": "B1", "to": "B1.big"}]}
    f.device("drop", t_ms=5000, hole="big")
    tick(3.1 + 0.4 + throws.FALLBACK_S)  # the board went silent: the hub's clock closes it
    assert f.table.throw is None and f.throws()[-1] == {"player": "Ben", "to": "B1.big"}


def test_events_alerts_and_prompts_are_kinds_with_params_for_any_language() -> None:
    f = Fold(settle_s=0.4)
    f.device("hello", t_ms=0, fw="1.0", config="c", holes=["big", "small", "top"])
    f.device("drop", t_ms=10, hole="big")
    (prompt,) = f.table.prompts()
    assert (prompt["kind"], prompt["params"]) == ("valid", {"hole": "B1.big"})
    f.tick(1.0)
    f.console(landed="floor")
    view = f.table.view()
    assert [(e["kind"], e["params"]) for e in view["events"]] == [
        ("hello", {"board": "B1", "fw": "1.0", "holes": ["big", "small", "top"]}),
        ("drop", {"hole": "B1.big", "player": "Ana"}),
        ("throw", {"player": "Ana", "hole": "B1.big", "n": 0, "invalid": False}),
        ("input", {"by": "referee", "key": "landed", "value": "floor", "player": None})]
    assert all("text" not in e for e in view["events"])  # no words (issue 31.5)
    assert "question" not in f.table.prompts()[0]
    (alert,) = view["alerts"]
    assert (alert["kind"], alert["params"], alert["board"]) == (
        "unmapped", {"board": "B1", "holes": ["top"]}, "B1")
    assert (f.table.prompts()[0]["kind"], f.table.prompts()[0]["params"]) == ("landed", {})


def test_sensor_events_say_whether_a_void_can_take_them_out_and_whether_one_did() -> None:
    f = Fold(settle_s=0.4)
    hello = f.device("hello", t_ms=0, fw="1.0", config="c", holes=["big", "small"])
    drop = f.device("drop", t_ms=10, hole="big")

    def marks() -> dict[int | None, tuple[bool, bool]]:
        return {e["id"]: (e["voidable"], e["voided"]) for e in f.table.view()["events"]}

    assert marks()[drop.id] == (True, False) and marks()[hello.id] == (False, False)  # settling
    f.tick(1.0)
    assert marks()[drop.id] == (True, False)  # scored: a void takes the throw out
    f.console(void=drop.id)
    assert marks()[drop.id] == (False, True) and f.table.actions == []
    with pytest.raises(RefusedError):
        f.console(void=drop.id)


def test_once_a_throw_is_scored_the_boards_are_asked_to_test_their_beams() -> None:
    f = Fold(settle_s=0.4, boards=["B1", "B2"])
    f.device("drop", t_ms=0, hole="big")
    assert f.table.take_commands() == []  # settling: a palet may still fall
    f.tick(1.0)
    assert f.table.take_commands() == [("B1", "selftest"), ("B2", "selftest")]
    assert f.table.take_commands() == []  # asked once
    f.console(landed="floor")
    assert f.table.take_commands() == []  # no sensor throw, no new test


def test_at_each_new_round_the_boards_are_asked_to_tare_their_load_cells() -> None:
    f = Fold(palets_per_player=2)
    for _ in range(4):  # a round of floor throws: the sensors are disarmed
        f.console(landed="floor")
    f.table.take_commands()
    f.console(next_round=True)
    assert f.table.take_commands() == [("B1", "tare")]
