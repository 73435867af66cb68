# Outbox: sequence numbers, boot ids, and the queue of unacknowledged events.
#
# seq counts from 1 in each boot. The boot id is a counter kept in flash (storage()
# -> text or None reads it, storage(text) writes it) in the high bits and 16 random bits
# in the low ones, so (board, boot, seq) names an event for ever even when the counter
# restarts (flash erased, a spare board given the same id): the hub deduplicates on it.
# Events stay queued until the hub's cumulative ack (highest seq stored, per boot)
# covers them; when the queue is full the oldest event goes and `overflow` counts it.
# With a journal (an append-only file on the board's flash) the queue survives a reset:
# each event is one line, each ack one short line, and the file is rewritten with what
# is still unacknowledged when it grows past JOURNAL_MAX bytes and at boot. Writes wait
# for flush(), which the node calls once the holes have been quiet a while: a flash
# erase stalls an rp2 (IRQs off, ~45 ms) and should not fall on a passage; and an event
# the hub acknowledged before that is never written at all, so a healthy link costs no
# flash (only events the hub has not taken within the quiet time are journalled). Each link
# has its own send cursor (an ordinal, since queued events may belong to several boots):
# a link that (re)connects starts again from the oldest unacknowledged event.
# Pure logic: no `machine`.

from firmware import protocol

BOOT_COUNTER_MAX = 0x7FFF  # boot ids stay below 2**31 (protocol bound)
JOURNAL_MAX = 4096  # one flash erase block: compact the journal beyond this


def boot_id(counter, random16):
    """The boot id for boot `counter` with 16 random bits.

    >>> boot_id(3, 0xBEEF) == (3 << 16) | 0xBEEF
    True
    """
    return ((counter & BOOT_COUNTER_MAX) << 16) | (random16 & 0xFFFF)


def next_boot(storage, random16=None):
    """Read the boot counter through `storage`, add one, write it back; return
    (boot id, error) with error None or a reason (the board then raises a fault).
    random16() -> 16 random bits (os.urandom and machine.unique_id on a board); without
    it the id is the counter alone (simulator, tests)."""
    try:
        text = storage()
    except Exception as err:  # noqa: BLE001 - reported; the random bits keep the id unique
        text = None
        read_error = str(err)
    else:
        read_error = None
    counter = 0
    if text:
        try:
            counter = int(str(text).strip())
        except ValueError:
            read_error = "boot counter unreadable: " + repr(text)
    if counter < 0 or counter >= BOOT_COUNTER_MAX:
        counter = 0
    counter += 1
    boot = boot_id(counter, random16()) if random16 is not None else counter
    try:
        storage(str(counter))
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


class FileJournal:
    """The outbox journal as an append-only file (LittleFS on a board)."""

    def __init__(self, path):
        self.path = path
        self.size = 0
        self.writes = 0  # file writes (appends + rewrites), for the wear figures

    def load(self):
        try:
            with open(self.path) as f:
                text = f.read()
        except OSError:
            return []
        self.size = len(text)
        return text.split("\n")

    def append(self, lines):
        """Add `lines` in one write."""
        text = "".join(line + "\n" for line in lines)
        with open(self.path, "a") as f:
            f.write(text)
        self.size += len(text)
        self.writes += 1

    def rewrite(self, lines):
        import os

        tmp = self.path + ".tmp"
        text = "".join(line + "\n" for line in lines)
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, self.path)
        self.size = len(text)
        self.writes += 1


class MemoryJournal:
    """The journal in RAM (tests, simulator): what a file would hold."""

    def __init__(self, lines=None):
        self.lines = list(lines or [])
        self.size = sum(len(x) + 1 for x in self.lines)
        self.writes = 0

    def load(self):
        return list(self.lines)

    def append(self, lines):
        for line in lines:
            self.lines.append(line)
            self.size += len(line) + 1
        self.writes += 1

    def rewrite(self, lines):
        self.lines = list(lines)
        self.size = sum(len(x) + 1 for x in self.lines)
        self.writes += 1


