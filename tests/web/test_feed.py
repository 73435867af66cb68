"""web/feed.py: the one thread that reads the hub's change feed for every stream."""

from __future__ import annotations

from hub.facade import Hub
from web.feed import Feed


def test_the_feed_thread_ends_when_its_hub_is_closed_instead_of_spinning() -> None:
    """A closed hub's change feed answers at once with nothing: a reader that kept asking
    held a core for good (one per app a test left running; test_api.py took 36 s instead of
    3). The reader now leaves, having asked about as often as a live hub lets it."""
    hub = Hub(":memory:")
    hub.start()
    asked = 0
    real = hub.changes_since

    def counted(last_id: int, timeout: float) -> list[dict[str, object]]:
        nonlocal asked
        asked += 1
        return real(last_id, timeout)

    hub.changes_since = counted  # type: ignore[method-assign]
    feed = Feed(hub, poll_s=0.2)
    feed.start()
    assert feed._thread is not None
    hub.close()
    feed._thread.join(timeout=5)
    assert not feed._thread.is_alive()
    assert asked <= 3, asked
