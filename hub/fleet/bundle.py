"""Signed firmware update bundles (issue 33): the organizer's key, building, loading.

A bundle is the application as a board runs it: ``firmware/*.py`` compiled to ``.mpy``
by ``mpy-cross`` for the board type's architecture (the slot selector ``selector.py`` and
``slots.py``, deployed once outside the slots, and ``local*.py`` secrets are not in it),
and a **manifest** (compact JSON, sorted keys)::

    {"board": "rp2", "files": [["firmware/app.mpy", 5210, "<sha256 hex>"], ...],
     "version": "1.1.0"}

signed with the organizer's Ed25519 key (PyNaCl; the signature is over the manifest's
SHA-256, since MicroPython has no sha512 for the board to hash a longer message cheaply).
The manifest's SHA-256 is the bundle's id. The board (firmware/update.py) checks the id,
the signature against the public keys in its config (``update_keys``), the board type,
the version (newer only) and every file's SHA-256 before it switches.

The secret key file holds the 32-byte seed in hex, made once by ``trigono boards keygen``
and kept on the organizer's machine (mode 0600); boards hold only public keys.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nacl.exceptions
import nacl.signing

from hub.errors import BadInputError

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
ARCH = {"rp2": "armv6m", "esp32": "xtensawin", "unix": "x64"}  # mpy-cross -march, as scripts/deploy-board
NOT_IN_BUNDLE = ("selector.py", "slots.py")  # deployed once, never updated
VERSION_RE = re.compile(r"^\d{1,4}(\.\d{1,4}){0,3}$")
MAX_FILES = 40  # firmware/update.py MAX_FILES


class BundleError(BadInputError):
    """A bundle or key that cannot be used; nothing was written or sent."""


@dataclass(frozen=True)
class Bundle:
    """A signed update bundle: ``manifest`` (the JSON bytes the signature covers, through
    their SHA-256), ``signature`` (64 bytes, Ed25519), ``files`` (path on the board ->
    bytes), in manifest order. ``version`` and ``board_type`` read from the manifest."""

    manifest: bytes
    signature: bytes
    files: dict[str, bytes]
    version: str
    board_type: str

    @property
    def id(self) -> str:
        """The manifest's SHA-256 (hex): what the board checks the signature against."""
        return hashlib.sha256(self.manifest).hexdigest()

    def parts(self) -> list[bytes]:
        """What is sent, by file index: the signature, the manifest, then each file."""
        return [self.signature, self.manifest, *self.files.values()]

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.parts())


def version_key(text: str) -> tuple[int, ...]:
    """The order the board compares versions in (firmware/update.py version_key).

    >>> version_key("1.10.0") > version_key("1.9.3")
    True
    """
    if not VERSION_RE.match(text):
        raise BundleError(f"version {text!r}: numbers separated by dots, like 1.2.0")
    return tuple(int(p) for p in text.split("."))


