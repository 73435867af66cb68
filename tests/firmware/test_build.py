"""Every firmware file compiles with mpy-cross (the MicroPython compiler)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.firmware.mp import firmware_files, tool


@pytest.mark.parametrize("path", firmware_files(), ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    out = tmp_path / (path.stem + ".mpy")
    proc = subprocess.run([tool("mpy-cross"), "-o", str(out), str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
