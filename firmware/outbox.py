# Outbox: sequence numbers, the boot counter, and the ring of unacknowledged events.
#
# seq counts from 1 in each boot; boot is a counter kept in flash through a tiny storage
# callable (storage() -> text or None reads, storage(text) writes), so (board, boot, seq)
# names an event for ever and the hub can deduplicate resends. Events stay in a bounded
# ring until the hub's cumulative ack (highest seq stored, per boot) covers them; when
# the ring is full the oldest event goes and `overflow` counts it (reported in health).
# Each link has its own send cursor: a link that (re)connects starts again from the
# oldest unacknowledged event. Pure logic: no `machine`.


def next_boot(storage):
    """Read the boot counter through `storage`, add one, write it back; return
    (boot, error) with error None or a reason (the board then raises a fault)."""
    try:
        text = storage()
    except Exception as err:  # noqa: BLE001 - reported: boot may restart at 1 and collide
        text = None
        read_error = str(err)
    else:
        read_error = None
    boot = 0
    if text:
        try:
            boot = int(str(text).strip())
        except ValueError:
            read_error = "boot counter unreadable: " + repr(text)
    if boot < 0:
        boot = 0
    boot += 1
    try:
        storage(str(boot))
    except Exception as err:  # noqa: BLE001 - report it, keep running
        return boot, "boot counter not saved: " + str(err)
    if read_error:
        return boot, read_error
    return boot, None


class FileStorage:
    """storage callable backed by a small file (written to a temp file, then renamed)."""

    def __init__(self, path):
        self.path = path

    def __call__(self, text=None):
        if text is None:
            try:
                with open(self.path) as f:
                    return f.read()
            except OSError:
                return None
        import os

        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, self.path)
        return None


class MemoryStorage:
    """storage callable kept in RAM (tests, simulator)."""

    def __init__(self, text=None):
        self.text = text
        self.writes = 0

    def __call__(self, text=None):
        if text is None:
            return self.text
        self.text = text
        self.writes += 1
        return None


class Outbox:
    def __init__(self, board, boot, capacity=64):
        if capacity < 1:
            raise ValueError("outbox capacity must be >= 1")
        self.board = board
        self.boot = boot
        self.capacity = capacity
        self.items = []  # unacknowledged events, seq ascending and contiguous
        self.seq = 0  # last seq given out
        self.acked = 0  # highest seq acknowledged (cumulative)
        self.overflow = 0  # events dropped unacknowledged because the ring was full

    def add(self, kind, t_us, fields=None):
        """Queue a new event; returns the message dict."""
        self.seq += 1
        msg = {"type": kind, "board": self.board, "boot": self.boot, "seq": self.seq, "t_us": t_us}
        if fields:
            for key in fields:
                msg[key] = fields[key]
        if len(self.items) >= self.capacity:
            self.items.pop(0)
            self.overflow += 1
        self.items.append(msg)
        return msg

    def ack(self, boot, seq):
        """Apply a cumulative ack; True when it acknowledged something new."""
        if boot != self.boot or seq <= self.acked:
            return False
        if seq > self.seq:
            seq = self.seq  # an ack from the future (a hub confused by an old boot?)
        self.acked = seq
        items = self.items
        n = 0
        while n < len(items) and items[n]["seq"] <= seq:
            n += 1
        if n:
            self.items = items[n:]
        return n > 0

    def oldest(self):
        """seq of the oldest unacknowledged event, or None."""
        return self.items[0]["seq"] if self.items else None

    def unacked(self):
        return len(self.items)

    def get(self, cursor):
        """The first unacknowledged event with seq >= cursor, or None."""
        items = self.items
        if not items:
            return None
        first = items[0]["seq"]
        i = cursor - first
        if i < 0:
            i = 0
        if i >= len(items):
            return None
        return items[i]
