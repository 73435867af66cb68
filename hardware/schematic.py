"""The board's schematic (Pico W, two holes, throw-line button, optional HX711) as SVG.

    python hardware/schematic.py > hardware/schematic.svg

One source for the drawing and the part list: every reference designator drawn here is
in bom.md and the other way round (tests/hardware/test_kit.py checks both, and that the
committed SVG is this script's output). Values: 10 kΩ pull-ups; 1 nF filter caps
(RC = 10 µs, far under the 2 ms shortest palet; the earlier 100 nF gave 1 ms, which
rounds a 2 ms pulse off); 100 Ω gate + 100 kΩ gate pull-down on each emitter MOSFET.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

W, H = 1180, 900
ROW = 70  # vertical distance between two signal lines
HOLES = [  # (name, GPIO A, GPIO B, GPIO emitter, refs)
    ("big", 2, 3, 4, {"RA": "R1", "RB": "R2", "CA": "C1", "CB": "C2", "RG": "R5", "RP": "R6", "Q": "Q1",
                      "J": "J1"}),
    ("small", 6, 7, 8, {"RA": "R3", "RB": "R4", "CA": "C3", "CB": "C4", "RG": "R7", "RP": "R8", "Q": "Q2",
                        "J": "J2"}),
]
PARTS = {  # reference -> value, as in bom.md
    "U1": "Raspberry Pi Pico W", "R1": "10k", "R2": "10k", "R3": "10k", "R4": "10k",
    "C1": "1n", "C2": "1n", "C3": "1n", "C4": "1n", "R5": "100R", "R6": "100k", "R7": "100R",
    "R8": "100k", "Q1": "AO3400A", "Q2": "AO3400A", "J1": "5-pin", "J2": "5-pin", "J3": "2-pin",
    "J4": "4-pin (opt.)",
}


class Svg:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.refs: list[str] = []

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str = "#000", width: float = 1.6) -> None:
        self.items.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{width}"/>')

    def text(self, x: float, y: float, s: str, size: int = 12, anchor: str = "start", color: str = "#000",
             bold: bool = False) -> None:
        weight = ' font-weight="bold"' if bold else ""
        self.items.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="{color}"{weight}>'
                          f"{escape(s)}</text>")

    def dot(self, x: float, y: float) -> None:
        self.items.append(f'<circle cx="{x}" cy="{y}" r="3.2"/>')

    def _zigzag(self, pts: list[tuple[float, float]]) -> None:
        self.items.append('<polyline fill="none" stroke="#000" stroke-width="1.6" points="'
                          + " ".join(f"{a},{b}" for a, b in pts) + '"/>')

    def resistor(self, ref: str, x: float, y1: float, y2: float) -> None:
        """Vertical resistor (zigzag) between y1 and y2, leads included."""
        mid, half = (y1 + y2) / 2, 12
        self.line(x, min(y1, y2), x, mid - half)
        self.line(x, mid + half, x, max(y1, y2))
        self._zigzag([(x, mid - half)] + [(x + (5 if i % 2 else -5), mid - half + 2 + 4 * i) for i in range(6)]
                     + [(x, mid + half)])
        self.part(ref, x + 9, mid + 4)

    def resistor_h(self, ref: str, x1: float, x2: float, y: float) -> None:
        mid, half = (x1 + x2) / 2, 12
        self.line(x1, y, mid - half, y)
        self.line(mid + half, y, x2, y)
        self._zigzag([(mid - half, y)] + [(mid - half + 2 + 4 * i, y + (5 if i % 2 else -5)) for i in range(6)]
                     + [(mid + half, y)])
        self.part(ref, mid - 16, y - 10)

    def capacitor(self, ref: str, x: float, y1: float, y2: float) -> None:
        mid = (y1 + y2) / 2
        self.line(x, y1, x, mid - 3)
        self.line(x, mid + 3, x, y2)
        self.line(x - 9, mid - 3, x + 9, mid - 3, width=2.4)
        self.line(x - 9, mid + 3, x + 9, mid + 3, width=2.4)
        self.part(ref, x + 13, mid + 4)

    def vcc(self, x: float, y: float) -> None:
        """A 3V3 supply symbol whose wire ends at (x, y)."""
        self.line(x - 8, y, x + 8, y, "#c00", 2.2)
        self.text(x, y - 4, "3V3", 10, "middle", "#c00")

    def gnd(self, x: float, y: float) -> None:
        """A ground symbol whose wire ends at (x, y)."""
        for i, half in enumerate((9, 6, 3)):
            self.line(x - half, y + 3 * i, x + half, y + 3 * i, width=1.8)

    def mosfet(self, ref: str, x: float, y: float) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        """N-MOSFET with its gate at (x - 14, y); returns gate, drain, source points."""
        self.line(x - 14, y - 12, x - 14, y + 12, width=2.2)  # gate plate
        self.line(x - 8, y - 14, x - 8, y + 14, width=2.2)  # channel
        self.line(x - 8, y - 9, x + 10, y - 9)
        self.line(x + 10, y - 9, x + 10, y - 24)  # drain
        self.line(x - 8, y + 9, x + 10, y + 9)
        self.line(x + 10, y + 9, x + 10, y + 24)  # source
        self.items.append(f'<polygon points="{x - 8},{y + 9} {x - 1},{y + 5} {x - 1},{y + 13}" fill="#000"/>')
        self.part(ref, x + 16, y + 4)
        return (x - 14, y), (x + 10, y - 24), (x + 10, y + 24)

    def connector(self, ref: str, x: float, pins: list[tuple[str, float]]) -> list[tuple[float, float]]:
        """A connector box whose pins sit at the given heights; returns each pin's point."""
        top, bottom = pins[0][1] - 16, pins[-1][1] + 12
        self.items.append(f'<rect x="{x}" y="{top}" width="104" height="{bottom - top}" fill="#fff8e0" '
                          'stroke="#a07000" stroke-width="1.6"/>')
        for i, (name, py) in enumerate(pins):
            self.line(x, py, x + 6, py)
            self.text(x + 9, py + 4, f"{i + 1} {name}", size=11)
        self.part(ref, x, top - 5)
        return [(x, py) for _name, py in pins]

    def part(self, ref: str, x: float, y: float) -> None:
        self.refs.append(ref)
        self.text(x, y, f"{ref} {PARTS[ref]}", size=11, color="#1a4f9c", bold=True)

    def render(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
                'font-family="sans-serif">\n<title>Trigono sensor board schematic (Pico W, two holes)</title>\n'
                f'<rect width="{W}" height="{H}" fill="#ffffff"/>\n')
        return head + "\n".join(self.items) + "\n</svg>\n"


