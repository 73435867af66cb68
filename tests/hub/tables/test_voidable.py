"""Issue 26 item 7: the view marks a sensor event ``voidable`` exactly when the hub would
accept its void (the console offers "Void" only there). Pure folds, as test_referee.py."""

from __future__ import annotations

from hub.errors import RefusedError
from hub.log.store import Entry
from hub.tables.referee import TrigonoTable
from tests.hub.tables.test_referee import Fold


def void_accepted(table: TrigonoTable, entry_id: int) -> bool:
    """What the hub does with a void of ``entry_id``, tried on a copy of the table."""
    twin = table.trial()
    try:
        twin.apply_entry(Entry(10_000, 99.0, "console", "t1", {"input": {"void": entry_id}, "by": "referee"}))
    except RefusedError:
        return False
    return True


def marks(table: TrigonoTable) -> dict[int, bool]:
    return {e["id"]: e["voidable"] for e in table.view()["events"] if e["source"] == "device"}


def test_an_old_drop_is_not_voidable_when_its_void_would_be_refused_and_the_last_one_is_R1() -> None:
    f = Fold(settle_s=0.3)
    ana = f.device("drop", t_ms=0, hole="big")
    f.tick(1.0)
    ben = f.device("drop", t_ms=5000, hole="small")
    f.tick(7.0)
    assert [t["player"] for t in f.throws()] == ["Ana", "Ben"]
    shown = marks(f.table)
    assert shown[ana.id] is False and shown[ben.id] is True  # Ana's out would make Ben's throw hers
    assert {e: void_accepted(f.table, e) for e in shown} == shown


def test_an_open_throws_drop_and_a_knock_in_of_an_old_throw_are_voidable_where_accepted_T12() -> None:
    f = Fold(settle_s=0.4)
    f.console(landed="board:B1")  # Ana's palet lies on B1
    f.console(landed="board:B1")  # Ben's too
    thrown = f.device("drop", t_ms=10_000, hole="small")  # Ana: into the small hole ...
    knocked = f.device("drop", t_ms=10_100, hole="big")  # ... knocking one of B1's palets in
    f.tick(12.0)
    assert f.throws()[-1] == {"player": "Ana", "to": "B1.small", "knocked": [{"from": "B1", "to": "B1.big"}]}
    f.console(landed="floor")  # Ben
    opened = f.device("drop", t_ms=20_000, hole="small")  # Ana again, still settling
    shown = marks(f.table)
    assert shown[opened.id] is True
    assert shown[thrown.id] is False  # Ana's throw out: Ben's floor throw would be out of turn
    assert {e: void_accepted(f.table, e) for e in shown} == shown
    assert shown[knocked.id] == void_accepted(f.table, knocked.id)


def test_a_knock_in_of_the_last_throw_is_marked_as_its_void_would_be_taken_T12() -> None:
    f = Fold(settle_s=0.4)
    f.console(landed="board:B1")  # Ana
    f.console(landed="board:B1")  # Ben
    thrown = f.device("drop", t_ms=10_000, hole="small")  # Ana: into the small hole ...
    knocked = f.device("drop", t_ms=10_100, hole="big")  # ... knocking one of B1's palets in
    f.tick(12.0)
    assert f.throws()[-1].get("knocked") == [{"from": "B1", "to": "B1.big"}]
    shown = marks(f.table)
    assert shown[thrown.id] is True  # the last throw: taking it out is always possible
    assert {e: void_accepted(f.table, e) for e in shown} == shown
    assert shown[knocked.id] is True


def test_voided_entries_are_marked_and_no_longer_voidable() -> None:
    f = Fold(settle_s=0.3)
    drop = f.device("drop", t_ms=0, hole="big")
    f.tick(1.0)
    assert marks(f.table)[drop.id] is True
    f.console(void=drop.id)
    event = next(e for e in f.table.view()["events"] if e["id"] == drop.id)
    assert event["voided"] is True and event["voidable"] is False
    assert not void_accepted(f.table, drop.id)
