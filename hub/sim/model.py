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



# -- the throw gate at the throw line (hardware/throw-line.md) ---------------------------------
# Two "sky screens", as in a ballistic chronograph: each plane is the fan of light from an
# IR-lit diffuser strip along the gate's top bar (GATE_TOP_M above the floor) down to
# SCREEN_SEGMENTS photodiodes behind slits in its bottom bar (GATE_BOTTOM_M), across
# GATE_WIDTH_M; the near plane GATE_X_M in front of the throw line, the far one GATE_GAP_MM
# further. An object in the plane hides a share of the strip from a photodiode: its width
# across (mm) over its distance from the photodiode, against the segment's fan angle; a
# dip of SCREEN_DIP_MIN or more closes that plane's comparator output (OR-ed per plane).
GATE_X_M = 1.0
GATE_GAP_MM = 50.0
GATE_WIDTH_M = 0.9
GATE_BOTTOM_M = 0.35
GATE_TOP_M = 1.9
SCREEN_SEGMENTS = 4
SCREEN_DIP_MIN = 0.03  # the comparator's threshold: 3 % less light (chronographs see < 1 %)
SCREEN_THICK_MM = 4.0  # the plane's thickness (the slit's image): added to the palet's length
RECEIVER_MIN_US = 300  # the band-pass and envelope detector need ~0.3 ms of dip to answer
# The throw (a 3 m underhand throw): release a little in front of the line, hip to chest
# height, on the thrower's marked spot; launch from flat to lob; the speed follows from
# where the palet lands (no drag: a 150 g palet at 5 m/s feels 2 % of its weight).
RELEASE_X_M = (0.0, 0.35)
RELEASE_H_M = (0.45, 1.0)
RELEASE_Y_M = (-0.25, 0.25)
LAUNCH_DEG = (12.0, 55.0)
BANK_DEG_SIGMA = 25.0  # the palet's bank (tilt around its path), spin-stabilised
ATTACK_DEG_SIGMA = 10.0  # the disk's pitch against its path
# What else crosses the gate, per throw (behaviour, not geometry: stated, then tested by
# the firmware's own classifier on the edges they make):
REACH_CHANCE = 0.004  # the follow-through hand reaches 1 m past the line (a lunge, long arms)
WALK_CHANCE = 0.02  # someone walks or reaches through the gate during a throw
STRAY_CHANCE = 0.0004  # an object tossed outward through the gate with no throw (a false trigger)


@dataclass(frozen=True)
class GateCrossing:
    """A palet's passage through the gate: where, how fast, for how long each plane."""

    height_m: float
    lateral_m: float
    vx_m_s: float
    closed_us: int  # how long each plane stays closed (0: no beam seen it)
    flight_us: int  # from the near plane to the landing
    seen: bool


def landing_point(rng: random.Random, rest: str) -> tuple[float, float]:
    """Where a palet comes down (x from the throw line, y across), by where it rests."""
    if rest != "floor":
        return rng.uniform(3.05, 3.45), rng.gauss(0.0, 0.12)
    kind = rng.random()
    if kind < 0.5:  # short
        return rng.uniform(1.6, 3.0), rng.gauss(0.0, 0.25)
    if kind < 0.75:  # long
        return rng.uniform(3.5, 4.6), rng.gauss(0.0, 0.3)
    return rng.uniform(2.8, 3.6), rng.choice((-1, 1)) * rng.uniform(0.35, 1.0)  # wide


