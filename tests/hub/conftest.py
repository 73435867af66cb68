"""Fixtures for hub tests: a hub on a real SQLite file with a fake device link."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.devices.transport import FakeTransport
from hub.facade import Hub
from tests.hub.boards import Outbox, wait_for


class AnsweringLink(FakeTransport):
    """The fake link, with boards that answer the hub's ``cmd health`` with their clock,
    as the firmware does: a settle window closes on the board's own time (issue 13)."""

    def __init__(self, boards: dict[str, Outbox]) -> None:
        super().__init__()
        self.boards = boards

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        super().send(board, msg)
        if msg.get("type") == "cmd" and msg.get("cmd") == "health" and board in self.boards:
            self.inject(self.boards[board].health())
        return True


class Rig:
    """A started hub, its fake link and helpers to play boards."""

    def __init__(self, db: Path, settle_s: float = 0.15) -> None:
        self.db = db
        self.hub = Hub(db, settle_s=settle_s, bot_budget_s=0.05)
        self.hub.start()
        self.boards: dict[str, Outbox] = {}
        self.link = AnsweringLink(self.boards)
        self.hub.add_transport(self.link)

    def board(self, board: str, holes: tuple[str, ...] = ("big", "small")) -> Outbox:
        if board not in self.boards:
            self.hub.register_board(board)  # a board the rig plays is one this hub referees
            self.boards[board] = Outbox(board, holes=holes)
            self.send(self.boards[board].hello())
        return self.boards[board]

    def send(self, msg: dict[str, Any]) -> None:
        self.link.inject(msg)

    def event(self, board: str, kind: str, **fields: Any) -> dict[str, Any]:
        msg = self.board(board).make(kind, **fields)
        self.send(msg)
        assert self.hub.flush()
        return msg

    def settled(self, table: str = "t1", timeout: float = 30.0) -> dict[str, Any]:
        """Wait until every message is applied and no settle window is open."""
        assert self.hub.flush(timeout)

        def done() -> bool:
            throw = self.hub.table_view(table)["throw"]
            return throw is None or bool(throw["stuck"])

        assert wait_for(done, timeout)
        return self.hub.table_view(table)

    def close(self) -> None:
        self.hub.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    r = Rig(tmp_path / "hub.db")
    yield r
    r.close()
