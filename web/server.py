"""Serving the web app beside the hub, in the same process.

The hub is an in-process object (event store, referee threads), so the server runs in
this process too — that rules out pre-fork servers, whose workers would each need
their own hub.

Default: **uvicorn** (one asyncio event loop, uvloop where installed) serving
:class:`web.asgi.WebApp`: the live stream is written from the loop to every viewer
(no thread per viewer, see :mod:`web.stream`), the pages and the API run in Flask
through a thread pool (:mod:`web.wsgi_bridge`). Measured against the previous server in
docs/performance.md (section Web): at 1,000 viewers the stream stays within tens of
milliseconds where a thread per viewer took seconds.

``server="waitress"`` keeps the previous arrangement (a waitress thread per open
stream, streams beyond ``max_streams`` refused) so the benchmark can measure both.

    from web import serve, start_server
    serve(hub, host="0.0.0.0", port=8080, password="secret")     # blocks
    handle = start_server(hub, port=8080, password="secret")      # background thread
    print(handle.url); ...; handle.close()
"""

from __future__ import annotations

import socket
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import flask
from flask import Flask

from web.addresses import where_served
from web.app import create_app
from web.connections import uvicorn_limits

SPARE_THREADS = 16  # waitress: threads for pages, API calls and the console beside the streams
RESERVED_DESCRIPTORS = 128  # SQLite, serial ports, MQTT, pages: kept out of the streams' share
BACKLOG = 4096  # a Wi-Fi blip brings every phone back at once
ServerKind = Literal["uvicorn", "waitress"]


