"""The web layer: dashboard, big screen, overlay, referee console, admin, play pages,
JSON API and live stream, on top of one :class:`hub.facade.Hub` (docs/design.md §7).

``create_app(test_config=None, hub=None)`` is the application factory (flaskr-style):
defaults, then ``instance/config.py`` when there is no test config, then the test
mapping. Give ``PASSWORD`` (plain, hashed at once and forgotten) or ``PASSWORD_HASH``
to open the referee console and admin. ``serve(hub, host, port, password)`` runs it
under uvicorn (see :mod:`web.server`).
"""

from __future__ import annotations

from typing import Any

from web.app import create_app
from web.context import NoHubError, get_feed, get_hub
from web.hub_protocol import HubAPI

__all__ = ["create_app", "serve", "start_server", "get_hub", "get_feed", "HubAPI", "NoHubError"]


def serve(hub: HubAPI, host: str = "127.0.0.1", port: int = 8080, password: str | None = None, **kwargs: Any) -> None:
    """Serve the web app for ``hub`` until interrupted (blocking). See :mod:`web.server`."""
    from web.server import serve as _serve

    _serve(hub, host=host, port=port, password=password, **kwargs)


def start_server(hub: HubAPI, host: str = "127.0.0.1", port: int = 0, password: str | None = None, **kwargs: Any) -> Any:
    """Serve in a background thread; returns a handle with ``.url`` and ``.close()``."""
    from web.server import start_server as _start

    return _start(hub, host=host, port=port, password=password, **kwargs)

