"""A TCP link between two places that a test can cut and restore: the network between a
hall and the centre.

Two kinds of cut: a *loud* one closes the live connections and refuses new ones, as a
router that drops the hall would (the bridge sees the connection fail at once and
retries); a *silent* one passes nothing any more but closes nothing, as a cable pulled
two switches away (the bridge writes into the void until its keepalive gives up)."""

from __future__ import annotations

import select
import socket
import threading


class CuttableLink:
    """Listens on ``127.0.0.1:port`` and forwards every connection to ``target``."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._up = threading.Event()
        self._silent = False
        self._held: list[socket.socket] = []  # accepted during a silent cut, never answered
        self.connections = 0  # accepted so far (the bridge reconnecting shows here)
        self._listener.listen(16)
        self._up.set()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                ready, _, _ = select.select([self._listener], [], [], 0.05)
                if not ready:
                    continue
                inner, _ = self._listener.accept()
            except OSError:
                continue
            if not self._up.is_set():
                if self._silent:
                    with self._lock:
                        self._held.append(inner)  # the SYN is answered by nobody useful
                else:
                    inner.close()  # a loud cut: the connection is refused
                continue
            try:
                outer = socket.create_connection(self.target, timeout=2)
            except OSError:
                inner.close()
                continue
            with self._lock:
                self._pairs.append((inner, outer))
                self.connections += 1
            threading.Thread(target=self._pump, args=(inner, outer), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peer = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 0.1)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if self._up.is_set():  # a silent cut swallows what is sent
                        peer[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for sock in (a, b):
                try:
                    sock.close()
                except OSError:
                    pass

    def cut(self, silent: bool = False) -> None:
        """Until :meth:`restore`: drop the live connections and refuse new ones, or (silent)
        pass nothing on them and leave new ones unanswered."""
        self._silent = silent
        self._up.clear()
        if not silent:
            self._drop_all()

    def restore(self) -> None:
        """The network is back. What a silent cut left open is dead (the peers have given
        it up or will): it is closed, so every side connects afresh."""
        if self._silent:
            self._drop_all()
        self._up.set()

    def _drop_all(self) -> None:
        with self._lock:
            pairs, self._pairs = self._pairs, []
            held, self._held = self._held, []
        for sock in [s for pair in pairs for s in pair] + held:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            if sock in held:
                sock.close()

    def close(self) -> None:
        self.cut()
        self._closed = True
        self._listener.close()
