"""MicroPython libraries the firmware needs on the unix port (and can copy to a board).

umqtt.simple: PyPI's `micropython-umqtt.simple` 1.3.4 is an upip-style sdist (no
setup.py, no pyproject.toml), so `pip install` refuses it; MicroPython's own `mip` index
is not reachable from CI. pip still *downloads and unpacks* it before giving up, and
`--no-clean` keeps the unpacked tree: we take `umqtt/simple.py` from there, check its
SHA-256, and put it in <venv>/micropython-lib/ (on MICROPYPATH for the tests; the deploy
script can copy it to a board's /lib). Run `python -m tests.firmware.mplib` to fetch it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

UMQTT_REQUIREMENT = "micropython-umqtt.simple==1.3.4"
UMQTT_SHA256 = "8555d2f654deb8eb0d724f79b0811a78cc94029d070f3d96bbd74288653d63a5"
LIB = Path(sys.prefix) / "micropython-lib"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ensure_umqtt() -> Path:
    """The directory to put on MICROPYPATH; holds umqtt/simple.py (fetched once)."""
    target = LIB / "umqtt" / "simple.py"
    if target.exists() and _sha256(target) == UMQTT_SHA256:
        return LIB
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TMPDIR=tmp)  # pip unpacks under TMPDIR
        # pip fails on purpose here ("not a Python project") after unpacking the sdist
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-clean",
                        "--no-binary", ":all:", "-d", tmp, UMQTT_REQUIREMENT],
                       capture_output=True, text=True, env=env, timeout=180)
        found = sorted(Path(tmp).glob("**/umqtt/simple.py"))
        if not found:
            raise RuntimeError(f"could not fetch {UMQTT_REQUIREMENT} through pip")
        if _sha256(found[0]) != UMQTT_SHA256:
            raise RuntimeError(f"{UMQTT_REQUIREMENT}: umqtt/simple.py has an unexpected SHA-256")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(found[0], target)
    return LIB


if __name__ == "__main__":
    print(ensure_umqtt())
