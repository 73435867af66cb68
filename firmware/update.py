# Receiving an update bundle into the inactive slot, checking it, switching to it, and
# committing it after a good first boot (issue 33; protocol: docs/protocol.md "Updates").
#
# The hub's `update` messages are handled one at a time, each gets one `update_state` answer. The
# board pulls: every answer names the next (file, off) it wants, read from the sizes of
# the files on flash, so a transfer cut anywhere (hub restart, link drop, power cut)
# resumes where the flash is. Files of a bundle, by index: 0 the manifest's signature (64
# bytes), 1 the manifest (JSON), 2.. the application files in manifest order. Checks, each
# refusing the bundle and wiping the inactive slot (the running one is never touched):
# the manifest's SHA-256 is the bundle id; its Ed25519 signature (over that SHA-256) by
# one of the config's `update_keys`; its board type is this board's port; its version is
# newer than the running one; every file's SHA-256, read back from flash. Only then the
# slot state names the new slot as a trial and the board resets into it.
# No `machine`: time, reset and the file system's root are the caller's.

import binascii
import hashlib
import json
import os

import slots

CHECKED = "upd_ok.txt"  # in the slot: the bundle id whose signature was checked (a resume skips ~1.3 s)
CHUNK_MAX = 480  # bytes of file data per `upd data` (640 base64 characters: one short line)
REBOOT_DELAY_MS = 300  # the `switching` answer leaves before the reset
MAX_FILES = 40


def _clock():
    """(now_ms(), diff(a, b)): ticks on a board, monotonic under CPython (the tests)."""
    import time

    ticks = getattr(time, "ticks_ms", None)
    if ticks is not None:
        return ticks, getattr(time, "ticks_diff")  # noqa: B009 - pyright reads MicroPython's or CPython's stubs
    monotonic = getattr(time, "monotonic")  # noqa: B009 - not in MicroPython's stubs
    return (lambda: int(monotonic() * 1000)), (lambda a, b: a - b)


def version_key(text):
    """"1.10.2" -> (1, 10, 2); None when it is not dot-separated numbers."""
    try:
        parts = tuple(int(p) for p in str(text).split("."))
    except ValueError:
        return None
    return parts if parts and all(p >= 0 for p in parts) else None


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _size(path):
    try:
        return os.stat(path)[6]
    except OSError:
        return 0


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def file_sha256(path):
    h = hashlib.sha256()
    buf = bytearray(512)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(buf[:n] if n < len(buf) else buf)
    return binascii.hexlify(h.digest()).decode()


def _good_path(path):
    """An application file of a bundle: firmware/<name>.mpy, name in [a-z0-9_]."""
    if not isinstance(path, str) or not path.startswith("firmware/") or not path.endswith(".mpy"):
        return False
    name = path[9:-4]
    return 0 < len(name) <= 32 and all(c in "abcdefghijklmnopqrstuvwxyz0123456789_" for c in name)


def wipe(slot):
    """Remove a slot's application files and update leftovers (never the root's data files)."""
    where = slots.SLOT_DIRS[slot]
    folder = where + "firmware"
    try:
        names = os.listdir(folder)
    except OSError:
        names = []
    for name in names:
        _remove(folder + "/" + name)
    for name in (slots.MANIFEST, slots.SIGNATURE, slots.STAGE_ID, CHECKED):
        _remove(where + name)