def keygen(secret_path: Path) -> str:
    """Make the organizer's signing key at ``secret_path`` (refuses to overwrite one);
    returns its public key (64 hex digits) for the boards' ``update_keys``."""
    key = nacl.signing.SigningKey.generate()
    try:
        fd = os.open(secret_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise BundleError(f"{secret_path} exists: a signing key is made once (boards trust its "
                          "public key); keep it, or give another path") from None
    with os.fdopen(fd, "w") as f:
        f.write(bytes(key).hex() + "\n")
    return bytes(key.verify_key).hex()


def load_key(secret_path: Path) -> nacl.signing.SigningKey:
    try:
        seed = bytes.fromhex(secret_path.read_text().strip())
        return nacl.signing.SigningKey(seed)
    except (OSError, ValueError, nacl.exceptions.CryptoError) as err:
        raise BundleError(f"{secret_path}: not a signing key made by `trigono boards keygen` ({err})") from None


def public_key(secret_path: Path) -> str:
    return bytes(load_key(secret_path).verify_key).hex()


def compile_app(board_type: str, source: Path = FIRMWARE) -> dict[str, bytes]:
    """firmware/*.py of the application as .mpy for ``board_type``, path on the board ->
    bytes, sorted by name."""
    if board_type not in ARCH:
        raise BundleError(f"board type {board_type!r}: one of {', '.join(ARCH)}")
    mpy_cross = shutil.which("mpy-cross") or str(Path(sys.executable).parent / "mpy-cross")
    out: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for src in sorted(source.glob("*.py")):
            if src.name.startswith("local") or src.name in NOT_IN_BUNDLE:
                continue
            target = Path(tmp) / (src.stem + ".mpy")
            proc = subprocess.run([mpy_cross, f"-march={ARCH[board_type]}", "-s", f"firmware/{src.name}",
                                   "-o", str(target), str(src)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise BundleError(f"mpy-cross failed on {src.name}: {proc.stderr.strip()}")
            out["firmware/" + target.name] = target.read_bytes()
    return out


def make_manifest(version: str, board_type: str, files: dict[str, bytes]) -> bytes:
    version_key(version)
    if not 0 < len(files) <= MAX_FILES:
        raise BundleError(f"a bundle holds 1 to {MAX_FILES} files, not {len(files)}")
    listed = [[path, len(data), hashlib.sha256(data).hexdigest()] for path, data in files.items()]
    return json.dumps({"board": board_type, "files": listed, "version": version},
                      separators=(",", ":"), sort_keys=True).encode()


def sign(manifest: bytes, key: nacl.signing.SigningKey) -> bytes:
    return bytes(key.sign(hashlib.sha256(manifest).digest()).signature)


def build(version: str, board_type: str, secret_path: Path, source: Path = FIRMWARE,
          files: dict[str, bytes] | None = None) -> Bundle:
    """Compile (unless ``files`` are given), list, sign."""
    key = load_key(secret_path)
    files = compile_app(board_type, source) if files is None else files
    manifest = make_manifest(version, board_type, files)
    return Bundle(manifest, sign(manifest, key), dict(files), version, board_type)


def dump(bundle: Bundle) -> bytes:
    """The bundle as one JSON file (what ``trigono boards bundle`` writes)."""
    return json.dumps({"bundle": 1, "manifest": base64.b64encode(bundle.manifest).decode(),
                       "signature": bundle.signature.hex(),
                       "files": {p: base64.b64encode(d).decode() for p, d in bundle.files.items()}},
                      indent=1).encode()


def load(data: bytes, trusted: list[str] | None = None) -> Bundle:
    """A bundle from :func:`dump`'s bytes, checked as a board would check it (every file's
    hash; the signature too when ``trusted`` public keys are given). BundleError else."""
    try:
        raw = json.loads(data)
        manifest = base64.b64decode(raw["manifest"], validate=True)
        signature = bytes.fromhex(raw["signature"])
        files = {str(p): base64.b64decode(d, validate=True) for p, d in raw["files"].items()}
        meta = json.loads(manifest)
        version, board_type, listed = str(meta["version"]), str(meta["board"]), meta["files"]
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise BundleError(f"not a bundle made by `trigono boards bundle` ({err})") from None
    if len(signature) != 64:
        raise BundleError("bundle: the signature is not 64 bytes")
    if [item[0] for item in listed] != list(files):
        raise BundleError("bundle: its files are not the manifest's")
    for path, size, digest in listed:
        if len(files[path]) != size or hashlib.sha256(files[path]).hexdigest() != digest:
            raise BundleError(f"bundle: {path} does not match its hash in the manifest")
    version_key(version)
    if trusted is not None:
        digest = hashlib.sha256(manifest).digest()
        for key in trusted:
            try:
                nacl.signing.VerifyKey(bytes.fromhex(key)).verify(digest, signature)
                break
            except (ValueError, nacl.exceptions.BadSignatureError):
                continue
        else:
            raise BundleError("bundle: not signed by any of the given keys")
    return Bundle(manifest, signature, files, version, board_type)
