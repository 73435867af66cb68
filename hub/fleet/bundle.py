"""Update bundles (issue 33): keygen, build, sign, load. Being written (wt-h2)."""

from __future__ import annotations

from dataclasses import dataclass


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
