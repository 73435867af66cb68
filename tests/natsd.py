"""Real nats-server processes for tests (issue 35): our own, on free loopback ports,
from the shipped configurations (deploy/nats/, :mod:`hub.sync.natsconf`). Never the
machine's server on :4222. Tests stop, SIGKILL and restart them to cut a club's link.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from hub.sync.natsconf import FEDERATION_USER, FederationFolder, club_conf
from tests.broker import free_port


def nats_binary() -> str:
    found = shutil.which("nats-server") or ("/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None)
    if not found:
        raise RuntimeError("nats-server is not installed (scripts/test installs it)")
    return found


class NatsServer:
    """One nats-server on a configuration file; ``port`` is its client port."""

    def __init__(self, workdir: Path, conf: Path, port: int) -> None:
        self.workdir, self.conf, self.port = workdir, conf, port
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.workdir / "nats.log", "ab")  # noqa: SIM115 - the process keeps it
        self.proc = subprocess.Popen([nats_binary(), "-c", str(self.conf)], stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("nats-server exited: " + (self.workdir / "nats.log").read_text()[-2000:]) from None
                time.sleep(0.02)
        raise RuntimeError("nats-server did not start listening")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None

    def kill(self) -> None:
        """SIGKILL: no goodbye to its leaf nodes, nothing flushed."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None

    def reload(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGHUP)


class Federation(NatsServer):
    """The federation's server from ``trigono federation init`` / ``add-club``'s files."""

    def __init__(self, workdir: Path, clubs: list[str]) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(workdir, workdir / "nats.conf", free_port())
        self.leaf_port = free_port()
        self.folder = FederationFolder(workdir)
        self.folder.init(listen=f"127.0.0.1:{self.port}", leaf_listen=f"127.0.0.1:{self.leaf_port}")
        for club in clubs:
            self.folder.add_club(club)

    def user_url(self, user: str = FEDERATION_USER) -> str:
        return f"nats://{user}:{self.folder.secrets()[user]}@127.0.0.1:{self.port}"


class Club(NatsServer):
    """A club's leaf node server, joined to ``federation``."""

    def __init__(self, workdir: Path, club: str, federation: Federation) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(workdir, workdir / "nats.conf", free_port())
        self.club = club
        self.conf.write_text(club_conf(
            club=club, listen=f"127.0.0.1:{self.port}", federation=f"127.0.0.1:{federation.leaf_port}",
            password=federation.folder.secrets()[club], store_dir=workdir / "jetstream",
            reconnect_s=1))


def stop_all(servers: list[NatsServer]) -> None:
    for server in servers:
        server.stop()
