"""Board health (hub/devices/health.py BoardHealth): what each device message says about a
board, its link quality and its alerts. SeqTracker's rules are exercised through
tests/hub/devices/test_ingest.py and its doctests."""

from __future__ import annotations

from hub.devices.health import BoardHealth, SeqTracker


def health_msg(**beams: str) -> dict[str, object]:
    return {"type": "health", "board": "B1", "uptime_s": 12, "mem_free": 9000, "overflow": 2,
            "rssi": -61, "beams": beams}


def test_messages_update_what_the_board_is_and_what_its_beams_say() -> None:
    h = BoardHealth("B1")
    h.seen({"type": "hello", "board": "B1", "fw": "1.2", "config": "c0", "holes": ["big", "small"]},
           "serial:/dev/ttyACM0", 10.0)
    assert (h.status, h.link, h.fw, h.holes, h.last_seen) == ("online", "serial:/dev/ttyACM0", "1.2",
                                                                ["big", "small"], 10.0)
    h.seen({"type": "blocked", "board": "B1", "hole": "big"}, None, 11.0)
    h.seen({"type": "fault", "board": "B1", "hole": "small", "reason": "dead"}, None, 11.5)
    assert h.blocked == {"big"} and h.beam_faults == {"small"} and h.link == "serial:/dev/ttyACM0"
    h.seen(health_msg(big="ok", small="ok"), None, 12.0)  # the board's latest self-test wins
    assert h.blocked == set() and h.beam_faults == set() and (h.uptime_s, h.overflow, h.rssi) == (12, 2, -61)


def test_a_retained_health_message_does_not_bring_a_lost_board_back_online() -> None:
    h = BoardHealth("B1", status="lost")
    h.seen(health_msg(big="ok"), "mqtt:broker", 5.0, retained=True)
    assert h.status == "lost"
    h.seen(health_msg(big="ok"), "mqtt:broker", 6.0)  # sent now: the board is back (issue 32.10)
    assert h.status == "online"


def test_quality_is_the_share_of_messages_intact_and_in_order() -> None:
    h = BoardHealth("B1")
    assert h.quality is None
    h.received, h.corrupt, h.gaps = 96, 3, 1
    assert h.quality == 0.96 and h.to_json()["quality"] == 0.96


def test_alerts_are_kinds_with_params_and_only_the_20_newest_are_kept() -> None:
    h = BoardHealth("B1")
    for n in range(25):
        h.alert(float(n), "seq_gap", seqs=[[n, n]], boot=1)
    assert len(h.alerts) == 20 and h.alerts[0]["at"] == 5.0
    assert h.alerts[-1] == {"at": 24.0, "kind": "seq_gap", "params": {"seqs": [[24, 24]], "boot": 1}}
    assert h.to_json()["alerts"][-1] == h.alerts[-1] and h.to_json()["alerts"][-1] is not h.alerts[-1]


def test_a_rolled_back_offer_leaves_the_ack_mark_where_it_was() -> None:
    t: SeqTracker[str] = SeqTracker()
    t.offer("B1", 1, 1, "e1", now=0.0)
    t.begin()
    assert t.offer("B1", 1, 2, "e2", now=1.0).released == ["e2"] and t.ack_mark("B1", 1) == 2
    t.rollback()  # the store refused e2: it was never stored, so it is not acknowledged
    assert t.ack_mark("B1", 1) == 1
    assert t.offer("B1", 1, 2, "e2", now=2.0).released == ["e2"]  # the resend is taken
