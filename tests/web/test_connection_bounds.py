"""Issue 24.7: the web server (uvicorn, web/connections.py) bounds its connections. Idle and
slow clients are closed after a timeout; one address holds at most WEB_MAX_PER_ADDRESS;
while 20,000 idle connections are attempted (from another process, another loopback
address) the pages and the console still answer. Before, 20,000 idle connections used
every descriptor in 2.3 s and were never closed."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from hub.facade import Hub
from web.server import ServerHandle, start_server

PER_ADDRESS = 64
FLOOD = 20_000


@pytest.fixture
def server(hub: Hub, trigono_table: Any) -> Iterator[ServerHandle]:
    handle = start_server(hub, password="pw", max_streams=8,
                          config={"WEB_HEADER_TIMEOUT_S": 0.5, "WEB_MAX_PER_ADDRESS": PER_ADDRESS})
    yield handle
    handle.close()


def address(server: ServerHandle) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def closed_by_server(sock: socket.socket, timeout: float = 10.0) -> bool:
    """Whether the server closes ``sock`` within ``timeout`` (it sends nothing first)."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_an_idle_or_slow_client_is_closed_after_the_header_timeout_24_7(server: ServerHandle) -> None:
    idle = socket.create_connection(address(server))
    slow = socket.create_connection(address(server))
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # ... and the rest never comes
    try:
        assert closed_by_server(idle) and closed_by_server(slow)
    finally:
        idle.close()
        slow.close()
    page = http.client.HTTPConnection(*address(server), timeout=10)
    page.request("GET", "/")
    assert page.getresponse().status == 200  # a real request is not cut short
    page.close()


def test_one_address_holds_at_most_its_share_24_7(hub: Hub, trigono_table: Any) -> None:
    # A header timeout far beyond the wait below: a close within it is the per-address
    # limit's, whatever the machine's load (a 0.4 s bound against a 0.5 s timeout failed
    # once on a busy machine).
    server = start_server(hub, password="pw", max_streams=8,
                          config={"WEB_HEADER_TIMEOUT_S": 120, "WEB_MAX_PER_ADDRESS": PER_ADDRESS})
    held = [socket.create_connection(address(server)) for _ in range(PER_ADDRESS)]
    extra = socket.create_connection(address(server))
    try:
        assert closed_by_server(extra, timeout=30)  # the 65th: closed, long before any timeout
        assert not closed_by_server(held[1], timeout=0.2)  # the ones within the share stay open
    finally:
        for sock in [*held, extra]:
            sock.close()
        server.close()


FLOODER = textwrap.dedent("""
    import select, socket, sys
    host, port, count, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    poller, socks = select.epoll(), {}
    def reap(timeout):
        for fd, _ in poller.poll(timeout):
            sock = socks.pop(fd)
            poller.unregister(fd)
            sock.close()  # the server closed it: its descriptor is free again
    attempted = refused = 0
    for _ in range(count):
        sock = socket.socket()
        sock.bind(("127.0.0.2", 0))  # another address than the pages' client
        sock.setblocking(False)
        if sock.connect_ex((host, port)) not in (0, 115):
            refused += 1
            sock.close()
            continue
        attempted += 1
        socks[sock.fileno()] = sock
        poller.register(sock.fileno(), select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLHUP)
        if attempted % 500 == 0:
            reap(0)
    import time
    deadline = time.monotonic() + 5  # the server accepts what its backlog holds, then closes it
    while len(socks) > limit and time.monotonic() < deadline:
        reap(0.2)
    print(attempted, refused, len(socks), flush=True)
    sys.stdin.readline()
""")


@pytest.mark.slow  # 20,000 connections: not for the fast loop
def test_pages_and_the_console_answer_while_20000_idle_connections_are_attempted_24_7(
        server: ServerHandle) -> None:
    host, port = address(server)
    flood = subprocess.Popen([sys.executable, "-c", FLOODER, host, str(port), str(FLOOD),
                              str(PER_ADDRESS + 16)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert flood.stdout is not None and flood.stdin is not None
        attempted, refused, still_open = map(int, flood.stdout.readline().split())
        assert attempted + refused == FLOOD and attempted >= FLOOD * 0.9
        # Not asserted: how many the flooder still sees open. A connection the kernel
        # completed (SYN cookies) while the server's accept queue was full looks open to the
        # client and is unknown to the server (2,833 of them in a loaded CI run): the count
        # measures the kernel, not the server. The per-address limit's own test is above.
        print(f"\nflood: {attempted} attempted, {refused} refused, {still_open} still look open")
        for path, statuses in (("/", {200}), ("/console/", {200, 302}), ("/api/tables", {200})):
            # answered, not refused nor left hanging (no time bound: the machine may be loaded;
            # web_stream's benchmark measures speed)
            page = http.client.HTTPConnection(host, port, timeout=60)
            page.request("GET", path)
            assert page.getresponse().status in statuses
            page.close()
        stream = http.client.HTTPConnection(host, port, timeout=60)
        stream.request("GET", "/api/stream")
        answer = stream.getresponse()
        assert answer.status == 200 and answer.readline().startswith(b"retry:")
        stream.close()
    finally:
        if flood.stdin is not None:
            flood.stdin.close()
        flood.wait(timeout=30)
        if flood.stdout is not None:
            flood.stdout.close()
