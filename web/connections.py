"""Bounds on the web server's connections (uvicorn's HTTP protocol, subclassed).

Issue 24.7: 20,000 idle connections used every file descriptor in 2.3 s and took pages
and streams down, because uvicorn closes an idle connection only after a response (its
keep-alive timeout): one that never sends a request, or sends its headers a byte at a
time, was held for ever. Here each connection

- must complete its request headers within ``header_timeout_s`` of connecting, and of
  starting each further request on a kept-alive connection (slow clients are closed);
- is idle-closed ``WEB_KEEP_ALIVE_S`` after a response (uvicorn's keep-alive timeout);
- counts against its address: beyond ``per_address`` open connections, a new one is
  closed at once (one laptop cannot hold every descriptor; phones each have their own
  address; behind a reverse proxy every connection has the proxy's, so set
  ``WEB_MAX_PER_ADDRESS`` to 0 there and let the proxy bound them).

The live streams (``/api/stream``) stay bounded by their slots (:mod:`web.stream`): a
stream's request is complete, so only the per-address count applies to it.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEADER_TIMEOUT_S = 10.0  # a phone on bad Wi-Fi sends its headers in well under a second
KEEP_ALIVE_S = 5.0  # idle after a response (uvicorn's default, said here)
MAX_PER_ADDRESS = 256  # a big screen and a few tabs hold a handful; the console a few more


def bounded_protocol(per_address: int = MAX_PER_ADDRESS,
                     header_timeout_s: float = HEADER_TIMEOUT_S) -> type[asyncio.Protocol] | None:
    """uvicorn's httptools protocol with the bounds above (``per_address`` 0: no address
    limit); None when httptools is not installed (uvicorn then picks its own)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return None
    open_by_address: dict[str, int] = {}

    class BoundedProtocol(HttpToolsProtocol):
        _address: str | None = None
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
            if per_address and open_by_address.get(address, 0) >= per_address:
                transport.abort()  # before it costs more than its accept
                return
            self._address = address
            open_by_address[address] = open_by_address.get(address, 0) + 1
            self._start_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_header_timer()
            address, self._address = self._address, None
            if address is not None:
                left = open_by_address.get(address, 1) - 1
                if left > 0:
                    open_by_address[address] = left
                else:
                    open_by_address.pop(address, None)
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._header_timer is None:
                self._start_header_timer()

        def on_headers_complete(self) -> None:
            self._stop_header_timer()
            super().on_headers_complete()

        def _start_header_timer(self) -> None:
            self._header_timer = self.loop.call_later(header_timeout_s, self._too_slow)

        def _stop_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    BoundedProtocol.open_by_address = open_by_address  # type: ignore[attr-defined]
    return BoundedProtocol


def uvicorn_limits(config: Any) -> dict[str, Any]:
    """The uvicorn.Config arguments for the app's settings ``WEB_MAX_PER_ADDRESS``,
    ``WEB_HEADER_TIMEOUT_S`` and ``WEB_KEEP_ALIVE_S``."""
    protocol = bounded_protocol(int(config.get("WEB_MAX_PER_ADDRESS", MAX_PER_ADDRESS)),
                                float(config.get("WEB_HEADER_TIMEOUT_S", HEADER_TIMEOUT_S)))
    limits: dict[str, Any] = {"timeout_keep_alive": float(config.get("WEB_KEEP_ALIVE_S", KEEP_ALIVE_S))}
    if protocol is not None:
        limits["http"] = protocol
    return limits
