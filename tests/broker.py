"""A real Mosquitto for tests: our own process on a free loopback port.

Tests always start their own broker (never the machine's), so they can stop and restart
it to test broker outages, and so they run the same on a laptop with no broker at all.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
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


class AuthBroker(Broker):
    """The shipped event configuration (hardware/mosquitto/) as Debian runs it: a main
    config with persistence and ``include_dir``, our file as a drop-in in that folder,
    users made by scripts/mqtt-users. Only the listener, paths and (as root) the user
    are changed. ``password(user)`` reads a user's password back."""

    def __init__(self, workdir: Path, boards: list[str], hubs: list[str] | None = None,
                 port: int | None = None, tls: bool = False, halls: list[str] | None = None) -> None:
        super().__init__(workdir, port)
        self.tls_port = free_port() if tls else None
        root = Path(__file__).resolve().parent.parent
        self.users = workdir / "trigono"
        self.hubs = hubs or ["hub"]
        args = [str(root / "scripts" / "mqtt-users"), "--out", str(self.users), "--boards", *boards]
        for hub in self.hubs:
            args += ["--hub", hub]
        for hall in halls or []:  # bridges of other halls' brokers into this one
            args += ["--hall", hall]
        subprocess.run(args, check=True, capture_output=True)
        dropins = workdir / "conf.d"
        dropins.mkdir(exist_ok=True)
        shipped = (root / "hardware" / "mosquitto" / "mosquitto.conf").read_text()
        shipped = shipped.replace("listener 1883 0.0.0.0", f"listener {self.port} 127.0.0.1")
        shipped = shipped.replace("/etc/mosquitto/trigono/", f"{self.users}/")
        if self.tls_port is not None:
            shared_certificates(self.users)
            shipped = shipped.replace("#listener 8883 0.0.0.0", f"listener {self.tls_port} 127.0.0.1")
            for key in ("cafile", "certfile", "keyfile", "require_certificate"):
                shipped = shipped.replace(f"#{key} ", f"{key} ")
        (dropins / "trigono.conf").write_text(shipped)
        # Debian's /etc/mosquitto/mosquitto.conf, with our paths.
        self.conf.write_text(
            "persistence true\n"
            f"persistence_location {workdir}/\n"
            f"log_dest file {workdir}/mosquitto.log\n"
            + ("user root\n" if os.geteuid() == 0 else "")
            + f"include_dir {dropins}\n")

    @property
    def cafile(self) -> Path:
        return self.users / "ca.crt"

    def password(self, user: str) -> str:
        import json

        secrets: dict[str, str] = json.loads((self.users / "secrets.json").read_text())
        return secrets[user]

    def password_file(self, user: str) -> Path:
        return self.users / f"hub-{user}.password"


_shared_certs: Path | None = None


def shared_certificates(folder: Path) -> None:
    """The test process's CA and server certificate (ca.crt, server.crt, server.key),
    copied into ``folder``: made once per process, since two RSA keys cost about a second
    of CPU and every TLS broker of the chaos suite needs them. A test that needs a CA of
    its own (one that did not sign the broker) calls :func:`make_certificates`."""
    global _shared_certs
    if _shared_certs is None:
        made = Path(tempfile.mkdtemp(prefix="trigono-test-certs-"))
        atexit.register(shutil.rmtree, made, True)
        make_certificates(made)
        _shared_certs = made
    for name in ("ca.crt", "server.crt", "server.key"):
        shutil.copyfile(_shared_certs / name, folder / name)


def make_certificates(folder: Path) -> None:
    """A throwaway CA and a server certificate for 127.0.0.1 (ca.crt, server.crt,
    server.key), made with the openssl command."""
    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=trigono test CA",
            "-keyout", "ca.key", "-out", "ca.crt")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
            "-out", "server.csr")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", "server.crt")
