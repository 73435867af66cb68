"""The printable parts (hardware/cad/*.scad) render to STL with OpenSCAD, at the beam
depths mounting.md gives (beam A 20 mm, beam B 80 mm under the playing surface)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.firmware.mp import ROOT

CAD = ROOT / "hardware" / "cad"
OPENSCAD = shutil.which("openscad")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(OPENSCAD is None, reason="openscad is not installed (apt-get install openscad)")]


def render(name: str, out: Path, *defines: str) -> tuple[str, str]:
    assert OPENSCAD is not None
    stl = out / f"{name}.stl"
    args = [a for d in defines for a in ("-D", d)]
    proc = subprocess.run([OPENSCAD, "-o", str(stl), *args, str(CAD / f"{name}.scad")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = stl.read_text()
    assert text.startswith("solid") and text.count("facet normal") > 100, text[:200]
    return proc.stderr, text


@pytest.fixture(scope="module")
def part_log(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    """OpenSCAD's log of one part rendered with its own defaults, rendered once per module:
    a render costs seconds (the funnel most), and several tests read the same log."""
    out = tmp_path_factory.mktemp("parts")
    logs: dict[str, str] = {}

    def log_of(name: str) -> str:
        if name not in logs:
            logs[name], _ = render(name, out)
        return logs[name]
    return log_of


@pytest.mark.parametrize("name", sorted(p.stem for p in CAD.glob("*.scad")))
def test_every_part_renders_to_a_solid(name: str, part_log: Callable[[str], str]) -> None:
    log = part_log(name)
    assert "WARNING" not in log and "ERROR" not in log, log


def test_beams_sit_where_mounting_md_says(tmp_path: Path, part_log: Callable[[str], str]) -> None:
    log_a, log_b = part_log("beam_ring"), part_log("funnel")
    assert 'ECHO: "beam A at 20 mm under the surface"' in log_a, log_a
    assert 'ECHO: "beam B at 80 mm under the surface"' in log_b, log_b
    small, _ = render("beam_ring", tmp_path, "hole_d=90", "pairs=2")
    assert re.search(r"beam A at 20 mm", small)


def test_a_bore_that_does_not_fit_is_refused(tmp_path: Path) -> None:
    assert OPENSCAD is not None
    proc = subprocess.run([OPENSCAD, "-o", str(tmp_path / "x.stl"), "-D", "rebate=0",
                           str(CAD / "beam_ring.scad")], capture_output=True, text=True, timeout=300)
    assert "does not fit" in proc.stderr


def test_the_throw_gate_heads_keep_the_planes_apart(tmp_path: Path, part_log: Callable[[str], str]) -> None:
    log = part_log("throw_gate")
    assert 'ECHO: "planes 50 mm apart' in log, log  # the firmware's line_lag thresholds assume 50 mm
    assert OPENSCAD is not None
    proc = subprocess.run([OPENSCAD, "-o", str(tmp_path / "x.stl"), "-D", "baffle=40",
                           str(CAD / "throw_gate.scad")], capture_output=True, text=True, timeout=300)
    assert "the baffle is too short" in proc.stderr
