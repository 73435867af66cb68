"""MicroPython stubs for type-checking the firmware, one --target dir per port.

`python -m tests.firmware.stubs` installs them; test_types.py calls ensure_stubs().
They go to <venv>/micropython-stubs/<port> (micropython-<port>-stubs plus its
micropython-stdlib-stubs, laid out as a typeshed: pyright uses it as typeshedPath, so
`asyncio.sleep_ms`, `time.ticks_us` etc. are MicroPython's, not CPython's).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

STUBS = {"rp2": "micropython-rp2-stubs==1.29.0.post1", "esp32": "micropython-esp32-stubs==1.29.0.post1"}
ROOT = Path(sys.prefix) / "micropython-stubs"


def ensure_stubs(port: str) -> Path:
    target = ROOT / port
    marker = target / (STUBS[port] + ".ok")
    if marker.exists():
        return target
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-user", "--upgrade",
                    "--target", str(target), STUBS[port]], check=True, capture_output=True, timeout=300)
    marker.write_text("installed\n")
    return target


if __name__ == "__main__":
    for name in STUBS:
        print(ensure_stubs(name))
