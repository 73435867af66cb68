"""A hole whose sensor reports a fault (a self-test failed, or "beam B dead" after a run
of A-only passages) is shown to the referee, who can score that hole by hand from the
`landed` prompt until the board says it works again (`cleared`). Issue 14, finding 1."""

from __future__ import annotations

from pathlib import Path

from hub.tables.wording import line
from tests.hub.conftest import Rig

DEAD_B = "beam B dead: 5 passages in a row saw only beam A"


def landed_choices(rig: Rig) -> list[str]:
    view = rig.hub.table_view("t1")
    return next(p["choices"] for p in view["prompts"] if p["kind"] == "landed")


def test_a_faulty_hole_is_shown_and_scored_by_hand_until_cleared(tmp_path: Path) -> None:
    rig = Rig(tmp_path / "hub.db")
    try:
        rig.hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, options={"first": "Ana"})
        assert "B1.small" not in landed_choices(rig)
        rig.event("B1", "fault", hole="small", reason=DEAD_B)
        view = rig.settled()
        assert [line(a) for a in view["alerts"]] == [f"B1.small: sensor fault: {DEAD_B}"]
        assert "B1.small" in landed_choices(rig)  # the referee scores it by hand meanwhile
        prompt = next(p for p in view["prompts"] if p["kind"] == "landed")
        view = rig.hub.submit("t1", {"answer": {"prompt": prompt["id"], "choice": "B1.small"}})
        throws = [e["action"]["throw"] for e in view["state"]["log"] if "throw" in e["action"]]
        assert throws == [{"player": "Ana", "to": "B1.small"}]
        rig.event("B1", "cleared", hole="small")  # a passage saw both beams, or a self-test passed
        view = rig.settled()
        assert view["alerts"] == [] and "B1.small" not in landed_choices(rig)
    finally:
        rig.close()
