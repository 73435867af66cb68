"""The hub and live feed of the app serving this request (what every blueprint asks)."""

from __future__ import annotations

from flask import current_app

from web.feed import Feed
from web.hub_protocol import HubAPI


class NoHubError(RuntimeError):
    """The app was made without a hub (``create_app(hub=None)``): a 503 (web/errors.py)."""


def get_hub() -> HubAPI:
    hub: HubAPI | None = current_app.extensions.get("hub")
    if hub is None:
        raise NoHubError
    return hub


def get_feed() -> Feed:
    feed: Feed | None = current_app.extensions.get("feed")
    if feed is None:
        raise NoHubError
    feed.start()
    return feed
