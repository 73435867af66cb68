"""The firmware's pure logic, the same cases (cases.py) under CPython and under the real
MicroPython unix port."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from tests.firmware.mp import micropython

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import cases  # noqa: E402

CASES: list[tuple[str, Callable[[], None]]] = cases.all_cases()
NAMES = [name for name, _ in CASES]


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(cases.__file__.rsplit("/tests/", 1)[0])  # cases read hardware/pinmap.json


@pytest.mark.parametrize("name", NAMES)
def test_case_cpython(name: str) -> None:
    dict(CASES)[name]()


@pytest.fixture(scope="module")
def micropython_results() -> dict[str, str]:
    proc = micropython("tests/firmware/mp_runner.py")
    results: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        verdict, _, rest = line.partition(" ")
        name, _, error = rest.partition(":")
        if verdict in ("PASS", "FAIL"):
            results[name] = "" if verdict == "PASS" else error + "\n" + proc.stdout + proc.stderr
    assert results, f"the runner printed nothing: {proc.stdout}{proc.stderr}"
    return results


@pytest.mark.micropython
@pytest.mark.parametrize("name", NAMES)
def test_case_micropython(name: str, micropython_results: dict[str, str]) -> None:
    assert name in micropython_results, "case did not run under MicroPython"
    assert micropython_results[name] == "", micropython_results[name]