def gate_crossing(rng: random.Random, rest: str) -> GateCrossing:
    """One throw's passage through the gate (seen or not, and why).

    >>> c = gate_crossing(random.Random(3), "board:B1")
    >>> c.seen, 2.0 < c.vx_m_s < 8.0, 3_000 < c.closed_us < 30_000
    (True, True, True)
    """
    land_x, land_y = landing_point(rng, rest)
    x_r, h0, y_r = rng.uniform(*RELEASE_X_M), rng.uniform(*RELEASE_H_M), rng.uniform(*RELEASE_Y_M)
    theta = math.radians(rng.uniform(*LAUNCH_DEG))
    dx = land_x - x_r
    v = math.sqrt(G_M_S2 * dx ** 2 / (2 * math.cos(theta) ** 2 * (h0 + dx * math.tan(theta))))
    vx, xg = v * math.cos(theta), GATE_X_M - x_r
    z = h0 + xg * math.tan(theta) - G_M_S2 * xg ** 2 / (2 * vx ** 2)
    vz = v * math.sin(theta) - G_M_S2 * xg / vx
    y = y_r + (land_y - y_r) * xg / dx
    radius = rng.uniform(*DIAMETER_MM) / 2
    half_t = rng.uniform(*THICKNESS_MM) / 2
    bank = math.radians(abs(rng.gauss(0.0, BANK_DEG_SIGMA)))
    pitch = math.atan2(abs(vz), vx) + math.radians(rng.gauss(0.0, ATTACK_DEG_SIGMA))
    across = radius * math.cos(bank) + half_t * math.sin(bank)  # footprint half-width, mm
    along = radius * abs(math.cos(pitch)) + half_t * abs(math.sin(pitch))  # half-length, mm
    inside = GATE_BOTTOM_M < z < GATE_TOP_M and abs(y) < GATE_WIDTH_M / 2
    fan = GATE_WIDTH_M / SCREEN_SEGMENTS / (GATE_TOP_M - GATE_BOTTOM_M)  # one segment's fan, rad
    dip = 2 * across / 1000 / max(0.05, z - GATE_BOTTOM_M) / fan  # share of its strip hidden
    seen_dip = inside and dip >= SCREEN_DIP_MIN
    closed_us = int((2 * along + SCREEN_THICK_MM) / vx * 1000) if seen_dip else 0
    flight_us = int((dx - xg) / vx * 1e6)
    return GateCrossing(z, y, vx, closed_us, flight_us, closed_us >= RECEIVER_MIN_US)


def gate_edges(rng: random.Random, t0_us: int, crossing: GateCrossing) -> list[tuple[int, bool, int]]:
    """Plane edges ``(plane, closed, t_us)`` of a palet crossing (0 = near, 1 = far)."""
    if not crossing.seen:
        return []
    lag = int(GATE_GAP_MM / crossing.vx_m_s * 1000)
    far_closed = max(RECEIVER_MIN_US, int(crossing.closed_us * rng.uniform(0.9, 1.1)))
    return sorted([(0, True, t0_us), (0, False, t0_us + crossing.closed_us),
                   (1, True, t0_us + lag), (1, False, t0_us + lag + far_closed)], key=lambda e: (e[2], e[0]))


def body_edges(rng: random.Random, t0_us: int, kind: str) -> list[tuple[int, bool, int]]:
    """Plane edges of something that is not a thrown palet: a hand at full reach
    (``reach``: slow, in the planes 80-400 ms), someone walking or reaching through
    (``walk``: 300-900 ms), an object tossed outward (``stray``: looks like a palet)."""
    if kind == "stray":
        return gate_edges(rng, t0_us, gate_crossing(rng, "floor"))
    if kind == "reach":
        lag, hold = rng.uniform(25_000, 120_000), rng.uniform(80_000, 400_000)
    else:
        lag, hold = rng.uniform(60_000, 300_000), rng.uniform(300_000, 900_000)
    lag_i, hold_i = int(lag), int(hold)
    return sorted([(0, True, t0_us), (1, True, t0_us + lag_i), (1, False, t0_us + lag_i + hold_i),
                   (0, False, t0_us + lag_i + hold_i + int(rng.uniform(10_000, 80_000)))],
                  key=lambda e: (e[2], e[0]))


@dataclass(frozen=True)
class GateTimeline:
    """Everything the gate sees during one throw: edges, and when the palet lands."""

    edges: list[tuple[int, bool, int]]
    land_us: int
    crossing: GateCrossing
    others: tuple[str, ...]


