"""A TCP proxy between a board and its broker that can go half-open: in `blackhole`
mode it keeps both connections open and passes nothing (a Wi-Fi that vanished without a
FIN or RST, a NAT that forgot the flow)."""

from __future__ import annotations

import select
import socket
import threading


class TcpProxy:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port: int = self.listener.getsockname()[1]
        self.blackhole = False
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.listener], [], [], 0.1)
                if not ready:
                    continue
                client, _ = self.listener.accept()
            except OSError:  # closed under us: the test is over
                return
            if self.blackhole:  # a vanished network: the SYN is answered by nobody useful
                self.pairs.append((client, client))
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=2)
            except OSError:
                client.close()
                continue
            self.pairs.append((client, server))
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peer = {a: b, b: a}
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([a, b], [], [], 0.1)
            except (OSError, ValueError):  # closed by close()
                return
            for s in ready:
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    for x in (a, b):
                        x.close()
                    return
                if not self.blackhole:
                    try:
                        peer[s].sendall(data)
                    except OSError:
                        return

    def close(self) -> None:
        self._stop.set()
        self.listener.close()
        for a, b in self.pairs:
            a.close()
            b.close()
