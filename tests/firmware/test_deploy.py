"""scripts/deploy-board: config checked before touching a board; the mpremote plan."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.firmware.mp import ROOT

SCRIPT = ROOT / "scripts" / "deploy-board"


def deploy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--port", "/dev/ttyACM9", *args],
                          capture_output=True, text=True, timeout=60)


def test_dry_run_copies_firmware_config_pinmap_and_main() -> None:
    proc = deploy("--config", "firmware/boards/pico_w_example.py", "--local",
                  "firmware/local_example.py", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "firmware/node.py" in out and ":firmware/" in out
    assert ":board_config.py" in out and ":pinmap.json" in out and ":main.py" in out
    assert ":local.py" in out
    assert out.strip().splitlines()[-1].endswith("reset")


def test_bad_config_is_refused_before_any_board_command(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('CONFIG = {"board": "B1", "port": "rp2", "holes": [{"name": "big", "beams": [23]}]}\n')
    proc = deploy("--config", str(bad), "--dry-run")
    assert proc.returncode != 0
    assert "reserved" in proc.stderr and "mpremote" not in proc.stdout