def throw_timeline(rng: random.Random, rest: str) -> GateTimeline:
    """The gate's edges during one throw whose palet comes to rest at ``rest``: the palet
    (if the gate sees it), and now and then a hand at full reach, someone walking through
    the gate, or a stray object; the palet lands ``land_us`` after the first edge."""
    crossing = gate_crossing(rng, rest)
    edges = gate_edges(rng, 0, crossing)
    others = []
    if rng.random() < REACH_CHANCE:  # the hand follows the palet through the gate
        others.append("reach")
        edges += body_edges(rng, int(rng.uniform(0, 150_000)), "reach")
    if rng.random() < WALK_CHANCE:
        others.append("walk")
        edges += body_edges(rng, int(rng.uniform(-800_000, 1_500_000)), "walk")
    if rng.random() < STRAY_CHANCE:
        others.append("stray")
        edges += body_edges(rng, int(rng.uniform(2_000_000, 4_000_000)), "stray")
    start = min((t for _p, _c, t in edges), default=0)
    edges = sorted(((p, c, t - start) for p, c, t in edges), key=lambda e: (e[2], e[0]))
    return GateTimeline(edges, crossing.flight_us - start, crossing, tuple(others))


def classify(edges: list[tuple[int, bool, int]]) -> list[int]:
    """The firmware's own gate classifier (:class:`firmware.beams.Gate`, default
    thresholds) on a timeline's edges: the ``t_us`` of each ``throw`` it reports."""
    from firmware.beams import Gate
    from firmware.config import DEFAULTS

    throws: list[int] = []
    gate = Gate("L1", DEFAULTS, lambda kind, _lane, arg: throws.append(arg) if kind == "throw" else None)
    base = 1_000_000
    now = base
    for plane, closed, t in edges:
        while now < base + t:  # the node polls every 2 ms
            gate.tick(now)
            now += 2_000
        gate.edge(plane, closed, base + t)
    for _ in range(200):
        now += 2_000
        gate.tick(now)
    return [t - base for t in throws]


def gate_rates(n: int = 20_000, seed: int = 1) -> dict[str, float]:
    """Shares over ``n`` modelled throws (75 % ending on a board or in a hole, 25 % on
    the floor), through the firmware's classifier: ``miss`` no ``throw`` reported (with
    the geometric part: ``over`` the top bar, ``under`` the bottom bar, ``wide`` of the
    gate, ``short`` a dip too small, an edge-on palet high up), ``double`` two or more reported
    (the hub merges them), ``false`` a ``throw`` with no palet behind it (a stray object)
    per throw.

    >>> r = gate_rates(2_000); r["miss"] < 0.03 and r["false"] < 0.002
    True
    """
    rng = random.Random(f"gate:{seed}")
    why: dict[str, int] = {"over": 0, "under": 0, "wide": 0, "short": 0}
    missed = doubled = false = 0
    for _ in range(n):
        timeline = throw_timeline(rng, "floor" if rng.random() < 0.25 else "board:B1")
        c = timeline.crossing
        reported = classify(timeline.edges)
        palet = [t for t in reported if abs(t - (timeline.land_us - c.flight_us)) < 200_000]
        false += len(reported) - len(palet)
        missed += not palet
        doubled += len(palet) > 1
        if c.seen:
            continue
        if c.height_m >= GATE_TOP_M:
            why["over"] += 1
        elif c.height_m <= GATE_BOTTOM_M:
            why["under"] += 1
        elif abs(c.lateral_m) >= GATE_WIDTH_M / 2:
            why["wide"] += 1
        else:
            why["short"] += 1
    out = {"miss": missed / n, "double": doubled / n, "false": false / n}
    out.update({f"miss_{k}": v / n for k, v in why.items()})
    out.update({"reach": REACH_CHANCE, "walk": WALK_CHANCE, "stray": STRAY_CHANCE})
    return out
