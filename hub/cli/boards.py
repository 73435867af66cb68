"""``trigono boards``: the organizer's signing key and firmware update bundles (issue 33).

    trigono boards keygen --key ~/.trigono/update.key     # once: prints the public key
    trigono boards bundle --key ~/.trigono/update.key --version 1.1.0 --board-type rp2 \\
        --out trigono-1.1.0-rp2.bundle                    # the application, signed

The public key goes into each board's config (``"update_keys": ["<64 hex>"]``) before its
first USB deploy; the secret key never leaves the organizer's machine. A bundle holds the
application files as the board runs them (.mpy from mpy-cross), a manifest with the
version, the board type and each file's SHA-256, and the Ed25519 signature of the
manifest's SHA-256 (hub/fleet/bundle.py; firmware/README.md, "Updates over the air").
Loaded by :mod:`hub.cli.main`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_BAD_INPUT = 2


def cmd_keygen(args: argparse.Namespace) -> int:
    from hub.fleet.bundle import BundleError, keygen

    path = Path(args.key).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        public = keygen(path)
    except (BundleError, OSError) as err:
        print(f"--key: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"signing key written to {path} (keep it: it signs every update; boards trust its public key)")
    print(f"public key for the boards' \"update_keys\": {public}")
    return 0


def cmd_bundle(args: argparse.Namespace) -> int:
    from hub.fleet.bundle import FIRMWARE, BundleError, build, dump, public_key

    try:
        bundle = build(args.version, args.board_type, Path(args.key).expanduser(),
                       source=Path(args.source) if args.source else FIRMWARE)
        Path(args.out).write_bytes(dump(bundle))
        public = public_key(Path(args.key).expanduser())
    except (BundleError, OSError) as err:
        print(f"bundle: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"{args.out}: version {bundle.version} for {bundle.board_type}, {len(bundle.files)} files, "
          f"{bundle.size} bytes, id {bundle.id[:16]}, signed by {public[:16]}…")
    return 0


def add_boards(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("boards", help="sensor boards: signing key, update bundles",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", required=True)
    keygen = actions.add_parser("keygen", help="make the organizer's Ed25519 signing key (once)")
    keygen.add_argument("--key", required=True, help="where to write the secret key (refuses to overwrite)")
    keygen.set_defaults(func=cmd_keygen)
    bundle = actions.add_parser("bundle", help="build and sign an update bundle of the firmware")
    bundle.add_argument("--key", required=True, help="the secret key from `trigono boards keygen`")
    bundle.add_argument("--version", required=True, help="the new version, newer than the boards' (e.g. 1.1.0)")
    bundle.add_argument("--board-type", default="rp2", choices=("rp2", "esp32", "unix"),
                        help="the boards' port (default: rp2, Pico and Pico W)")
    bundle.add_argument("--out", required=True, help="the bundle file to write")
    bundle.add_argument("--source", help="the firmware folder (default: this checkout's firmware/)")
    bundle.set_defaults(func=cmd_bundle)


COMMANDS = [add_boards]
