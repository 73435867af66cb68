"""Shipped media (issue 17): the sounds (web/static/sounds/) are what scripts/make-sounds
makes — short, small, never edited by hand; the winner's trophy is an SVG drawn with
shapes only, so it shows on a machine without an emoji font (#6 "Broken")."""

from __future__ import annotations

import runpy
import wave
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SOUNDS = ROOT / "web" / "static" / "sounds"
TROPHY = ROOT / "web" / "static" / "img" / "trophy.svg"


def frames(data: bytes | Path) -> tuple[Any, list[int]]:
    import io

    with wave.open(io.BytesIO(data) if isinstance(data, bytes) else str(data), "rb") as w:
        raw = w.readframes(w.getnframes())
        params = (w.getnchannels(), w.getsampwidth(), w.getframerate())
    return params, [int.from_bytes(raw[k:k + 2], "little", signed=True) for k in range(0, len(raw), 2)]


def test_shipped_sounds_are_the_scripts_output() -> None:
    built = runpy.run_path(str(ROOT / "scripts" / "make-sounds"))["build"]()
    assert sorted(built) == sorted(p.name for p in SOUNDS.glob("*.wav"))
    for name, data in built.items():
        want_params, want = frames(data)
        got_params, got = frames(SOUNDS / name)
        assert got_params == want_params == (1, 2, 16_000), name
        assert len(got) == len(want), name
        # Same samples, give or take one step of rounding (libm may differ in the last bit).
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= 1, name


def test_sounds_are_short_and_small() -> None:
    for path in SOUNDS.glob("*.wav"):
        (channels, width, rate), samples = frames(path)
        assert len(samples) / rate <= 1.6, path.name
        assert path.stat().st_size < 60_000, path.name
        assert max(abs(s) for s in samples) > 20_000, f"{path.name} is nearly silent"


def test_the_trophy_is_drawn_with_shapes_not_a_font() -> None:
    svg = ET.parse(TROPHY).getroot()
    tags = {element.tag.split("}")[-1] for element in svg.iter()}
    assert "path" in tags and "text" not in tags and "image" not in tags and "use" not in tags
    assert svg.get("viewBox") and TROPHY.stat().st_size < 4_000
    drawn = " ".join(element.get("d", "") for element in svg.iter())
    assert all(ord(c) < 128 for c in TROPHY.read_text(encoding="utf-8"))  # no emoji hiding in it
    assert drawn.strip()
