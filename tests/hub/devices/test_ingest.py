"""Device ingest as pure bookkeeping (hub/devices/ingest.py): no threads, no clock, no store.

Each test feeds arrivals made with the real codec's message shapes and checks the three
outputs — entries to store, acks to send, alerts — and the board health (docs/design.md §5:
cumulative acks mean "everything up to here is stored")."""

from __future__ import annotations

from itertools import count
from typing import Any

from firmware import protocol
from hub.devices import ingest
from hub.devices.health import SeqTracker
from hub.devices.ingest import ACK_EVERY_S, Arrival, IngestState, Intake
from hub.tables.wording import line

LINK = "link-1"
_ids = count(1)


def drop(seq: int, board: str = "B1", boot: int = 1) -> dict[str, Any]:
    msg = {"type": "drop", "board": board, "boot": boot, "seq": seq, "hole": "big",
           "t_us": (1000 * seq) & protocol.T_US_MASK}
    assert protocol.validate(msg) is None
    return msg


def arrive(*msgs: dict[str, Any], at: float = 100.0) -> list[Arrival[str]]:
    return [Arrival(LINK, m, "fake:1", at) for m in msgs]


def commit(state: IngestState[str], intake: Intake[str],
           already: frozenset[int] = frozenset()) -> list[tuple[str, Any]]:
    """What the store would do: give ids, None for an event it had already."""
    ids = [None if e.seq in already else next(_ids) for e in intake.entries]
    return ingest.stored(state, intake, ids)


def ack_seqs(intake: Intake[str]) -> list[int]:
    return [a.msg["seq"] for a in intake.acks]


def new_state(gap_timeout_s: float = 5.0) -> IngestState[str]:
    return IngestState(bound={"B1": "t1"}, seqs=SeqTracker(gap_timeout_s))


def test_in_order_events_become_entries_for_the_bound_table_and_one_cumulative_ack() -> None:
    state = new_state()
    intake = ingest.take(state, arrive(drop(1), drop(2), drop(3)), now=0.0)
    assert [(e.table_id, e.board, e.boot, e.seq, e.source) for e in intake.entries] == [
        ("t1", "B1", 1, s, "device") for s in (1, 2, 3)]
    assert ack_seqs(intake) == [3] and intake.acks[0].link == LINK and intake.alerts == []
    applied = commit(state, intake)
    assert [(t, e.seq) for t, e in applied] == [("t1", 1), ("t1", 2), ("t1", 3)]
    assert all(e.id is not None for _, e in applied)
    health = state.health["B1"]
    assert (health.received, health.last_seq, health.status, health.quality) == (3, 3, "online", 1.0)


def test_an_event_after_a_gap_is_held_unstored_and_the_ack_stays_below_the_gap() -> None:
    state = new_state()
    commit(state, ingest.take(state, arrive(drop(1)), now=0.0))
    intake = ingest.take(state, arrive(drop(4)), now=1.0)
    assert intake.entries == [] and ack_seqs(intake) == [1]
    assert [a.text for a in intake.alerts] == ["seq gap: seqs 2-3 of boot 1 missing"]
    assert state.health["B1"].gaps == 2
    intake = ingest.take(state, arrive(drop(2), drop(3)), now=2.0)
    assert [e.seq for e in intake.entries] == [2, 3, 4]  # released in order
    assert ack_seqs(intake) == [4]


def test_a_duplicate_is_acknowledged_again_but_neither_stored_nor_applied() -> None:
    state = new_state()
    commit(state, ingest.take(state, arrive(drop(1), drop(2)), now=0.0))
    intake = ingest.take(state, arrive(drop(2)), now=1.0)
    assert intake.entries == [] and ack_seqs(intake) == [2]
    assert state.health["B1"].resends == 1


def test_acks_are_paced_per_link_board_and_boot_and_the_held_one_is_sent_by_the_timer() -> None:
    state = new_state()
    assert ack_seqs(ingest.take(state, arrive(drop(1)), now=10.0)) == [1]
    held = ingest.take(state, arrive(drop(2)), now=10.0 + ACK_EVERY_S / 2)
    assert [e.seq for e in held.entries] == [2] and held.acks == []
    state.registered.add("B2")
    other = ingest.take(state, arrive(drop(1, board="B2")), now=10.0 + ACK_EVERY_S / 2)
    assert ack_seqs(other) == [1]  # another board is not held back
    due = ingest.due_acks(state, now=10.2)
    assert [(a.board, a.msg) for a in due] == [("B1", protocol.ack(1, 2))]
    assert ingest.due_acks(state, now=10.3) == []


