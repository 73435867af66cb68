"""Issue 32.1: a power cut loses nothing the boards were told is stored.

The real ``trigono hub`` runs with tests/hub/log/powercut.c preloaded: each fsync of a
file in its data folder copies that file to a "durable" folder, which therefore holds
what the disk guarantees at any instant. Two boards running the firmware's node code on
ptys play in real time; the hub is SIGKILLed mid-stream and its data folder replaced by
the durable one — a power cut that lost everything not synced. A board forgets what was
acknowledged, so every acknowledged event must be in what is left, and after a restart
every event the boards produced is stored and applied exactly once.

Before the fix (``synchronous=NORMAL``: the WAL is synced only at checkpoints) the cut
lost every acknowledged event (4 of each board, all of them: nothing had been synced).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hub.sim.board import SimBoard
from tests.chaos.rig import Boards, HubProcess, audit, live_equals_replay, stored_counts, table_spec
from tests.hub.boards import wait_for

pytestmark = [pytest.mark.chaos, pytest.mark.slow]

SHIM_SOURCE = Path(__file__).with_name("powercut.c")
BOARDS = ["S1", "S2"]
ACKED_BEFORE_CUT = 4  # events of each board acknowledged before the power goes


def build_shim(workdir: Path) -> Path:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc or cc) to build the power-cut shim")
    shim = workdir / "powercut.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(shim), str(SHIM_SOURCE), "-ldl"],
                   check=True, capture_output=True)
    return shim


def acknowledged(sim: SimBoard) -> set[tuple[int, int]]:
    """(boot, seq) of the events this board no longer keeps: the hub acknowledged them."""
    with sim._lock:
        kept = {(e["boot"], e["seq"]) for e in sim.node.outbox.items}
        return {(e["boot"], e["seq"]) for e in sim.node.events} - kept


def test_a_power_cut_keeps_every_acknowledged_event(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    shim = build_shim(tmp_path)
    data, durable = (tmp_path / "data").resolve(), (tmp_path / "durable").resolve()
    data.mkdir()
    durable.mkdir()
    db = data / "hub.db"
    boards = Boards(tmp_path, BOARDS, [], None, seed=32, resend_ms=500)
    tables = [table_spec(n, b) for n, b in enumerate(BOARDS, 1)]
    hub = HubProcess(db, [boards.paths[b] for b in BOARDS], None, tables, log=tmp_path / "hub.log")
    try:
        with monkeypatch.context() as env:
            env.setenv("LD_PRELOAD", str(shim))
            env.setenv("TRIGONO_POWERCUT_DATA", str(data))
            env.setenv("TRIGONO_POWERCUT_DURABLE", str(durable))
            hub.start()
        boards.play(period_s=0.3)
        assert wait_for(lambda: all(len(acknowledged(s)) >= ACKED_BEFORE_CUT
                                    for s in boards.boards.values()), timeout=60, every=0.05), \
            {b: len(acknowledged(s)) for b, s in boards.boards.items()}
        hub.kill()  # the power goes: no ack leaves after this
        acked = {b: acknowledged(s) for b, s in boards.boards.items()}
        for name in os.listdir(data):  # the disk after the cut: what the fsyncs guaranteed
            os.unlink(data / name)
        for name in os.listdir(durable):
            if not name.startswith("."):
                shutil.copy2(durable / name, data / name)

        counts = stored_counts(db)
        lost = {b: sorted(k for k in keys if counts.get((b, *k), 0) != 1) for b, keys in acked.items()}
        assert lost == {b: [] for b in BOARDS}, (
            f"acknowledged before the cut, not stored once after it: {lost} "
            f"(acknowledged: { {b: len(k) for b, k in acked.items()} })")

        hub.start()  # the power is back: the boards resend what was not acknowledged
        mark = boards.sent()
        assert boards.wait_each_sent(mark, 2)
        boards.pause()
        assert wait_for(boards.all_acked, timeout=60, every=0.1), {
            b: s.node.outbox.unacked() for b, s in boards.boards.items()}
        hub.stop()
        figures = audit(db, {b: s.events() for b, s in boards.boards.items()})
        print("\npower cut:", "; ".join(f.line() for f in figures),
              f"; acknowledged before the cut: { {b: len(k) for b, k in acked.items()} }")
        for f in figures:
            assert f.missing == [] and f.doubled == 0, f
        applied = live_equals_replay(db, tmp_path)  # applied once: live tables = the log's replay
        assert all(n > 0 for n in applied.values()), applied
    finally:
        hub.stop()
        boards.close()
