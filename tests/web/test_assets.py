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


# -- colour-vision deficiencies -----------------------------------------------------------
# Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB.
SIMULATE = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
}


def seen(hex_colour: str, vision: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour as someone with ``vision`` sees it."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    rgb = [linear(int(hex_colour[k:k + 2], 16) / 255) for k in (1, 3, 5)]
    r, g, b = (min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True)))) for row in SIMULATE[vision])
    xyz = (0.4124 * r + 0.3576 * g + 0.1805 * b, 0.2126 * r + 0.7152 * g + 0.0722 * b, 0.0193 * r + 0.1192 * g + 0.9505 * b)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = (f(v / white) for v, white in zip(xyz, (0.95047, 1.0, 1.08883), strict=True))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def test_player_colours_stay_apart_for_colour_blind_viewers() -> None:
    import itertools
    import math
    import re

    css = (ROOT / "web" / "static" / "css" / "site.css").read_text(encoding="utf-8")
    colours = dict(re.findall(r"--(p\d): (#[0-9a-f]{6})", css))
    assert sorted(colours) == [f"p{k}" for k in range(8)]  # one colour per seat, up to eight players
    for vision in SIMULATE:
        closest = min(math.dist(seen(colours[a], vision), seen(colours[b], vision))
                      for a, b in itertools.combinations(sorted(colours), 2))
        # ΔE 15: clearly two colours side by side (the red/green palette before issue 17: 5.0).
        assert closest >= 15, (vision, closest)
