"""Flask under uvicorn through web.wsgi_bridge (one thread hop per request), over real
sockets: bodies, limits, headers, streamed and whole responses, paths and queries."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import pytest
import uvicorn
from flask import Flask, Response, request

from web.wsgi_bridge import WSGIBridge

LIMIT = 1024
RELEASE = threading.Event()
ECHOED: list[str] = []


def tiny_app() -> Flask:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = LIMIT

    @app.post("/echo")
    def echo() -> Any:
        ECHOED.append(f"{request.content_length} bytes")  # before any read of the body
        return {"body": request.get_data(as_text=True), "type": request.content_type,
                "cookies": dict(request.cookies), "remote": request.remote_addr}

    @app.get("/where/<name>")
    def where(name: str) -> Any:
        return {"name": name, "query": request.args.to_dict(flat=False), "path": request.path}

    @app.get("/stream")
    def stream() -> Response:
        def parts() -> Iterator[str]:
            yield "first\n"
            RELEASE.wait(10)  # the client must see the first part before this returns
            yield "second\n"

        return Response(parts(), mimetype="text/plain")

    @app.get("/boom")
    def boom() -> Any:
        raise RuntimeError("a bug in a view")

    return app


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    bridge = WSGIBridge(tiny_app(), workers=4, max_body=LIMIT)  # type: ignore[arg-type]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(bridge, lifespan="off", log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield sock.getsockname()[1]
    server.should_exit = True
    thread.join(10)
    bridge.close()


def call(port: int, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def test_a_post_body_headers_and_cookies_reach_the_app(port: int) -> None:
    status, headers, data = call(port, "POST", "/echo", b'{"landed":"floor"}',
                                 {"Content-Type": "application/json", "Cookie": "a=1; b=2"})
    assert status == 200 and headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(data)
    assert b'"body":"{\\"landed\\":\\"floor\\"}"' in data
    assert b'"cookies":{"a":"1","b":"2"}' in data and b'"remote":"127.0.0.1"' in data


def test_a_chunked_body_is_read_to_its_end(port: int) -> None:
    with closing(http.client.HTTPConnection("127.0.0.1", port, timeout=10)) as conn:
        conn.request("POST", "/echo", body=iter([b"abc", b"def"]), encode_chunked=True,
                     headers={"Content-Type": "text/plain"})
        response = conn.getresponse()
        assert response.status == 200 and b'"body":"abcdef"' in response.read()


def test_a_body_over_the_limit_is_refused_with_413(port: int) -> None:
    status, _, _ = call(port, "POST", "/echo", b"x" * (LIMIT + 1), {"Content-Type": "text/plain"})
    assert status == 413
    # Without a length (chunked) the bridge stops reading past the limit; the app still says 413.
    with closing(http.client.HTTPConnection("127.0.0.1", port, timeout=10)) as conn:
        conn.request("POST", "/echo", body=iter([b"x" * 800, b"y" * 800, b"z" * 800]), encode_chunked=True)
        assert conn.getresponse().status == 413
    # A body at the limit passes.
    status, _, data = call(port, "POST", "/echo", b"q" * LIMIT, {"Content-Type": "text/plain"})
    assert status == 200 and data.count(b"q") == LIMIT


def test_non_ascii_paths_and_repeated_query_keys_decode_as_flask_expects(port: int) -> None:
    status, _, data = call(port, "GET", "/where/Zo%C3%A9?x=1&x=2&y=%C3%A9")
    assert status == 200
    assert '"name":"Zoé"'.encode() in data or b'"name":"Zo\\u00e9"' in data
    assert b'"query":{"x":["1","2"],"y":[' in data and b'"path":"/where/Zo' in data


def test_a_response_without_a_length_is_streamed_part_by_part(port: int) -> None:
    RELEASE.clear()
    with closing(http.client.HTTPConnection("127.0.0.1", port, timeout=10)) as conn:
        conn.request("GET", "/stream")
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("transfer-encoding") == "chunked"
        assert response.readline() == b"first\n"  # before the view has produced the rest
        RELEASE.set()
        assert response.read() == b"second\n"


def test_an_error_in_a_view_is_a_500_and_the_server_goes_on(port: int) -> None:
    assert call(port, "GET", "/boom")[0] == 500
    assert call(port, "GET", "/where/a")[0] == 200


def test_head_has_the_length_and_no_body(port: int) -> None:
    status, headers, data = call(port, "HEAD", "/where/a")
    assert status == 200 and data == b"" and int(headers["content-length"]) > 0


def test_a_request_whose_client_leaves_mid_body_never_reaches_the_app(port: int) -> None:
    ECHOED.clear()
    with socket.create_connection(("127.0.0.1", port)) as raw:
        raw.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                    b"Content-Length: 100\r\n\r\n" + b"half" * 5)
        time.sleep(0.2)
    time.sleep(0.3)
    assert call(port, "POST", "/echo", b"whole", {"Content-Type": "text/plain"})[0] == 200
    assert ECHOED == ["5 bytes"]  # the half request was never handed to the app