def draw() -> Svg:
    s = Svg()
    s.text(20, 30, "Trigono sensor board: Pico W, big + small hole, throw-line button, optional HX711", 18, bold=True)
    s.text(20, 50, "Each hole cable has 5 wires (3V3, GND, beam A, beam B, emitter return): J1 / J2 = 5-pole "
                   "screw terminal at the board, JST-XH 5-pin at the hole.", 12, color="#444")
    s.text(20, 68, "Receivers pull their beam LOW while it is broken; receivers of one beam A curtain share "
                   "its wire. Emitters: red to 3V3 (pin 1), black to pin 5.", 12, color="#444")
    x_mcu, x_pull, x_cap, x_conn = 250, 330, 380, 880
    y: float = 160
    pins: dict[str, float] = {}
    rows: list[tuple[str, str, float]] = []
    for name, a, b, em, _refs in HOLES:
        for label, gpio in ((f"{name} beam A", a), (f"{name} beam B", b), (f"{name} emitter", em)):
            rows.append((f"GP{gpio}", label, y))
            pins[f"GP{gpio}"] = y
            y += ROW
        y += 40  # room for the next connector's supply pins
    for key, label in (("GP14", "throw-line button"), ("GP16", "HX711 DOUT"), ("GP17", "HX711 SCK")):
        rows.append((key, label, y))
        pins[key] = y
        y += ROW * 0.6
    s.items.append(f'<rect x="30" y="116" width="{x_mcu - 30}" height="{y - 116}" rx="8" fill="#e8f4e8" '
                   'stroke="#2a7a2a" stroke-width="2"/>')
    s.part("U1", 40, 136)
    for key, label, py in rows:
        s.text(44, py + 4, f"{key}  {label}", 12)
        s.dot(x_mcu, py)
    for _name, a, b, em, refs in HOLES:
        ya, yb, ye = pins[f"GP{a}"], pins[f"GP{b}"], pins[f"GP{em}"]
        conn = s.connector(refs["J"], x_conn, [("3V3", ya - 46), ("GND", ya - 24), ("beam A", ya), ("beam B", yb),
                                              ("emitter -", ye)])
        (p1x, p1y), (p2x, p2y) = conn[0], conn[1]
        s.line(p1x - 30, p1y, p1x, p1y)
        s.vcc(p1x - 30, p1y)
        s.line(p2x - 60, p2y, p2x, p2y)
        s.line(p2x - 60, p2y, p2x - 60, p2y + 8)
        s.gnd(p2x - 60, p2y + 8)
        for gpio, rr, cr, shift in ((a, refs["RA"], refs["CA"], 0), (b, refs["RB"], refs["CB"], 130)):
            py = pins[f"GP{gpio}"]
            s.line(x_mcu, py, x_conn, py)
            s.resistor(rr, x_pull + shift, py - 44, py)  # pull-up
            s.vcc(x_pull + shift, py - 44)
            s.dot(x_pull + shift, py)
            s.capacitor(cr, x_cap + shift, py, py + 30)  # filter
            s.gnd(x_cap + shift, py + 30)
            s.dot(x_cap + shift, py)
        # emitter switch: GPIO - 100 R - gate; 100 k gate to GND; drain to pin 5, source to GND
        gate, drain, source = s.mosfet(refs["Q"], 720, ye + 30)
        s.line(x_mcu, ye, 560, ye)
        s.line(560, ye, 560, gate[1])
        s.resistor_h(refs["RG"], 560, 640, gate[1])
        s.line(640, gate[1], gate[0], gate[1])
        s.dot(640, gate[1])
        s.resistor(refs["RP"], 640, gate[1], gate[1] + 36)
        s.gnd(640, gate[1] + 36)
        s.line(drain[0], drain[1], drain[0], ye)
        s.line(drain[0], ye, x_conn, ye)
        s.gnd(*source)
    j3 = s.connector("J3", x_conn, [("button", pins["GP14"]), ("GND", pins["GP14"] + 22)])
    s.line(x_mcu, pins["GP14"], x_conn, pins["GP14"])
    s.line(j3[1][0] - 30, j3[1][1], j3[1][0], j3[1][1])
    s.line(j3[1][0] - 30, j3[1][1], j3[1][0] - 30, j3[1][1] + 8)
    s.gnd(j3[1][0] - 30, j3[1][1] + 8)
    j4 = s.connector("J4", x_conn + 110, [("DOUT", pins["GP16"]), ("SCK", pins["GP17"]),
                                           ("VCC", pins["GP17"] + 26), ("GND", pins["GP17"] + 48)])
    s.line(x_mcu, pins["GP16"], x_conn + 110, pins["GP16"])
    s.line(x_mcu, pins["GP17"], x_conn + 110, pins["GP17"])
    s.line(j4[2][0] - 24, j4[2][1], j4[2][0], j4[2][1])
    s.vcc(j4[2][0] - 24, j4[2][1])
    s.line(j4[3][0] - 50, j4[3][1], j4[3][0], j4[3][1])
    s.line(j4[3][0] - 50, j4[3][1], j4[3][0] - 50, j4[3][1] + 8)
    s.gnd(j4[3][0] - 50, j4[3][1] + 8)
    s.text(x_conn + 110, j4[3][1] + 34, "HX711 board; load cells on its", 11, color="#444")
    s.text(x_conn + 110, j4[3][1] + 48, "E+ E- A+ A- side (wiring.md)", 11, color="#444")
    return s


def main() -> None:
    print(draw().render(), end="")


if __name__ == "__main__":
    main()
