"""Interrupt handlers allocate nothing: run them under micropython.heap_lock()."""

from __future__ import annotations

import pytest

from tests.firmware.mp import micropython


@pytest.mark.micropython
def test_irq_handlers_run_under_heap_lock() -> None:
    proc = micropython("tests/firmware/mp_heaplock.py")
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "LOCK_REAL True" in out, out  # the lock does refuse allocations
    assert "HANDLERS_NO_ALLOC True 63 1937" in out, out  # 2000 edges: 63 kept, rest counted
    assert "FIRST 0 True" in out, out
