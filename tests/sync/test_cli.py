"""Issue 35: ``trigono federation`` writes configurations nats-server accepts (from the
shipped deploy/nats/ files), each club a user of its own; a hub without ``--sync`` never
imports nats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hub.cli.main import main
from hub.sync import SyncConfig
from hub.sync.natsconf import FederationFolder
from tests.natsd import nats_binary

ROOT = Path(__file__).resolve().parents[2]


def test_init_add_club_and_join_write_configurations_nats_server_accepts(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    fed, club = tmp_path / "fed", tmp_path / "club"
    assert main(["federation", "init", "--dir", str(fed), "--listen", "127.0.0.1:4999"]) == 0
    assert main(["federation", "add-club", "club-a", "--dir", str(fed), "--federation", "league.test:7422"]) == 0
    join = capsys.readouterr().out.strip().splitlines()[-1].split()
    assert join[:3] == ["trigono", "federation", "join"] and "--password" in join
    assert main(["federation", "add-club", "Club A", "--dir", str(fed)]) == 2  # not an id
    assert main([*join[1:], "--dir", str(club)]) == 0
    for conf in (fed / "nats.conf", club / "nats.conf"):
        checked = subprocess.run([nats_binary(), "-c", str(conf), "-t"], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
    assert SyncConfig.load(fed / "sync.json").clubs == ("club-a",)
    assert SyncConfig.load(club / "sync.json").club == "club-a"
    assert FederationFolder(fed).clubs() == ["club-a"]
    assert (fed / "secrets.json").stat().st_mode & 0o077 == 0
    accounts = (fed / "accounts.conf").read_text()
    assert '"trigono.club-a.>"' in accounts and "trigono.>" not in accounts.replace("trigono.club-a.>", "")
    assert json.loads((club / "sync.json").read_text())["mode"] == "club"


def test_a_hub_without_sync_never_imports_nats(tmp_path: Path) -> None:
    code = ("import sys; from hub.assemble import HubOptions, open_hub; "
            f"hub = open_hub(HubOptions(db={str(tmp_path / 'x.db')!r})); hub.close(); "
            "import web.app; print(sorted(m for m in sys.modules if m == 'nats' or m.startswith('nats.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
