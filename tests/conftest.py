"""Shared fixtures. A real Mosquitto per test session (see tests/broker.py); a fresh
PostgreSQL schema per test where a server answers (see tests/pg.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests import pg
from tests.broker import Broker

# CI (CI=true) draws the same examples every run: a property that one random draw in a
# hundred breaks is a bug to find while working (random draws, the default profile), never
# a red CI that a rerun turns green. Hypothesis still shrinks and prints what fails.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "records"  # worked examples copied from shared/examples


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``-n`` (``--dist load``): each chip-test module (tests/hil) as one unit on one
    worker, since its tests share one emulated board (booting one costs a minute); every
    other test scheduled alone, as ``load`` does. (pytest 9 ignores xdist's loadgroup.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ChipModulesTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::", 1)[0] if nodeid.startswith("tests/hil/") else nodeid

    return ChipModulesTogether(config, log)


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """A broker for the whole session; do not stop it (use `own_mosquitto` for that)."""
    broker = Broker(tmp_path_factory.mktemp("mosquitto"))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def own_mosquitto(tmp_path: Path) -> Iterator[Broker]:
    """A broker this test may stop and restart."""
    broker = Broker(tmp_path / "mosquitto")
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose tables live in a fresh schema; skips when no server answers."""
    reason = pg.unreachable_reason()
    if reason is not None:
        pytest.skip(reason)
    with pg.fresh_schema() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """``--db`` for each store backend: a SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        yield str(tmp_path / "hub.db")
    else:
        yield request.getfixturevalue("pg_url")
