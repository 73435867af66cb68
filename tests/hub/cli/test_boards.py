"""``trigono boards update`` (issue 33): a rollout started from a terminal through the
running hub's web API, followed with a progress bar to the end — or to the board that
halted it (exit 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.cli.main import main
from hub.facade import Hub
from hub.sim.fleet import SimFleet
from web.server import ServerHandle, start_server

PASSWORD = "pw-fleet"


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[Hub, SimFleet, ServerHandle]]:
    hub = Hub(":memory:")
    hub.start()
    fleet = SimFleet(4)
    hub.add_transport(fleet)
    for board in fleet.boards:
        hub.register_board(board)
    fleet.start_all()
    assert hub.flush()
    hub.fleet.updater = fleet.update_board
    server = start_server(hub, password=PASSWORD, max_streams=4)
    yield hub, fleet, server
    server.close()
    hub.close()


def update(server: ServerHandle, tmp_path: Path, *extra: str) -> list[str]:
    secret = tmp_path / "password"
    secret.write_text(PASSWORD)
    return ["boards", "update", "--url", server.url, "--password-file", str(secret), *extra]


def test_a_rollout_from_the_terminal_runs_to_the_end(running: Any, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    hub, fleet, server = running
    assert main(update(server, tmp_path, "/srv/fw-1.1.0.bundle", "--version", "1.1.0", "--wave", "2")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("1.1.0 [##############################]  4/4 finished"), lines
    assert sorted(fleet.updated) == ["S01", "S02", "S03", "S04"]


def test_a_halted_rollout_says_where_and_exits_1(running: Any, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    hub, fleet, server = running
    fleet.fail["S02"] = "bad signature"
    assert main(update(server, tmp_path, "/srv/fw.bundle", "--version", "2.0", "--wave", "1")) == 1
    out = capsys.readouterr().out
    assert "halted at board S02: refused (bad signature)" in out
    wrong = tmp_path / "wrong"
    wrong.write_text("nope")
    args = ["boards", "update", "--url", server.url, "--password-file", str(wrong), "--follow"]
    assert main(args) == 2
    assert "password was refused" in capsys.readouterr().err
