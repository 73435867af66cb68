"""Issue 24.3: one writer per SQLite store. Two ``trigono hub`` processes on one file
interleaved entries and snapshots (49 throws shown instead of 69 after a restart): the
second now refuses to start with one line, and the lock goes with the first's process,
however it ends. Issue 24.8: a read-only location is one line too, not a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# A hub that refuses to start exits within a second or two; the limit only catches a hang
# (30 s was not enough for Python's imports on a 2-core machine at load 20).
REFUSAL_TIMEOUT_S = 180


def hub_args(db: Path) -> list[str]:
    return [sys.executable, "-m", "hub", "hub", "--db", str(db), "--settle", "0.05"]


def start_hub(db: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(hub_args(db), cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert json.loads(proc.stdout.readline())["hub"] == "ready"
    return proc


@pytest.mark.slow  # a second hub process, ~3 s: the fast loop stays under a minute; the whole suite runs it
def test_a_second_hub_on_the_same_sqlite_file_refuses_to_start_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    first = start_hub(db)
    try:
        second = subprocess.run(hub_args(db), cwd=ROOT, capture_output=True, text=True, timeout=REFUSAL_TIMEOUT_S)
        assert second.returncode == 2
        lines = second.stderr.strip().splitlines()
        assert lines == [f"--db: another hub (pid {first.pid}) is already using {db}: one hub per "
                         "SQLite file; stop it or give this one another --db"]
        assert second.stdout == ""
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        assert first.stdout is not None
        first.stdout.close()
    # The kernel dropped the lock with the killed process: a new hub starts.
    again = start_hub(db)
    again.send_signal(signal.SIGTERM)
    assert again.wait(timeout=20) == 0
    assert again.stdout is not None
    again.stdout.close()


def test_a_read_only_store_location_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    if os.geteuid() == 0:  # root writes into any folder; sysfs refuses even root
        db, folder = Path("/sys/trigono-run.db"), None
    else:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o500)
        db = folder / "run.db"
    try:
        run = subprocess.run(hub_args(db), cwd=ROOT, capture_output=True, text=True, timeout=REFUSAL_TIMEOUT_S)
    finally:
        if folder is not None:
            folder.chmod(0o700)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"--db: cannot open the event store {db} for writing: Permission denied"]
