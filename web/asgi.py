"""The web app as one ASGI application: the live stream on the event loop, every other
route through Flask.

``GET /api/stream`` is answered by :class:`web.stream.StreamFanout` on the server's
event loop (thousands of open streams, no thread each); everything else — pages, the
JSON API, the console's POSTs — goes to the Flask app through
:class:`web.wsgi_bridge.WSGIBridge`, which runs it in a small thread pool. Served by
uvicorn (:mod:`web.server`).
"""

from __future__ import annotations

from flask import Flask

from web.stream import Receive, Scope, Send, StreamFanout, refuse
from web.wsgi_bridge import WSGIBridge

STREAM_PATH = "/api/stream"
WSGI_THREADS = 16  # pages, API calls and the console, beside any number of streams


class WebApp:
    """ASGI callable: ``await app(scope, receive, send)``."""

    def __init__(self, flask_app: Flask) -> None:
        self.flask_app = flask_app
        self.wsgi = WSGIBridge(flask_app, WSGI_THREADS, flask_app.config.get("MAX_CONTENT_LENGTH"))
        feed = flask_app.extensions.get("feed")
        self.fanout = (
            StreamFanout(feed, flask_app.extensions["stream_slots"], float(flask_app.config["STREAM_HEARTBEAT_S"]))
            if feed is not None
            else None
        )
        flask_app.extensions["stream_fanout"] = self.fanout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == STREAM_PATH and scope["method"] == "GET":
            if self.fanout is None:
                await refuse(send, 503, b"the hub is not running")
            else:
                await self.fanout.serve(scope, receive, send)
            return
        if scope["type"] == "lifespan":  # nothing to start: the hub is already running
            while True:
                kind = (await receive())["type"]
                await send({"type": kind + ".complete"})
                if kind == "lifespan.shutdown":
                    return
        await self.wsgi(scope, receive, send)

    def close(self) -> None:
        self.wsgi.close()
        if self.fanout is not None:
            self.fanout.close()