def test_an_event_the_store_already_had_counts_as_a_resend_and_is_not_applied() -> None:
    state = new_state()
    intake = ingest.take(state, arrive(drop(1), drop(2)), now=0.0)
    applied = commit(state, intake, already=frozenset({1}))
    assert [e.seq for _, e in applied] == [2]
    assert (state.health["B1"].resends, state.health["B1"].received) == (1, 1)


def test_an_unbound_board_is_heard_but_neither_stored_nor_acknowledged_unless_registered() -> None:
    """Issue 24.2: another hub on the broker may referee it; acknowledging its events here
    made the board discard them (hub A lost 21 of 73 events while it was down)."""
    state = new_state()
    intake = ingest.take(state, arrive(drop(1, board="B9")), now=0.0)
    assert intake.entries == [] and intake.acks == []
    assert state.health["B9"].unrefereed == 1  # heard: the admin can bind it
    state.registered.add("B9")  # trigono hub --board B9
    intake = ingest.take(state, arrive(drop(1, board="B9")), now=1.0)
    assert [e.table_id for e in intake.entries] == [None]
    assert commit(state, intake) == []
    assert ack_seqs(intake) == [1]


def test_health_and_status_are_stored_undeduplicated_and_a_lost_link_is_an_alert() -> None:
    state = new_state()
    health = {"type": "health", "board": "B1", "uptime_s": 5, "mem_free": 9000, "overflow": 0,
              "beams": {"big": "ok", "small": "fault"}}
    status = {"type": "status", "board": "B1", "status": "lost"}
    intake = ingest.take(state, arrive(health, health, status), now=0.0)
    assert [(e.seq, e.table_id) for e in intake.entries] == [(None, None)] * 3
    assert intake.acks == []
    assert commit(state, intake) == []
    h = state.health["B1"]
    assert h.status == "lost" and h.beam_faults == {"small"} and h.uptime_s == 5
    assert [line(a) for a in h.alerts] == ["link lost (fake:1)"]
    assert intake.boards == ["B1"]


def test_a_gap_the_board_does_not_fill_while_talking_is_given_up_and_the_held_events_released() -> None:
    """Issue 13 finding 3: never while the board may still resend (it kept talking for
    give_up_s, longer than its own resend period, without filling the gap)."""
    state = new_state(gap_timeout_s=5.0)
    commit(state, ingest.take(state, arrive(drop(1), at=100.0), now=0.0))
    intake = ingest.take(state, arrive(drop(3), drop(4), at=101.0), now=1.0)
    assert [a.msg for a in intake.asks] == [protocol.command(0, "resend")]  # asked at once
    assert ingest.expire(state, now=106.5, mono=6.5, lost_after_s=30.0).entries == []  # silent
    ingest.take(state, arrive(drop(5), at=104.0), now=4.0)
    intake = ingest.expire(state, now=106.5, mono=6.5, lost_after_s=30.0)
    assert [e.seq for e in intake.entries] == [3, 4, 5] and ack_seqs(intake) == [5]
    assert [a.text for a in intake.alerts] == [
        "gave up waiting: the board kept talking without resending seq 2 of boot 1: lost"]
    assert state.health["B1"].lost_events == 1


def test_a_gap_is_given_up_at_once_when_the_board_says_it_no_longer_holds_it() -> None:
    state = new_state()
    commit(state, ingest.take(state, arrive(drop(1), at=100.0), now=0.0))
    ingest.take(state, arrive(drop(4), at=101.0), now=1.0)
    holds = {"type": "health", "board": "B1", "boot": 1, "seq": 4, "t_us": 9, "uptime_s": 5,
             "mem_free": 9000, "overflow": 2, "beams": {}, "counters": {"unacked": 1}}
    intake = ingest.take(state, arrive(holds, at=102.0), now=2.0)
    assert [e.seq for e in intake.entries] == [4, None] and ack_seqs(intake) == [4]
    assert state.health["B1"].lost_events == 2


