"""Update bundles (issue 33): the organizer's key made once, a bundle built, written and
read back, and a read that checks as a board would (hashes, signature by a trusted key);
``trigono boards keygen`` / ``bundle`` on the command line."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from hub.cli.main import main
from hub.fleet import bundle as fleet_bundle


def test_a_bundle_round_trips_and_a_tampered_or_foreign_one_is_refused(tmp_path: Path) -> None:
    key, other = tmp_path / "k", tmp_path / "other"
    public = fleet_bundle.keygen(key)
    fleet_bundle.keygen(other)
    with pytest.raises(fleet_bundle.BundleError, match="made once"):
        fleet_bundle.keygen(key)
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    files = {"firmware/app.mpy": b"M\x06app", "firmware/node.mpy": b"M\x06node"}
    made = fleet_bundle.build("1.2.0", "rp2", key, files=files)
    assert json.loads(made.manifest) == {"board": "rp2", "version": "1.2.0", "files": [
        [p, len(d), hashlib.sha256(d).hexdigest()] for p, d in files.items()]}
    data = fleet_bundle.dump(made)
    assert fleet_bundle.load(data, [public]) == made
    with pytest.raises(fleet_bundle.BundleError, match="not signed by any"):
        fleet_bundle.load(data, [fleet_bundle.public_key(other)])
    raw = json.loads(data)
    raw["files"]["firmware/node.mpy"] = base64.b64encode(b"M\x06evil").decode()
    with pytest.raises(fleet_bundle.BundleError, match="does not match its hash"):
        fleet_bundle.load(json.dumps(raw).encode())
    with pytest.raises(fleet_bundle.BundleError, match="numbers separated by dots"):
        fleet_bundle.build("1.2-beta", "rp2", key, files=files)


def test_trigono_boards_keygen_then_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "keys" / "update.key"
    assert main(["boards", "keygen", "--key", str(key)]) == 0
    public = capsys.readouterr().out.split()[-1]
    assert main(["boards", "keygen", "--key", str(key)]) == 2  # never overwritten
    out = tmp_path / "b.bundle"
    assert main(["boards", "bundle", "--key", str(key), "--version", "1.1.0", "--out", str(out)]) == 0
    made = fleet_bundle.load(out.read_bytes(), [public])
    assert made.board_type == "rp2" and "firmware/app.mpy" in made.files
    assert not any(p.endswith(("selector.mpy", "slots.mpy", "local.mpy")) for p in made.files)
    assert all(d[:2] == b"M\x06" for d in made.files.values())  # .mpy v6, as the board runs them
