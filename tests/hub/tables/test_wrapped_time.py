"""The hub's side of wrapped device time: t_us is ticks_us, which wraps at 2**30 µs
(about 18 minutes), so the referee subtracts it modulo 2**30 (issue 14, finding 4)."""

from __future__ import annotations

from pathlib import Path

from firmware import protocol
from tests.hub.boards import Outbox
from tests.hub.conftest import Rig

WRAP = 1 << 30


def test_T12_knock_in_across_the_ticks_wrap_joins_the_throw(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "hub.db")
    try:
        rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1,
                             options={"first": "Ana"}, referee={"settle_s": 0.4})
        rig.hub.submit("t1", {"landed": "board:B1"})
        rig.hub.submit("t1", {"landed": "board:B1"})
        # The board said hello 4 ms before the drops on its own clock, as a real one does
        # (a hello at a random time could lie "after" the drops modulo 2**30, and a tick
        # between the two drops would then close the window at once).
        rig.boards["B1"] = Outbox("B1")
        rig.send(rig.boards["B1"].make("hello", fw="test-1", config="cfg", holes=["big", "small"],
                                       t_us=WRAP - 5000))
        rig.event("B1", "drop", hole="small", t_us=WRAP - 1000)  # 1 ms before the wrap
        last = rig.event("B1", "drop", hole="big", t_us=2000)  # 3 ms later on the board's clock
        # the board's health shows its clock 1 s past the drops (the hub may wait for it)
        rig.send({"type": "health", "board": "B1", "boot": last["boot"], "seq": last["seq"],
                  "t_us": 1_002_000, "uptime_s": 9, "mem_free": 1000, "beams": {}, "counters": {},
                  "overflow": 0})
        view = rig.settled()
        throw = [e["action"]["throw"] for e in view["state"]["log"] if "throw" in e["action"]][-1]
        assert throw == {"player": "Ana", "to": "B1.small", "knocked": [{"from": "B1", "to": "B1.big"}]}
    finally:
        rig.close()


def test_t_us_difference_is_modular() -> None:
    assert protocol.t_us_diff(5, WRAP - 5) == 10
    assert protocol.t_us_diff(WRAP - 5, 5) == -10
    assert protocol.t_us_diff(123, 100) == 23
