# Load cell under the board (HX711 24-bit ADC): counts the palets lying on the board so
# a throw that stays on it is scored without a human answer (R2, `weight` events).
#
# Hx711 bit-bangs the chip through two callables (sck(level), dout() -> 0/1): a reading
# is ready when DOUT is low; 24 clock pulses shift it out MSB first, then 1 more pulse
# selects channel A, gain 128, for the next one. Keep SCK high < 60 us (longer powers the
# chip down): on a board, the read runs with IRQs disabled (~0.5 ms), which delays beam
# edge timestamps by as much, never loses them (they are latched by the pin hardware).
#
# LoadCell turns raw readings into a debounced palet count: tare (the empty board, at
# the start of each round: cmd tare), calibration with one known palet (cmd calibrate,
# kept in flash), a count from the median of the last `samples` readings, reported only
# once `samples` readings in a row agree (a palet sliding or bouncing on the board is not
# counted until it rests). Pure logic: no `machine`.


class Hx711:
    def __init__(self, sck, dout, gain_pulses=1):
        self.sck = sck
        self.dout = dout
        self.gain_pulses = gain_pulses  # 1: channel A gain 128; 2: B 32; 3: A 64

    def ready(self):
        return self.dout() == 0

    def read(self):
        """The signed 24-bit reading, or None when the chip has none ready yet."""
        if not self.ready():
            return None
        value = 0
        sck = self.sck
        dout = self.dout
        for _ in range(24):
            sck(1)
            sck(0)
            value = (value << 1) | dout()
        for _ in range(self.gain_pulses):
            sck(1)
            sck(0)
        if value & 0x800000:
            value -= 0x1000000
        return value


def _median(values):
    s = sorted(values)
    return s[len(s) // 2]


class LoadCell:
    """Raw readings -> palets on the board (debounced).

    >>> cell = LoadCell(per_palet=1000, tare=50, samples=3)
    >>> [cell.sample(r) for r in (60, 55, 48, 1040, 1060, 1055, 1049, 2100, 2049, 2051)]
    [None, None, 0, None, None, 1, None, None, None, 2]
    """

    def __init__(self, per_palet=0, tare=0, samples=5, tolerance_pct=30):
        self.per_palet = per_palet  # raw units per palet; 0 = not calibrated
        self.tare_raw = tare
        self.samples = samples
        self.tolerance_pct = tolerance_pct  # of one palet: readings within it agree
        self.window = []
        self.count = None  # last reported count
        self.tare_pending = False
        self.problem = None  # a refused tare, for the node to report (then cleared)

    def sample(self, raw):
        """Take one reading; the new count when it changed and is stable, else None."""
        self.window.append(raw)
        if len(self.window) > self.samples:
            self.window.pop(0)
        if len(self.window) < self.samples:
            return None
        mid = _median(self.window)
        if not self._steady(mid):
            return None  # still moving
        if self.tare_pending:  # the first steady window after `cmd tare` is the empty board
            self.tare_pending = False
            self._take_tare(mid)
        if self.per_palet <= 0:
            return None
        count = (mid - self.tare_raw + self.per_palet // 2) // self.per_palet
        if count < 0:
            count = 0
        if count == self.count:
            return None
        self.count = count
        return count

    def tare(self):
        """The board is empty now (start of a round): zero on the recent readings if they
        are steady, else on the next steady ones (the board may still rock)."""
        if len(self.window) == self.samples and self._steady(_median(self.window)):
            self._take_tare(_median(self.window))
        else:
            self.tare_pending = True

    def _take_tare(self, mid):
        """Zero on `mid`, unless it is half a palet or more from the old zero: a tare
        corrects drift; a palet already on the board (a throw before the round's start
        reached the board) must not become the new zero."""
        if self.per_palet > 0 and abs(mid - self.tare_raw) * 2 >= abs(self.per_palet):
            palets = (mid - self.tare_raw) * 10 // self.per_palet
            self.problem = ("load cell: tare refused, the board holds " + str(palets // 10) + "."
                            + str(palets % 10) + " palets")
            return
        self.tare_raw = mid
        self.count = None

    def _steady(self, mid):
        spread = abs(self.per_palet) * self.tolerance_pct // 100
        for r in self.window:
            if self.per_palet > 0 and abs(r - mid) > spread:
                return False
        return True

    def calibrate(self, palets=1):
        """`palets` known palets lie on the tared board now; True when it took."""
        if not self.window:
            return False
        per = (_median(self.window) - self.tare_raw) // palets
        if per == 0:
            return False
        self.per_palet = per
        self.count = None
        return True

    def settings(self):
        return str(self.tare_raw) + " " + str(self.per_palet)

    def load_settings(self, text):
        try:
            tare, per = str(text).split()
            self.tare_raw, self.per_palet = int(tare), int(per)
            return True
        except ValueError:
            return False
