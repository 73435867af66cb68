"""Shared fixtures. A real Mosquitto per test session (see tests/broker.py); a fresh
PostgreSQL schema per test where a server answers (see tests/pg.py); one Chromium per
test session (through Playwright) with fresh contexts for each test (``browser``)."""

from __future__ import annotations

import asyncio
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
RECORDS = ROOT / "tests" / "records"  # worked examples (docs/records.md § Worked examples)


SHARED_RUNS = ("tests/firmware/test_logic.py::test_case_micropython[",)
# Modules whose tests share a module fixture that renders or boots something costly.
# (tests/hil/test_rollback_chip.py boots a chip per test: its tests are units of their own.)
SHARED_MODULES = ("tests/hil/test_pico.py", "tests/hil/test_pico_w.py", "tests/hil/test_update_chip.py",
                  "tests/hardware/test_cad.py")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``-n`` (``--dist load``): tests that share one costly module fixture run as one
    unit on one worker, so that it is paid once: each chip-test module (tests/hil: one
    emulated board, booting it costs a minute), the CAD module (each part rendered once)
    and the unix-port logic cases (one MicroPython run of every case, ~30 s); every other test scheduled alone, as ``load``
    does. (pytest 9 ignores xdist's loadgroup.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ChipModulesTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(SHARED_MODULES):
                return nodeid.split("::", 1)[0]
            if nodeid.startswith(SHARED_RUNS):
                return nodeid.split("[", 1)[0]
            return nodeid

    return ChipModulesTogether(config, log)


# The costliest units first (CPU seconds measured with TRIGONO_TEST_CPU, docs/performance.md
# "Test suite"): xdist hands units out in collection order, and a two-minute chip module
# handed out last leaves the other worker idle for its whole length.
COSTLY_FIRST = ("tests/hil/test_pico_w.py", "tests/hil/test_pico.py", "tests/hil/test_update_chip.py",
                "tests/hil/test_rollback_chip.py", "tests/firmware/test_update.py", "tests/chaos/",
                "tests/tournament/test_corrections.py", "tests/tournament/test_properties.py",
                "tests/hub/devices/test_clock_step.py", "tests/tournament/test_cli.py",
                "tests/multihall/", "tests/sim/", "tests/web/test_accessibility.py")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that opens Chromium is a `browser` test whether or not it says so (the fast
    loop's `not browser` once ran two screenshot tests, 17 s of it); then the tests of
    :data:`COSTLY_FIRST` move ahead, in that order (a stable sort: the same order on every
    worker, as xdist requires)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)

    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(COSTLY_FIRST) if item.nodeid.startswith(prefix)),
                    len(COSTLY_FIRST))

    items.sort(key=rank)


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


# -- real browser (Chromium through Playwright) ------------------------------------------
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def _hold_playwright_loop(chromium: Any, held: bool) -> None:
    """Playwright's sync API leaves its event loop marked as running in this thread between
    its calls (its dispatcher greenlet is suspended inside it). Held only while a browser
    test runs: other tests on this worker (``asyncio.run`` in a doctest) need the thread
    free, and Playwright needs the mark back before its next call."""
    asyncio._set_running_loop(chromium._loop if held else None)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One Chromium for the whole worker: launching one costs about a second of CPU, so it
    is paid once, not per module. Tests take it through ``browser``."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/test installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        _hold_playwright_loop(launched, False)
        yield launched
        _hold_playwright_loop(launched, True)
        launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The worker's Chromium, for one test: every context the test opens (a cookie jar, a
    locale, a viewport: ``new_context``, ``tests.web.conftest.new_page``) is closed when it
    ends, so no test sees another's session, storage or pages."""
    _hold_playwright_loop(chromium, True)
    try:
        yield chromium
    finally:
        for context in list(chromium.contexts):
            context.close()
        _hold_playwright_loop(chromium, False)


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


# Where the suite's CPU goes: with TRIGONO_TEST_CPU=FILE each worker appends one JSON line
# per test (node id, its start (epoch seconds), wall seconds, CPU seconds of this process and of
# the children it reaped). Wall minus CPU is waiting; on a loaded 2-core machine wall alone misleads.
_CPU_LOG = os.environ.get("TRIGONO_TEST_CPU")


if _CPU_LOG:
    import json
    import resource
    import time

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
        def cpu() -> tuple[float, float]:
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            return time.process_time(), kids.ru_utime + kids.ru_stime

        wall0, (own0, kids0) = time.monotonic(), cpu()
        yield
        own1, kids1 = cpu()
        line = {"test": item.nodeid, "start": round(time.time() - (time.monotonic() - wall0), 3),
                "wall": round(time.monotonic() - wall0, 3),
                "cpu": round(own1 - own0, 3), "children": round(kids1 - kids0, 3)}
        with open(_CPU_LOG, "a") as out:
            out.write(json.dumps(line) + "\n")