def test_a_seq_far_past_the_mark_is_refused_never_acknowledged() -> None:
    """Issue 13 finding 2: one far-future seq neither blacks the board out nor grows memory."""
    state = new_state()
    commit(state, ingest.take(state, arrive(drop(1)), now=0.0))
    intake = ingest.take(state, arrive(drop(protocol.MAX_COUNT)), now=1.0)
    assert intake.entries == [] and ack_seqs(intake) == [] and state.seqs.held("B1") == 0
    assert state.health["B1"].refused == 1
    intake = ingest.take(state, arrive(drop(2)), now=2.0)
    assert [e.seq for e in intake.entries] == [2] and ack_seqs(intake) == [2]


def test_a_silent_board_is_marked_lost_once() -> None:
    state = new_state()
    commit(state, ingest.take(state, arrive(drop(1), at=100.0), now=0.0))
    assert ingest.expire(state, now=129.0, mono=29.0, lost_after_s=30.0).alerts == []
    intake = ingest.expire(state, now=131.0, mono=31.0, lost_after_s=30.0)
    assert [(a.board, a.text) for a in intake.alerts] == [("B1", "silent for 30 s")]
    assert state.health["B1"].status == "lost"
    assert ingest.expire(state, now=140.0, mono=40.0, lost_after_s=30.0).alerts == []


def test_after_a_restart_the_stored_marks_acknowledge_resends_without_storing_them_again() -> None:
    state = new_state()
    state.restore({"B1": 90.0}, {("B1", 1): (1, 7, 7)})
    assert (state.health["B1"].status, state.health["B1"].last_seq) == ("unknown", 7)
    intake = ingest.take(state, arrive(drop(6), drop(7), drop(8)), now=0.0)
    assert [e.seq for e in intake.entries] == [8] and ack_seqs(intake) == [8]
    assert state.health["B1"].resends == 2


def test_a_new_boot_starts_its_own_sequence() -> None:
    state = new_state()
    commit(state, ingest.take(state, arrive(drop(1), drop(2)), now=0.0))
    intake = ingest.take(state, arrive(drop(1, boot=2)), now=1.0)
    assert [(e.boot, e.seq) for e in intake.entries] == [(2, 1)]
    assert [a.msg for a in intake.acks] == [protocol.ack(2, 1)]
    commit(state, intake)
    assert (state.health["B1"].boot, state.health["B1"].last_seq) == (2, 1)


def test_unknown_boards_are_bounded_and_only_counted_beyond_the_limit() -> None:
    """Issue 13 finding 7: made-up board ids cannot grow the board list without limit."""
    state = new_state()
    names = [f"X{n}" for n in range(ingest.MAX_UNREGISTERED + 100)]
    intake = ingest.take(state, arrive(*(drop(1, board=b) for b in names)), now=0.0)
    assert ingest.MAX_UNREGISTERED == len(state.health)
    assert intake.entries == [] and intake.acks == []  # none refereed here (issue 24.2)
    assert len(state.strangers) == ingest.MAX_STRANGERS and state.stranger_messages == 100
    unregistered = state.unregistered()
    assert len(unregistered) == ingest.MAX_UNREGISTERED + ingest.MAX_STRANGERS
    assert unregistered[-1]["admitted"] is False and unregistered[-1]["messages"] == 1
    state.ignore("X0")
    assert "X0" not in state.health and ingest.take(state, arrive(drop(2, board="X0")), now=1.0).entries == []
    # a bound board is always taken, whatever the count; binding takes an ignored one back
    assert [e.seq for e in ingest.take(state, arrive(drop(1)), now=2.0).entries] == [1]
    state.bind("X0", "t9")
    assert [e.table_id for e in ingest.take(state, arrive(drop(1, board="X0")), now=3.0).entries] == ["t9"]


def test_after_a_restart_an_older_boot_resent_is_known_too() -> None:
    """A board that keeps its outbox across a reset may resend an older boot's events after
    the hub restarted: they are duplicates, not a gap."""
    state = new_state()
    state.restore({"B1": 90.0}, {("B1", 1): (1, 7, 7), ("B1", 2): (1, 3, 3)})
    intake = ingest.take(state, arrive(drop(7, boot=1), drop(8, boot=1), drop(4, boot=2)), now=0.0)
    assert [(e.boot, e.seq) for e in intake.entries] == [(1, 8), (2, 4)] and intake.alerts == []