class Updater:
    """cfg: the board config (port, update_keys); version: the running version; slot: the
    running slot; state: the slot state read at boot (slots.read_state()); trial_timer: the
    selector's deadline timer (cancelled on commit)."""

    def __init__(self, cfg, version, slot, state=None, trial_timer=None, trial_ms=60000):
        self.board_type = cfg["port"]
        self.keys = [binascii.unhexlify(k) for k in cfg.get("update_keys", [])]
        self.version = version
        self.slot = slot
        self.state = state if state is not None else slots.read_state()
        self.trial = self.state.get("trial") == slot
        self.committed = False
        self.rollback = self.state.get("rollback")
        self.trial_timer = trial_timer
        self.trial_ms = trial_ms
        self.target = slots.other(slot)  # where a bundle goes
        self.id = None  # the bundle being received
        self.msize = 0
        self.manifest = None  # parsed, once checked
        self.link_proved = False  # the hub asked `upd status`: it hears us and we hear it
        self.switching = False
        self.feed = None  # the watchdog's feed (app.run sets it): the signature check takes ~1.3 s
        self._reset_at = None  # uptime_ms of the reset into the new slot
        self.refusals = 0
        self.check_ms = 0  # the last signature check's time (health: update_check_ms)

    # -- the hello -------------------------------------------------------------------------
    def hello_fields(self):
        out = {"slot": self.slot}
        if self.trial:
            out["trial"] = True
        if self.rollback:
            out["rollback"] = self.rollback
        return out

    # -- messages --------------------------------------------------------------------------
    def handle(self, msg):
        """One hub `update` message -> the fields of the answer (state, ...)."""
        op = msg.get("op")
        if op == "status":
            self.link_proved = True
            return self.status()
        if op == "abort":
            wipe(self.target)
            self.id = None
            return self.status()
        if op == "begin":
            return self._begin(msg)
        if op == "data":
            if msg.get("id") != self.id:
                return self._refuse("no transfer under way", wipe_slot=False)
            return self._data(msg)
        return self._refuse("unknown op", wipe_slot=False)

    def status(self):
        out = {"state": "trial" if self.trial and not self.committed else "running",
               "version": self.version, "slot": self.slot}
        if self.rollback:
            out["reason"] = self.rollback
        return out

    def _begin(self, msg):
        if self.trial and not self.committed:
            return self._refuse("on trial: not committed yet", wipe_slot=False)
        if self.switching:
            return {"state": "switching", "id": self.id}
        bid, version = msg.get("id"), msg.get("version")
        if not self.keys:
            return self._refuse("no update key in the board config", wipe_slot=False)
        refused = self._version_refusal(version)
        if refused is not None:
            return self._refuse(refused, wipe_slot=False)
        where = slots.SLOT_DIRS[self.target]
        held = None
        try:
            with open(where + slots.STAGE_ID) as f:
                held = f.read().strip()
        except OSError:
            pass
        self.manifest = None
        self.msize = msg.get("msize", 0)
        if held != bid:  # a new bundle: start over in the inactive slot
            wipe(self.target)
            if where and not _exists(where.rstrip("/")):
                os.mkdir(where.rstrip("/"))
            if not _exists(where + "firmware"):
                os.mkdir(where + "firmware")
            with open(where + slots.STAGE_ID, "w") as f:
                f.write(bid)
        self.id = bid
        if _size(where + slots.MANIFEST) >= self.msize and _size(where + slots.SIGNATURE) >= 64:
            refused = self._check_manifest()
            if refused is not None:
                return self._refuse(refused)
        return self._next()

    def _version_refusal(self, version):
        new, old = version_key(version), version_key(self.version)
        if new is None:
            return "bad version " + str(version)[:20]
        if old is not None and new <= old:
            return ("same version " if new == old else "older version ") + str(version)[:20]
        return None

    def _files(self):
        """[(path, size)] of the bundle, by index (the manifest's size from `begin`)."""
        where = slots.SLOT_DIRS[self.target]
        out = [(where + slots.SIGNATURE, 64), (where + slots.MANIFEST, self.msize)]
        if self.manifest is not None:
            for path, size, _digest in self.manifest["files"]:
                out.append((where + path, size))
        return out

    def _next(self):
        """The answer naming what the board wants next; the switch when it has it all."""
        for index, (path, size) in enumerate(self._files()):
            have = _size(path)
            if have < size:
                return {"state": "want", "id": self.id, "file": index, "off": have}
        if self.manifest is None:
            refused = self._check_manifest()
            if refused is not None:
                return self._refuse(refused)
            return self._next()
        return self._switch()

    def _data(self, msg):
        files = self._files()
        index, off = msg.get("file"), msg.get("off")
        if index >= len(files):
            return self._next()
        path, size = files[index]
        if off != _size(path):  # a repeat or a gap: say again what is wanted
            return self._next()
        try:
            data = binascii.a2b_base64(msg.get("data", ""))
        except ValueError:
            return self._next()
        if not data or off + len(data) > size:
            return self._refuse("chunk past the end of file " + str(index))
        with open(path, "ab") as f:
            f.write(data)
        manifest = self.manifest
        if off + len(data) == size and index >= 2 and manifest is not None:
            digest = manifest["files"][index - 2][2]
            if file_sha256(path) != digest:
                return self._refuse("bad hash: " + path.rsplit("/", 1)[-1])
        if index == 1 and off + len(data) == size:
            refused = self._check_manifest()
            if refused is not None:
                return self._refuse(refused)
        return self._next()

    def _check_manifest(self):
        """None when the manifest (and its signature) on flash is good, else the reason."""
        where = slots.SLOT_DIRS[self.target]
        if _size(where + slots.SIGNATURE) != 64:
            return "bad signature size"
        if file_sha256(where + slots.MANIFEST) != self.id:
            return "manifest does not match the bundle id"
        checked = None
        try:
            with open(where + CHECKED) as f:
                checked = f.read().strip()
        except OSError:
            pass
        if checked != self.id:  # once per bundle, not again on a resume after a reset
            with open(where + slots.SIGNATURE, "rb") as f:
                signature = f.read()
            digest = binascii.unhexlify(str(self.id))
            now_ms, diff = _clock()
            started = now_ms()
            from firmware import ed25519  # only now: its import costs the chip ~0.45 s and RAM

            good = any(ed25519.verify(key, digest, signature, self.feed) for key in self.keys)
            self.check_ms = diff(now_ms(), started)
            import gc

            gc.collect()  # the check's big integers left most of a Pico's heap as garbage
            if not good:
                return "bad signature"
            with open(where + CHECKED, "w") as f:
                f.write(self.id)
        try:
            with open(where + slots.MANIFEST) as f:
                manifest = json.load(f)
            files = manifest["files"]
            board, version = manifest["board"], manifest["version"]
        except (OSError, ValueError, KeyError, TypeError):
            return "bad manifest"
        if board != self.board_type:
            return "bundle for " + str(board)[:16] + ", this board is " + self.board_type
        refused = self._version_refusal(version)
        if refused is not None:
            return refused
        if not isinstance(files, list) or not 0 < len(files) <= MAX_FILES:
            return "bad manifest"
        for item in files:
            if (not isinstance(item, list) or len(item) != 3 or not _good_path(item[0])
                    or not isinstance(item[1], int) or not 0 <= item[1] < 1 << 20):
                return "bad manifest"
        if "firmware/app.mpy" not in [item[0] for item in files]:
            return "bad manifest: no firmware/app.mpy"
        self.manifest = manifest
        return None

    def _refuse(self, reason, wipe_slot=True):
        self.refusals += 1
        if wipe_slot:
            wipe(self.target)
            self.id = None
            self.manifest = None
        return {"state": "refused", "reason": reason[:64]}

    def _switch(self):
        """Everything is there and checked: the inactive slot becomes a trial."""
        where = slots.SLOT_DIRS[self.target]
        manifest = self.manifest or {"files": [], "version": "?"}  # set by _check_manifest
        # Files not in the manifest (an older bundle's, a USB deploy's) must not be
        # imported by the new version: the slot holds exactly the bundle.
        keep = [item[0][9:] for item in manifest["files"]]
        for name in os.listdir(where + "firmware"):
            if name not in keep:
                _remove(where + "firmware/" + name)
        _remove(where + slots.STAGE_ID)
        _remove(where + CHECKED)
        slots.write_state({"active": self.slot, "trial": self.target, "tries": 0,
                           "version": manifest["version"]})
        self.switching = True
        return {"state": "switching", "id": self.id, "version": manifest["version"]}

    # -- every main-loop pass --------------------------------------------------------------
    def poll(self, node):
        """Reset into a new slot once its answer left; commit a trial once its hello was
        acknowledged (or the hub asked its status) and its self-test passed; give up a
        trial past its deadline. Returns True when the board must reset now."""
        if self.switching:
            if self._reset_at is None:
                self._reset_at = node.uptime_ms + REBOOT_DELAY_MS
            return node.uptime_ms >= self._reset_at
        if not self.trial or self.committed:
            if self.rollback and node.outbox.acked >= 1:  # the hello that told it is stored
                self.rollback = None
                state = slots.read_state()
                state.pop("rollback", None)
                slots.write_state(state)
            return False
        if (node.outbox.acked >= 1 or self.link_proved) and node.selftests_passed():
            self.commit()
            return False
        return node.uptime_ms > self.trial_ms

    def note_crash(self, text, path="crash.txt"):
        """Why this boot ends, for the selector's rollback note and the next hello."""
        try:
            with open(path, "w") as f:
                f.write(text[:64] + "\n")
        except OSError:
            pass

    def commit(self):
        if self.trial_timer is not None:
            try:
                self.trial_timer.deinit()
            except Exception:  # noqa: BLE001 - the state file is what counts
                pass
        slots.write_state({"active": self.slot})
        self.committed = True
        self.rollback = None
