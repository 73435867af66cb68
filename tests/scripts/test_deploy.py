"""scripts/deploy-board: config checked before touching a board; the mpremote plan."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.firmware.mp import ROOT, load_script, micropython

SCRIPT = ROOT / "scripts" / "deploy-board"


def deploy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--port", "/dev/ttyACM9", *args],
                          capture_output=True, text=True, timeout=600)


def test_dry_run_copies_firmware_config_pinmap_and_main() -> None:
    proc = deploy("--config", "firmware/boards/pico_w_example.py", "--local",
                  "firmware/local_example.py", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "firmware/node.mpy" in out and ":firmware/" in out
    assert ":board_config.py" in out and ":pinmap.json" in out and ":main.py" in out
    assert ":local.py" in out
    lines = out.strip().splitlines()
    assert lines[-1].endswith("reset")
    assert "clean.py" in lines[1]  # stale files go before anything is copied
    copy = next(x for x in lines if ":firmware/" in x)
    assert "node.mpy" in copy and ".py " not in copy  # compiled only


def test_bad_config_is_refused_before_any_board_command(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('CONFIG = {"board": "B1", "port": "rp2", "holes": [{"name": "big", "beams": [23]}]}\n')
    proc = deploy("--config", str(bad), "--dry-run")
    assert proc.returncode != 0
    assert "reserved" in proc.stderr and "mpremote" not in proc.stdout


def deploy_module() -> Any:
    return load_script("deploy-board")


def test_too_old_or_wrong_micropython_is_refused_with_a_clear_message() -> None:
    deploy_board = deploy_module()
    deploy_board.check_board("MPYINFO rp2 (1, 24, 1) 2822\n", "rp2")  # fine: no exception
    with pytest.raises(SystemExit, match=r"MicroPython 1\.19\.1 \(mpy v6\) on the board is too old: "
                                         r"this firmware needs 1\.22\.0 or newer"):
        deploy_board.check_board("MPYINFO rp2 (1, 19, 1) 6\n", "rp2")
    with pytest.raises(SystemExit, match="too old"):
        deploy_board.check_board("MPYINFO rp2 (1, 18, 0) 5\n", "rp2")
    with pytest.raises(SystemExit, match="runs MicroPython for esp32, the config is for rp2"):
        deploy_board.check_board("MPYINFO esp32 (1, 24, 0) 2822\n", "rp2")
    with pytest.raises(SystemExit, match="did not answer"):
        deploy_board.check_board("Traceback ...\n", "rp2")


@pytest.mark.micropython
def test_compiled_mpy_firmware_runs_on_the_real_interpreter(tmp_path: Path) -> None:
    deploy_board = deploy_module()
    files = deploy_board.compile_firmware("unix", tmp_path / "firmware")
    assert {p.name for p in files} >= {"node.mpy", "app.mpy", "mqtt.mpy", "protocol.mpy"}
    assert not any(p.name.startswith("local") for p in files)
    paths = [str(tmp_path), str(ROOT / "tests" / "firmware")]
    script = (f"import sys\nsys.path[:0] = {paths!r}\n"
              "import firmware.node\nassert firmware.node.__file__.endswith('.mpy'), firmware.node.__file__\n"
              "import cases\nfor name, fn in cases.all_cases():\n    fn()\nprint('ALL OK', len(cases.all_cases()))\n")
    proc = micropython("-c", script, timeout=600)
    assert "ALL OK" in proc.stdout, proc.stdout + proc.stderr