class Outbox:
    def __init__(self, board, boot, capacity=64, journal=None):
        if capacity < 1:
            raise ValueError("outbox capacity must be >= 1")
        self.board = board
        self.boot = boot
        self.capacity = capacity
        self.journal = journal
        self.items = []  # unacknowledged events, oldest first (earlier boots first)
        self.ords = []  # ordinal of each item (send cursors point at ordinals)
        self.kept = []  # per item: already in the journal
        self.ack_lines = {}  # boot -> seq: acks of journalled events, not written yet
        self.next_ord = 1
        self.seq = 0  # last seq given out in this boot
        self.acked = 0  # highest seq of this boot acknowledged (cumulative)
        self.overflow = 0  # events dropped unacknowledged because the queue was full
        self.restored = 0  # events of earlier boots found in the journal at boot

    def restore(self):
        """Take back what the journal holds unacknowledged (earlier boots), then compact.
        Lines cut short by a reset are skipped."""
        if self.journal is None:
            return 0
        events = []
        acks = {}
        for line in self.journal.load():
            if line.startswith("A "):
                parts = line.split(" ")
                if len(parts) == 3:
                    try:
                        boot, seq = int(parts[1]), int(parts[2])
                    except ValueError:
                        continue
                    if seq > acks.get(boot, 0):
                        acks[boot] = seq
            elif line:
                msg, _reason = protocol.decode_payload(line)
                if msg is not None and msg.get("board") == self.board:
                    events.append(msg)
        for msg in events:
            if msg["seq"] > acks.get(msg["boot"], 0):
                self._queue(msg, True)
        self.restored = len(self.items)
        self._compact()
        return self.restored

    def dirty(self):
        """Something waits to be written by flush()."""
        if self.journal is None:
            return False
        return bool(self.ack_lines) or not all(self.kept)

    def flush(self):
        """Write what is still unacknowledged and not journalled yet, and the acks of
        journalled events, in one append (or compact the file past JOURNAL_MAX)."""
        journal = self.journal
        if journal is None or not self.dirty():
            return
        if journal.size > JOURNAL_MAX:
            self._compact()
            return
        lines = []
        for i in range(len(self.items)):
            if not self.kept[i]:
                lines.append(protocol.encode_payload(self.items[i]).decode())
                self.kept[i] = True
        for boot in self.ack_lines:
            lines.append("A " + str(boot) + " " + str(self.ack_lines[boot]))
        self.ack_lines = {}
        journal.append(lines)

    def add(self, kind, t_us, fields=None):
        """Queue a new event (and journal it); returns the message dict."""
        self.seq += 1
        msg = {"type": kind, "board": self.board, "boot": self.boot, "seq": self.seq, "t_us": t_us}
        if fields:
            for key in fields:
                msg[key] = fields[key]
        self._queue(msg)
        return msg

    def _queue(self, msg, kept=False):
        if len(self.items) >= self.capacity:
            self.items.pop(0)
            self.ords.pop(0)
            self.kept.pop(0)
            self.overflow += 1
        self.items.append(msg)
        self.ords.append(self.next_ord)
        self.kept.append(kept)
        self.next_ord += 1

    def ack(self, boot, seq):
        """Apply a cumulative ack for `boot`; True when it acknowledged something new."""
        if boot == self.boot:
            if seq <= self.acked:
                return False
            if seq > self.seq:
                seq = self.seq  # an ack from the future (a hub confused by an old boot?)
            self.acked = seq
        keep_items = []
        keep_ords = []
        keep_kept = []
        written = False  # an acknowledged event is in the journal: its ack must be too
        for i in range(len(self.items)):
            msg = self.items[i]
            if msg["boot"] != boot or msg["seq"] > seq:
                keep_items.append(msg)
                keep_ords.append(self.ords[i])
                keep_kept.append(self.kept[i])
            elif self.kept[i]:
                written = True
        if len(keep_items) == len(self.items):
            return False
        self.items = keep_items
        self.ords = keep_ords
        self.kept = keep_kept
        if written:
            self.ack_lines[boot] = seq
        return True

    def rebase(self, boot):
        """Give this boot's unacknowledged events a new boot id (the hub found the old one
        reused): seqs from 1 again, in order. Events the hub never acknowledged only."""
        old = self.boot
        self.boot = boot
        self.seq = 0
        self.acked = 0
        for i in range(len(self.items)):
            if self.items[i]["boot"] == old:
                self.seq += 1
                msg = dict(self.items[i])  # a new message: the one sent before stays as it was
                msg["boot"] = boot
                msg["seq"] = self.seq
                self.items[i] = msg
        self._compact()

    def _compact(self):
        if self.journal is not None:
            self.journal.rewrite([protocol.encode_payload(m).decode() for m in self.items])
            self.kept = [True] * len(self.items)
            self.ack_lines = {}

    def oldest(self):
        """seq of the oldest unacknowledged event, or None."""
        return self.items[0]["seq"] if self.items else None

    def unacked(self):
        return len(self.items)

    def get(self, cursor):
        """(ordinal, event) of the first unacknowledged event at or after ordinal
        `cursor`, or None."""
        ords = self.ords
        for i in range(len(ords)):
            if ords[i] >= cursor:
                return ords[i], self.items[i]
        return None