def test_the_board_holding_an_older_boot_keeps_a_newer_boots_gap_whatever_the_ids() -> None:
    """Boot ids are not in time order (the counter restarts after a flash erase): what the
    board still holds is judged by the order the hub saw its boots in."""
    state = new_state()
    old, new = 5 << 16, 1 << 16  # the newer boot has the smaller id
    commit(state, ingest.take(state, arrive(drop(1, boot=old), drop(3, boot=old), at=100.0), now=0.0))
    commit(state, ingest.take(state, arrive(drop(1, boot=new), drop(3, boot=new), at=101.0), now=1.0))
    def holds(boot: int, seq: int) -> dict[str, Any]:
        return {"type": "health", "board": "B1", "boot": new, "seq": 3, "t_us": 9, "uptime_s": 5,
                "mem_free": 9000, "overflow": 0, "beams": {},
                "counters": {"unacked": 3, "oldest_boot": boot, "oldest_seq": seq}}
    intake = ingest.take(state, arrive(holds(old, 2), at=102.0), now=2.0)
    assert [e.seq for e in intake.entries] == [None]  # it still holds old seq 2, so new seq 2 too
    intake = ingest.take(state, arrive(holds(new, 3), at=103.0), now=3.0)
    assert sorted((e.boot, e.seq) for e in intake.entries if e.seq) == [(new, 3), (old, 3)]
    assert state.health["B1"].lost_events == 2


def test_a_boot_first_heard_far_from_seq_1_is_taken_once_its_health_says_where_it_stands() -> None:
    """A hub on a fresh store meets a board whose boot is long under way: its seqs are
    refused (too far past 0) until its health says the oldest event it holds."""
    state = new_state()
    assert ingest.take(state, arrive(drop(5000)), now=0.0).entries == []
    holds = {"type": "health", "board": "B1", "boot": 1, "seq": 5001, "t_us": 9, "uptime_s": 5,
             "mem_free": 9000, "overflow": 0, "beams": {}, "counters": {"unacked": 2}}
    ingest.take(state, arrive(holds), now=1.0)
    intake = ingest.take(state, arrive(drop(5000), drop(5001)), now=2.0)
    assert [e.seq for e in intake.entries] == [5000, 5001] and ack_seqs(intake) == [5001]
    assert state.health["B1"].lost_events == 0


def test_cmd_newboot_is_asked_again_until_the_hello_of_a_fresh_boot_arrives() -> None:
    """Hub → board messages go at QoS 0: a ``cmd newboot`` sent while the broker was down
    is lost, and a board acknowledged nothing may wait 16 x resend_ms before it resends."""
    from hub.devices.health import ASK_EVERY_S

    def hello(boot: int, t_us: int) -> dict[str, Any]:
        return {"type": "hello", "board": "B1", "boot": boot, "seq": 1, "t_us": t_us, "fw": "1", "config": "c",
                "holes": ["big"]}

    def newboots(intake: Intake[str]) -> list[tuple[str, dict[str, Any]]]:
        return [(a.board, a.msg) for a in intake.asks if a.msg.get("cmd") == "newboot"]

    state = new_state()
    commit(state, ingest.take(state, arrive(hello(7, 5)), now=0.0))
    spare = ingest.take(state, arrive(hello(7, 900), {**drop(2, boot=7), "t_us": 901}, {**drop(3, boot=7), "t_us": 902},
                                      at=100.0), now=1.0)
    assert spare.entries == [] and spare.acks == []  # nothing of the reused boot
    assert newboots(spare) == [("B1", protocol.command(7, "newboot"))]  # once for the batch
    assert newboots(ingest.expire(state, 100.0 + ASK_EVERY_S / 2, 2.0, 60.0)) == []
    again = ingest.expire(state, 100.0 + ASK_EVERY_S, 3.0, 60.0)
    assert newboots(again) == [("B1", protocol.command(7, "newboot"))]  # the first one was lost
    assert newboots(ingest.expire(state, 100.0 + ASK_EVERY_S * 1.5, 4.0, 60.0)) == []  # every ASK_EVERY_S
    fresh = ingest.take(state, arrive({**hello(7, 900), "boot": 0x30001}, at=100.0 + ASK_EVERY_S * 1.6), now=5.0)
    assert [e.boot for e in fresh.entries] == [0x30001] and newboots(fresh) == []
    commit(state, fresh)
    assert newboots(ingest.expire(state, 100.0 + ASK_EVERY_S * 5, 6.0, 60.0)) == []  # done: no more asks
