"""Throw model: a player's skill → where the palet goes, and the beam edges it makes.

Deterministic given the :class:`random.Random` passed in. Crossing times follow
hardware/crossing_times.json: a palet blocks a beam for (thickness or diameter + beam
width) / speed, 2–100 ms; it reaches beam B 13–64 ms after beam A.

>>> rng = random.Random(1)
>>> outcome = throw_outcome(rng, 0.5, ["B1"], {"B1": 0}, ["B1.big", "B1.small"])
>>> outcome.rest in ("board:B1", "floor", "B1.big", "B1.small")
True
>>> edges = hole_edges(random.Random(2), 1_000, passes=True)
>>> sorted((beam, closed) for beam, closed, _t in edges)
[(0, False), (0, True), (1, False), (1, True)]
>>> edges[0][:2], 2_000 <= edges[-1][2] - edges[0][2] <= 200_000
((0, True), True)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

G_M_S2 = 9.81
BEAM_WIDTH_MM = 3.0
BEAM_A_DEPTH_MM = 20.0
BEAM_B_DEPTH_MM = 80.0
THICKNESS_MM = (10.0, 15.0)
DIAMETER_MM = (40.0, 60.0)
BLOCKED_MS = (2.0, 100.0)  # crossing_times.json blocked_ms_range
KNOCK_DELAY_MS = (350.0, 450.0)  # after the thrown palet: past the node's 300 ms confirm
KNOCK_PER_PALET = 0.03  # chance of a knock-in per palet lying on the board hit


@dataclass(frozen=True)
class Outcome:
    """Where a thrown palet ends up.

    ``rest``: ``"board:ID"``, ``"floor"`` or a hole id; ``invalid``: it bounced on the
    floor before falling in (T10); ``bounce_out``: the hole it entered and left (T11),
    or None; ``knocked``: (board, hole) of palets it knocked in (T12).
    """

    rest: str
    invalid: bool = False
    bounce_out: str | None = None
    knocked: tuple[tuple[str, str], ...] = field(default=())


def landing_weights(skill: float) -> dict[str, float]:
    """Chance of each landing for a skill in [0, 1] (0 = beginner, 1 = champion).

    >>> w = landing_weights(1.0); round(sum(w.values()), 6), w["floor"] < landing_weights(0.0)["floor"]
    (1.0, True)
    """
    s = min(1.0, max(0.0, skill))
    raw = {"board": 0.45 + 0.15 * s, "floor": 0.35 - 0.25 * s, "big": 0.12 + 0.05 * s,
           "small": 0.06 + 0.04 * s, "jackpot": 0.02 + 0.06 * s}
    total = sum(raw.values())
    return {k: v / total for k, v in raw.items()}


def throw_outcome(rng: random.Random, skill: float, boards: list[str], lying: dict[str, int],
                  holes: list[str], bounce_out_chance: float = 0.08,
                  invalid_chance: float = 0.08) -> Outcome:
    """One throw. ``boards``: engine board ids; ``lying``: palets on each board;
    ``holes``: engine hole ids (``B1.big``, ``B1.small``, ``jackpot``…)."""
    weights = landing_weights(skill)
    jackpots = [h for h in holes if h.startswith("jackpot")]
    if not jackpots:
        weights["jackpot"] = 0.0
    kind = rng.choices(list(weights), weights=list(weights.values()))[0]
    board = rng.choice(boards)
    if kind == "board":
        return Outcome(f"board:{board}")
    if kind == "floor":
        return Outcome("floor")
    hole = rng.choice(jackpots) if kind == "jackpot" else f"{board}.{kind}"
    if rng.random() < bounce_out_chance:  # in and out again: rests on the board or floor
        return Outcome(f"board:{board}" if rng.random() < 0.6 else "floor", bounce_out=hole)
    invalid = rng.random() < invalid_chance * (1.5 - min(1.0, max(0.0, skill)))
    knocked: list[tuple[str, str]] = []
    if kind != "jackpot":
        # The palet hits the board on its way in: knock-ins grow with what lies there.
        left = lying.get(board, 0)
        for _ in range(left):
            if rng.random() < KNOCK_PER_PALET * left:
                knocked.append((board, f"{board}.{rng.choice(('big', 'small'))}"))
                if len(knocked) == 2:
                    break
    return Outcome(hole, invalid, None, tuple(knocked))


def crossing_us(rng: random.Random, depth_mm: float, v0_m_s: float) -> int:
    """How long a palet blocks a beam at ``depth_mm`` below the lip, in µs (2–100 ms)."""
    v = math.sqrt(v0_m_s ** 2 + 2 * G_M_S2 * depth_mm / 1000)
    length = rng.uniform(*THICKNESS_MM) if rng.random() < 0.7 else rng.uniform(*DIAMETER_MM)
    ms = (length + BEAM_WIDTH_MM) / v
    return int(1000 * min(BLOCKED_MS[1], max(BLOCKED_MS[0], ms)))


def hole_edges(rng: random.Random, t0_us: int, passes: bool) -> list[tuple[int, bool, int]]:
    """Beam edges ``(beam, closed, t_us)`` of a palet entering a hole at ``t0_us``: through
    beam A then beam B (``passes``), or beam A only and back out (a bounce-out, T11)."""
    v0 = rng.uniform(0.0, 2.0)
    a = crossing_us(rng, BEAM_A_DEPTH_MM, v0)
    if not passes:
        out_after = int(rng.uniform(40_000, 250_000))  # bounce_out_ms_range
        return [(0, True, t0_us), (0, False, t0_us + max(a, out_after))]
    va = math.sqrt(v0 ** 2 + 2 * G_M_S2 * BEAM_A_DEPTH_MM / 1000)
    drop_m = (BEAM_B_DEPTH_MM - BEAM_A_DEPTH_MM) / 1000
    fall_s = (-va + math.sqrt(va ** 2 + 2 * G_M_S2 * drop_m)) / G_M_S2
    tb = t0_us + int(fall_s * 1e6)
    b = crossing_us(rng, BEAM_B_DEPTH_MM, v0)
    # A long palet may still block A when it reaches B: the edges interleave.
    return sorted([(0, True, t0_us), (0, False, t0_us + a), (1, True, tb), (1, False, tb + b)],
                  key=lambda e: e[2])


# -- the load cell under a board (HX711) ------------------------------------------------------
LOAD_TARE_RAW = 81_234  # an empty board on four 5 kg bar cells, HX711 gain 128
LOAD_PER_PALET_RAW = 21_500  # one palet (~150 g)
LOAD_NOISE = 0.004  # reading noise, in palets (1 sigma)
LOAD_WOBBLE = (0.4, 1.2)  # landing: the board rocks, first swing in palets
LOAD_WOBBLE_TAU_S = 0.15  # ... decaying with this time constant
LOAD_WOBBLE_HZ = 8.0
LOAD_SETTLE_US = 1_500_000  # after this the reading is steady (wobble < noise)


class LoadCellModel:
    """Raw HX711 readings of a board's load cell: palets lying on it, reading noise, and
    the rocking of the board for a moment after a palet lands (or leaves).

    >>> cell = LoadCellModel(random.Random(1))
    >>> cell.set_palets(0, 2)
    >>> abs(cell.raw(3_000_000) - (LOAD_TARE_RAW + 2 * LOAD_PER_PALET_RAW)) < LOAD_PER_PALET_RAW * 0.05
    True
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.palets = 0
        self.changed_us: int | None = None
        self.swing = 0.0

    def set_palets(self, t_us: int, palets: int) -> None:
        if palets != self.palets:
            self.palets = palets
            self.changed_us = t_us
            self.swing = self.rng.uniform(*LOAD_WOBBLE) * self.rng.choice((-1, 1))

    def raw(self, t_us: int) -> int:
        value = self.palets + self.rng.gauss(0.0, LOAD_NOISE)
        if self.changed_us is not None:
            dt = (t_us - self.changed_us) / 1e6
            if 0 <= dt < LOAD_SETTLE_US / 1e6:
                value += self.swing * math.exp(-dt / LOAD_WOBBLE_TAU_S) * math.cos(2 * math.pi * LOAD_WOBBLE_HZ * dt)
        return int(LOAD_TARE_RAW + value * LOAD_PER_PALET_RAW)

