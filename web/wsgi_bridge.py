"""Flask under the ASGI server, with one thread hop per request.

The adapter used before (a2wsgi) crossed between the event loop and its worker thread
for every message of a request — each read of the body, the response's start, each
chunk, the end — and each crossing wakes both threads: ~0.6 ms of CPU per request
here, five times what uvicorn itself spends on one (docs/performance.md, section Web).

:class:`WSGIBridge` reads the whole request body on the loop first (bounded by the
app's ``MAX_CONTENT_LENGTH``: the app answers 413 for more), runs the WSGI app once in
a worker thread, and sends what it returned from the loop. Every Flask response here
has a ``Content-Length`` and is sent whole; one without (a generator) is streamed from
the worker chunk by chunk, as a WSGI server would.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, cast

Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ExcInfo = tuple[type[BaseException], BaseException, TracebackType]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Whole = tuple[int, list[tuple[bytes, bytes]], bytes]  # status, headers, body

BODY_LIMIT_WITHOUT_CONFIG = 16 * 1024 * 1024  # when the app sets no MAX_CONTENT_LENGTH


class WSGIBridge:
    """ASGI application serving ``app`` (WSGI) from a pool of ``workers`` threads."""

    def __init__(self, app: WSGIApp, workers: int, max_body: int | None) -> None:
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="WSGI")
        self.max_body = max_body if max_body is not None else BODY_LIMIT_WITHOUT_CONFIG

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await read_body(scope, receive, self.max_body)
        if body is None:  # the client left before its request was whole: nothing to answer
            return
        environ = wsgi_environ(scope, body)
        loop = asyncio.get_running_loop()
        whole = await loop.run_in_executor(self.executor, self.run, environ, loop, send)
        if whole is not None:
            status, headers, content = whole
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": content, "more_body": False})

    def run(self, environ: dict[str, Any], loop: asyncio.AbstractEventLoop, send: Send) -> Whole | None:
        """In a worker thread: call the app. Returns the whole response, or None when it
        had no length and was streamed from here."""
        started: list[tuple[int, list[tuple[bytes, bytes]]]] = []
        written: list[bytes] = []
        streaming = False

        def start_response(status: str, headers: list[tuple[str, str]],
                           exc_info: ExcInfo | None = None) -> Callable[[bytes], None]:
            if exc_info is not None and started and streaming:
                raise exc_info[1].with_traceback(exc_info[2])  # too late to change the status
            started[:] = [(int(status.split(" ", 1)[0]), [
                (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers])]
            return written.append  # PEP 3333's write(): kept in order before the body

        iterable = self.app(environ, start_response)
        try:
            chunks = iter(iterable)
            first = next(chunks, b"")  # an app may call start_response on its first chunk
            if not started:
                raise RuntimeError("the WSGI app returned without calling start_response")
            status, headers = started[0]
            if any(name == b"content-length" for name, _ in headers):
                return status, headers, b"".join([*written, first, *chunks])
            streaming = True

            def push(message: Message) -> None:
                asyncio.run_coroutine_threadsafe(cast(Coroutine[Any, Any, None], send(message)), loop).result()

            push({"type": "http.response.start", "status": status, "headers": headers})
            for chunk in itertools.chain(written, [first], chunks):
                if chunk:
                    push({"type": "http.response.body", "body": chunk, "more_body": True})
            push({"type": "http.response.body", "body": b"", "more_body": False})
            return None
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()

    def close(self) -> None:
        self.executor.shutdown(wait=False)


async def read_body(scope: Scope, receive: Receive, limit: int) -> bytes | None:
    """The request body, or as much as shows it is over ``limit`` (the app then answers
    413 from the length); None if the client went away before sending all of it. A
    declared length over the limit is not read at all.

    >>> async def parts(): return {"type": "http.request", "body": b"abc", "more_body": False}
    >>> asyncio.run(read_body({"headers": []}, parts, 10))
    b'abc'
    """
    for name, value in scope.get("headers", ()):
        if name == b"content-length" and value.isdigit() and int(value) > limit:
            return b""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # http.disconnect
            return None
        chunk = message.get("body", b"")
        parts.append(chunk)
        size += len(chunk)
        if size > limit or not message.get("more_body", False):
            break
    return b"".join(parts)


def wsgi_environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """PEP 3333's environ for an ASGI HTTP ``scope`` whose body was read.

    >>> e = wsgi_environ({"method": "GET", "path": "/é", "query_string": b"a=1", "headers":
    ...     [(b"cookie", b"a=1"), (b"cookie", b"b=2"), (b"content-type", b"text/plain")]}, b"")
    >>> e["PATH_INFO"], e["QUERY_STRING"], e["HTTP_COOKIE"], e["CONTENT_TYPE"], e["CONTENT_LENGTH"]
    ('/Ã©', 'a=1', 'a=1; b=2', 'text/plain', '0')
    """
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    root = str(scope.get("root_path", ""))
    path = str(scope["path"])
    if root and path.startswith(root):
        path = path[len(root):]
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        # WSGI strings are the request's bytes as latin-1; ASGI decoded them as UTF-8.
        "SCRIPT_NAME": root.encode().decode("latin-1"),
        "PATH_INFO": path.encode().decode("latin-1"),
        "QUERY_STRING": bytes(scope.get("query_string", b"")).decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] if server[1] is not None else 80),
        "SERVER_PROTOCOL": "HTTP/" + str(scope.get("http_version", "1.1")),
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True,  # read to the end: a chunked body has no length
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        key = name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + name
        if key in environ:
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    # A chunked body was read whole here: the app gets it with its length (over the
    # limit, that length makes the app answer 413 without reading it).
    if environ.pop("HTTP_TRANSFER_ENCODING", None) is not None or not str(environ.get("CONTENT_LENGTH", "")).isdigit():
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ
