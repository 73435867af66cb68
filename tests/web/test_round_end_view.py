"""The view's ``round_end`` (issue 32.19, what the screens draw between a round's last
throw and the referee's "palets collected"): the board as that throw left it, the same
after a restart from a snapshot (which does not hold it: the hub replays the actions),
gone once the next round starts, and after an undo of the round's last throw."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.facade import Hub

WINNING_ROUND = ["board:B1", "B1.big", "board:B1"]  # Ben wins round 1, one palet on B1


def test_round_end_is_the_last_throws_board_until_the_next_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hub.tables.tableset.SNAPSHOT_EVERY", 2)  # the restart reads a snapshot
    db = tmp_path / "hub.db"
    hub = Hub(db, settle_s=0.05)
    hub.start()
    try:
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                         options={"first": "Ana", "palets_per_player": 2})
        for where in WINNING_ROUND[:-1]:
            assert hub.submit("t1", {"landed": where})["round_end"] is None  # the round goes on
        view = hub.submit("t1", {"landed": WINNING_ROUND[-1]})
    finally:
        hub.close()
    end = view["round_end"]
    assert view["state"]["round"] == 2 and view["state"]["boards"] == {"B1": 0}
    assert end == {"round": 1, "winner": "Ben", "hands": {"Ana": 0, "Ben": 3}, "boards": {"B1": 1},
                   "holes": {"B1.big": 0, "B1.small": 0}, "floor": 0, "eliminated": []}
    again = Hub(db, settle_s=0.05)
    again.start()
    try:
        assert again.table_view("t1")["round_end"] == end
        assert again.submit("t1", {"undo": True})["round_end"] is None  # the round's last throw taken back
        assert again.submit("t1", {"landed": WINNING_ROUND[-1]})["round_end"] == end
        after = again.submit("t1", {"next_round": True})
        assert after["round_end"] is None and after["armed"]
    finally:
        again.close()
