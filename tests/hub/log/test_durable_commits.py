"""Issue 32.1, PostgreSQL's half: its commit is durable by default (``synchronous_commit=on``:
the WAL is flushed before the statement returns, so before the acks go out). A URL or a
server that turns it off would lose, at a database crash, events the boards were told are
stored and have forgotten: the store says so when it opens. (SQLite's half, a power cut
emulated: test_power_cut.py.)"""

from __future__ import annotations

import pytest

from hub.log.open import open_store

pytestmark = pytest.mark.postgres


def test_a_postgresql_store_without_durable_commits_says_so(pg_url: str,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    open_store(pg_url).close()
    assert "synchronous_commit=off" not in caplog.text
    assert "options=" in pg_url  # the fixture's schema: keep it, add the setting
    open_store(pg_url.replace("options=", "options=-csynchronous_commit%3Doff%20")).close()
    assert "synchronous_commit=off" in caplog.text
