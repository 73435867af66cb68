"""Throws from drops (hub/tables/throws.py): readings, voids, settle windows, event marks."""

from __future__ import annotations

from typing import Any

from hub.tables.throws import (
    DECIDE_S,
    FALLBACK_S,
    readings,
    settle_over,
    without_entry,
)


def drop(entry: int, hole: str, t_us: int = 0) -> dict[str, Any]:
    return {"hole": hole, "from": hole.split(".")[0], "entry": entry, "kind": "drop",
            "board": "B1", "boot": 1, "t_us": t_us}


def test_the_first_drop_is_read_as_thrown_first_then_each_other_one_T12() -> None:
    throw = {"player": "Ana", "drops": [drop(7, "B1.small"), drop(8, "B1.big")], "invalid": True}
    assert readings(throw) == [
        ({"throw": {"player": "Ana", "to": "B1.small", "invalid": True,
                    "knocked": [{"from": "B1", "to": "B1.big"}]}}, [7, 8]),
        ({"throw": {"player": "Ana", "to": "B1.big", "invalid": True,
                    "knocked": [{"from": "B1", "to": "B1.small"}]}}, [8, 7])]


def test_voiding_a_knock_in_keeps_the_throw_and_voiding_the_thrown_palet_removes_it() -> None:
    items = [{"action": {"throw": {"player": "Ana", "to": "floor"}}, "src": [3], "by": "referee"},
             {"action": {"throw": {"player": "Ben", "to": "B1.small", "knocked": [
                 {"from": "B1", "to": "B1.big"}, {"from": "B1", "to": "B1.small"}]}},
              "src": [7, 8, 9], "by": "sensors"}]
    kept = without_entry(items, 9)
    assert kept is not None and kept[1]["src"] == [7, 8]
    assert kept[1]["action"]["throw"]["knocked"] == [{"from": "B1", "to": "B1.big"}]
    assert without_entry(items, 7) == items[:1]
    assert without_entry(items, 42) is None
    assert items[1]["src"] == [7, 8, 9]  # the input is not changed


def test_the_window_closes_on_the_boards_clock_or_at_last_on_the_hubs() -> None:
    throw = {"player": "Ana", "drops": [drop(7, "B1.big", t_us=1_000_000)], "invalid": False,
             "closes_at": 100.0}
    shown: dict[tuple[str, int], int] = {}
    clock = lambda board, boot: shown.get((board, boot))  # noqa: E731
    assert settle_over(throw, 1.0, 100.0, None)  # no board clock: the hub's
    assert not settle_over(throw, 1.0, 100.0, clock)  # the board has shown nothing yet
    shown[("B1", 1)] = 1_000_000 + int((1.0 + DECIDE_S) * 1e6) + 1
    assert settle_over(throw, 1.0, 100.0, clock)
    shown.clear()
    assert settle_over(throw, 1.0, 100.0 + FALLBACK_S, clock)


# Which events are voidable is the referee's to say (a void it would accept):
# tests/hub/tables/test_voidable.py.
