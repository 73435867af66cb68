"""The kit is consistent: the schematic is its generator's output, every reference in it
is bought in bom.md (and nothing else), a hole cable has one wire count everywhere, and
the filter's RC is what its parts make."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.firmware.mp import ROOT

HW = ROOT / "hardware"


def bom_refs() -> set[str]:
    refs: set[str] = set()
    for line in (HW / "bom.md").read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and cells[1].isdigit():
            for ref in re.findall(r"\b([RCQJU]\d+)\b", cells[2]):
                refs.add(ref)
    return refs


def test_schematic_svg_is_the_generators_output() -> None:
    made = subprocess.run([sys.executable, str(HW / "schematic.py")], capture_output=True, text=True, check=True)
    assert made.stdout == (HW / "schematic.svg").read_text(), "run: python hardware/schematic.py > hardware/schematic.svg"


def test_every_schematic_part_is_in_the_bom_and_back() -> None:
    svg = (HW / "schematic.svg").read_text()
    drawn = set(re.findall(r">([RCQJU]\d+) ", svg))
    assert drawn == bom_refs() | {"J4"}, (sorted(drawn), sorted(bom_refs()))  # J4: the optional load cell


def test_a_hole_cable_has_five_wires_everywhere() -> None:
    for name in ("bom.md", "wiring.md", "schematic.svg"):
        text = (HW / name).read_text()
        assert not re.search(r"\b4-core\b|XH 4-pin|XHP-4|B4B-XH", text), name  # the old, wrong count
        assert re.search(r"\b5-(core|pin|pole)\b|5 wires|5×0\.14", text), name


def test_filter_rc_matches_its_parts() -> None:
    wiring = (HW / "wiring.md").read_text()
    r_ohm, c_farad = 10e3, 1e-9
    assert "10 kΩ" in wiring and "1 nF" in wiring
    stated = re.search(r"RC = 10 kΩ × 1 nF = (\d+) µs", wiring)
    assert stated is not None and int(stated.group(1)) == round(r_ohm * c_farad * 1e6)
    assert "1 nF" in (HW / "bom.md").read_text()
