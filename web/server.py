"""Serving the web app beside the hub, in the same process, under waitress.

Why waitress: the hub is an in-process object (event store, referee threads), so the
server must run threads in this process — that rules out pre-fork servers such as
gunicorn, whose workers would each need their own hub. Waitress is pure Python (it runs
on the festival laptop whatever its OS), production-grade, and its I/O loop buffers
output so a slow phone never blocks a worker. A live stream holds one worker thread for
as long as it is open, so the pool is sized for the streams (``max_streams``) plus a
margin for ordinary requests; :class:`web.StreamSlots` refuses streams beyond that so
pages and the console always keep threads.

Call from the hub's CLI or the demo::

    from web import serve, start_server
    serve(hub, host="0.0.0.0", port=8080, password="secret")     # blocks
    handle = start_server(hub, port=8080, password="secret")      # background thread
    print(handle.url); ...; handle.close()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask
from waitress.server import create_server  # type: ignore[import-untyped]

from web import create_app

SPARE_THREADS = 16  # for pages, API calls and the console beside the open streams


def connection_limit(max_streams: int) -> int:
    """Open sockets waitress accepts: each viewer holds a stream and often an idle
    keep-alive connection or two, which cost a descriptor but no thread. Kept under the
    process's descriptor limit (the hub needs some: SQLite, serial ports, MQTT)."""
    wanted = 4 * max_streams + 100
    try:
        import resource
    except ImportError:  # Windows: no such limit to respect
        return wanted
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(max_streams + SPARE_THREADS, min(wanted, soft - 64))


def make_app(hub: Any, password: str | None, max_streams: int, config: Mapping[str, Any] | None) -> Flask:
    settings: dict[str, Any] = {"MAX_STREAMS": max_streams}
    if password:
        settings["PASSWORD"] = password
    settings.update(config or {})
    return create_app(settings, hub=hub)


def make_server(
    hub: Any,
    host: str = "127.0.0.1",
    port: int = 8080,
    password: str | None = None,
    max_streams: int = 256,
    config: Mapping[str, Any] | None = None,
) -> tuple[Flask, Any]:
    app = make_app(hub, password, max_streams, config)
    server = create_server(
        app,
        host=host,
        port=port,
        threads=max_streams + SPARE_THREADS,
        connection_limit=connection_limit(max_streams),
        # poll() instead of select(): no 1024-descriptor ceiling.
        asyncore_use_poll=True,
        channel_timeout=120,
        ident="trigono-hub",
        clear_untrusted_proxy_headers=True,
    )
    return app, server


@dataclass
class ServerHandle:
    app: Flask
    server: Any
    thread: threading.Thread

    @property
    def url(self) -> str:
        host = self.server.effective_host
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        return f"http://{host}:{self.server.effective_port}"

    def close(self) -> None:
        feed = self.app.extensions.get("feed")
        if feed is not None:
            feed.stop()  # open streams end, freeing their threads
        # Let the streams' last writes finish before the I/O loop goes away under them.
        slots = self.app.extensions["stream_slots"]
        deadline = time.monotonic() + 3.0
        while slots.open and time.monotonic() < deadline:
            time.sleep(0.02)
        self.server.close()
        for channel in list(self.server._map.values()):
            channel.close()
        self.server.task_dispatcher.shutdown(timeout=5)
        self.thread.join(timeout=10)


def start_server(
    hub: Any,
    host: str = "127.0.0.1",
    port: int = 0,
    password: str | None = None,
    max_streams: int = 256,
    config: Mapping[str, Any] | None = None,
) -> ServerHandle:
    """Serve in a background thread (port 0: any free port); see ``handle.url``."""
    app, server = make_server(hub, host, port, password, max_streams, config)
    thread = threading.Thread(target=server.run, name="web-server", daemon=True)
    thread.start()
    return ServerHandle(app, server, thread)


def serve(
    hub: Any,
    host: str = "127.0.0.1",
    port: int = 8080,
    password: str | None = None,
    max_streams: int = 256,
    config: Mapping[str, Any] | None = None,
) -> None:
    """Serve until interrupted (Ctrl-C), printing the address."""
    app, server = make_server(hub, host, port, password, max_streams, config)
    print(f"dashboard: http://{server.effective_host}:{server.effective_port}/", flush=True)
    try:
        server.run()
    finally:
        feed = app.extensions.get("feed")
        if feed is not None:
            feed.stop()
