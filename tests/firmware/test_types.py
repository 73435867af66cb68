"""Every firmware file type-checks with pyright against the MicroPython stubs of each
port (micropython-rp2-stubs, micropython-esp32-stubs), as the board sees it: the
package, a board_config.py and local.py (from the examples)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.firmware.mp import FIRMWARE, ROOT
from tests.firmware.stubs import ensure_stubs

SKIP = {"rp2": {"board_esp32.py"}, "esp32": set()}  # the rp2 firmware has no esp32 module


@pytest.mark.slow  # pyright over the stubs: 10-25 s per port
@pytest.mark.parametrize("port", ["rp2", "esp32"])
def test_firmware_type_checks_against_micropython_stubs(port: str, tmp_path: Path) -> None:
    stubs = ensure_stubs(port)
    board_fs = tmp_path / "board"
    board_fs.mkdir()
    example = "pico_w_example.py" if port == "rp2" else "esp32_example.py"
    shutil.copyfile(FIRMWARE / "boards" / example, board_fs / "board_config.py")
    shutil.copyfile(FIRMWARE / "local_example.py", board_fs / "local.py")
    config = {
        "stubPath": str(stubs),
        "typeshedPath": str(stubs),
        "extraPaths": [str(ROOT), str(board_fs), str(FIRMWARE)],  # FIRMWARE: slots.py sits at the board's root
        "typeCheckingMode": "basic",
        "reportMissingModuleSource": "none",
    }
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    files = [str(p) for p in sorted(FIRMWARE.glob("*.py")) if p.name not in SKIP[port]]
    files += [str(p) for p in sorted((FIRMWARE / "boards").glob("*.py"))]
    proc = subprocess.run([sys.executable, "-m", "pyright", "-p", str(tmp_path / "pyrightconfig.json"),
                           "--outputjson", *files], capture_output=True, text=True, timeout=300)
    report = json.loads(proc.stdout)
    problems = [f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}"
                for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert problems == [], "\n".join(problems)
    assert report["summary"]["filesAnalyzed"] >= len(files)
