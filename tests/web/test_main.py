"""``python -m web`` runs a hub and serves its pages; it prints where, and stops cleanly."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

# Each test starts the hub in its own Python process (~5 s on this machine).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_python_m_web_serves_a_hub_and_stops_on_sigterm(tmp_path: Path) -> None:
    table = json.dumps({"id": "t1", "game": "trigono", "seats": ["Ana", "Ben"], "boards": ["B1"]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "web", "--db", str(tmp_path / "hub.db"), "--host", "127.0.0.1", "--port", "0",
         "--table", table],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        shown = json.loads(proc.stdout.readline())
        assert shown["password"]  # none given: one is made up and printed
        with urllib.request.urlopen(shown["web"] + "api/tables", timeout=10) as response:
            assert [t["id"] for t in json.load(response)] == ["t1"]
        with urllib.request.urlopen(shown["big_screen"], timeout=10) as response:
            assert response.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        assert proc.stdout is not None
        proc.stdout.close()
    assert code == 0
    secret = tmp_path / "hub.db.web-secret"
    assert secret.stat().st_mode & 0o077 == 0 and len(secret.read_text().strip()) == 64


def test_the_signing_key_survives_a_restart(tmp_path: Path) -> None:
    from web.__main__ import stable_secret

    first = stable_secret(str(tmp_path / "k"))
    assert stable_secret(str(tmp_path / "k")) == first