def raise_descriptor_limit() -> int:
    """Lift this process's soft limit on open files to the hard one (every viewer holds a
    socket) and return it."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return 1 << 16
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def default_max_streams() -> int:
    """As many streams as the descriptor limit leaves room for."""
    return max(16, raise_descriptor_limit() - RESERVED_DESCRIPTORS)


def connection_limit(max_streams: int) -> int:
    """waitress: open sockets it accepts — each viewer holds a stream and often an idle
    keep-alive connection or two, which cost a descriptor but no thread."""
    soft = raise_descriptor_limit()
    return max(max_streams + SPARE_THREADS, min(4 * max_streams + 100, soft - 64))


def instance_config_file() -> Path:
    """Flask's instance folder for this package: ``instance/config.py`` beside a source
    checkout, ``<prefix>/var/web-instance/config.py`` when installed."""
    return Path(Flask("web", instance_relative_config=True).instance_path) / "config.py"


def read_config_file(path: str | Path | None) -> dict[str, Any]:
    """Settings from an instance config file (Python, Flask's ``config.py`` style, or
    TOML); the default file is optional, a named one must exist."""
    named = path is not None
    file = Path(path) if path is not None else instance_config_file()
    if not file.exists():
        if named:
            raise FileNotFoundError(f"config file {file} does not exist")
        return {}
    loaded = flask.Config(str(file.parent))
    if file.suffix == ".toml":
        loaded.from_file(str(file), load=tomllib.load, text=False)
    else:
        loaded.from_pyfile(str(file))
    return dict(loaded)


def make_app(hub: Any, password: str | None, max_streams: int | None, config: Mapping[str, Any] | None,
             config_file: str | Path | None = None) -> Flask:
    """Defaults, then the instance config file, then what the caller (the command line)
    says explicitly."""
    settings = read_config_file(config_file)
    if max_streams is not None or "MAX_STREAMS" not in settings:
        settings["MAX_STREAMS"] = max_streams if max_streams is not None else default_max_streams()
    if password:
        settings["PASSWORD"] = password
    settings.update(config or {})
    return create_app(settings, hub=hub)


@dataclass
class ServerHandle:
    """A server running in a background thread."""

    app: Flask
    url: str
    kind: ServerKind
    _stop: Callable[[], None]

    def close(self) -> None:
        self._stop()


def listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=BACKLOG, reuse_port=False,
                                dualstack_ipv6=family == socket.AF_INET6 and host in ("::", ""))
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, scheme: str = "http") -> str:
    host, port = sock.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def make_uvicorn(app: Flask, tls: tuple[str, str] | None = None) -> tuple[Any, Any]:
    import uvicorn

    from web.asgi import WebApp

    web_app = WebApp(app)
    config = uvicorn.Config(
        web_app,
        lifespan="off",
        access_log=False,
        log_level="warning",
        # Forwarded headers are trusted only through Flask's ProxyFix, when configured.
        proxy_headers=False,
        server_header=False,
        backlog=BACKLOG,
        timeout_graceful_shutdown=3,
        **uvicorn_limits(app.config),  # idle, slow and per-address bounds (web.connections)
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=tls[1] if tls else None,
    )
    return web_app, uvicorn.Server(config)


def start_uvicorn(app: Flask, host: str, port: int, tls: tuple[str, str] | None = None) -> ServerHandle:
    web_app, server = make_uvicorn(app, tls)
    sock = listening_socket(host, port)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="web-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        raise RuntimeError("the web server did not start")

    def stop() -> None:
        web_app.close()  # open streams end, so the server need not wait for them
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        feed = app.extensions.get("feed")
        if feed is not None:
            feed.stop()

    return ServerHandle(app, url_of(sock, "https" if tls else "http"), "uvicorn", stop)


# -- waitress (the previous server: a thread per open stream) --------------------------------
def make_waitress(app: Flask, host: str, port: int, max_streams: int) -> Any:
    from waitress.server import create_server  # type: ignore[import-untyped]

    return create_server(
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
        backlog=BACKLOG,
    )


def start_waitress(app: Flask, host: str, port: int, max_streams: int) -> ServerHandle:
    server = make_waitress(app, host, port, max_streams)
    thread = threading.Thread(target=server.run, name="web-server", daemon=True)
    thread.start()

    def stop() -> None:
        feed = app.extensions.get("feed")
        if feed is not None:
            feed.stop()  # open streams end, freeing their threads
        # Let the streams' last writes finish before the I/O loop goes away under them.
        slots = app.extensions["stream_slots"]
        deadline = time.monotonic() + 3.0
        while slots.open and time.monotonic() < deadline:
            time.sleep(0.02)
        server.close()
        for channel in list(server._map.values()):
            channel.close()
        server.task_dispatcher.shutdown(timeout=5)
        thread.join(timeout=10)

    host_shown = "127.0.0.1" if server.effective_host in ("0.0.0.0", "::") else server.effective_host
    return ServerHandle(app, f"http://{host_shown}:{server.effective_port}", "waitress", stop)


# -- entry points --------------------------------------------------------------------------
def start_server(
    hub: Any,
    host: str = "127.0.0.1",
    port: int = 0,
    password: str | None = None,
    max_streams: int | None = None,
    config: Mapping[str, Any] | None = None,
    server: ServerKind = "uvicorn",
    config_file: str | Path | None = None,
    tls: tuple[str, str] | None = None,
) -> ServerHandle:
    """Serve in a background thread (port 0: any free port); see ``handle.url``.

    ``max_streams``: live streams held at once (default: what the descriptor limit
    allows; waitress: 256, one thread each). ``config_file``: instance settings (default
    Flask's ``instance/config.py`` if present), overridden by ``config``. ``tls``:
    (certificate file, key file) to serve HTTPS."""
    if max_streams is None and server == "waitress":
        max_streams = 256
    app = make_app(hub, password, max_streams, config, config_file)
    if server == "waitress":
        return start_waitress(app, host, port, int(app.config["MAX_STREAMS"]))
    return start_uvicorn(app, host, port, tls)


def serve(
    hub: Any,
    host: str = "127.0.0.1",
    port: int = 8080,
    password: str | None = None,
    max_streams: int | None = None,
    config: Mapping[str, Any] | None = None,
) -> None:
    """Serve until interrupted (Ctrl-C), printing the address."""
    handle = start_server(hub, host, port, password, max_streams, config)
    where = where_served(host, handle.url)
    print(f"serving {where['serving']}; dashboard: {' '.join(where['phones']) or handle.url + '/'}", flush=True)
    stop = threading.Event()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        handle.close()


__all__ = ["ServerHandle", "start_server", "serve", "raise_descriptor_limit"]
