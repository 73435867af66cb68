"""A real Mosquitto for tests: our own process on a free loopback port.

Tests always start their own broker (never the machine's), so they can stop and restart
it to test broker outages, and so they run the same on a laptop with no broker at all.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if not found:
        raise RuntimeError("mosquitto is not installed (scripts/test installs it)")
    return found


class Broker:
    """A Mosquitto process with persistence, so QoS 1 sessions survive a restart."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {workdir}/\n"
            "autosave_interval 1\n"
            f"log_dest file {workdir}/mosquitto.log\n"
            "max_queued_messages 100000\n"
            # Started as root, mosquitto switches to the `mosquitto` user, which cannot
            # write its log and persistence file in a root-owned temporary folder.
            + ("user root\n" if os.geteuid() == 0 else "")
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([mosquitto_binary(), "-c", str(self.conf)])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"mosquitto exited: {(self.workdir / 'mosquitto.log').read_text()}") from None
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start listening")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None

    def restart(self, down_seconds: float = 0.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()
