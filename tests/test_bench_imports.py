"""Every benchmark under bench/ still imports (its main is not run): a module moved in the
code breaks the bench scripts first, and nothing else runs them (issue 23)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = sorted((Path(__file__).resolve().parent.parent / "bench").glob("*.py"))


@pytest.mark.parametrize("path", BENCH, ids=[p.stem for p in BENCH])
def test_the_benchmark_imports(path: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
