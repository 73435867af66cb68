"""The bot worker (hub/tables/bots.py) on a real engine bot, called directly (no thread)."""

from __future__ import annotations

import threading
from typing import Any

from engines import game_spec
from engines.records import initial_state
from hub.tables.bots import BotTurn, BotWorker


class Host:
    """The hub's side, recorded."""

    def __init__(self, turn: BotTurn | None) -> None:
        self.turn = turn
        self.played: list[tuple[BotTurn, Any]] = []
        self.announced: list[str] = []
        self.worker: BotWorker | None = None
        self.thinking_seen: list[bool] = []

    def bot_turn(self, table_id: str) -> BotTurn | None:
        return self.turn

    def bot_played(self, turn: BotTurn, action: Any) -> None:
        self.played.append((turn, action))

    def bot_thinking(self, table_id: str) -> None:
        assert self.worker is not None
        self.announced.append(table_id)
        self.thinking_seen.append(self.worker.thinking(table_id))


def trike_turn(version: int = 0) -> BotTurn:
    state = initial_state({"game": "trike", "options": {"size": 4}, "seed": 5})
    bot = game_spec("trike").bot
    assert bot is not None
    return BotTurn("t1", state, version, 5, bot)


def test_the_bot_thinks_on_a_copy_and_hands_back_a_legal_move() -> None:
    host = Host(trike_turn())
    worker = host.worker = BotWorker(host, budget_s=0.05)
    worker.move("t1")
    ((turn, action),) = host.played
    assert action in turn.state.legal_actions()
    assert host.announced == ["t1"] and host.thinking_seen == [True]
    assert not worker.thinking("t1")


def test_the_same_table_and_move_number_give_the_same_move() -> None:
    moves = []
    for _ in range(2):
        host = Host(trike_turn(version=3))
        host.worker = BotWorker(host, budget_s=0.05)
        host.worker.move("t1")
        moves.append(host.played[0][1])
    assert moves[0] == moves[1]


def test_no_bot_to_move_means_nothing_happens() -> None:
    host = Host(None)
    host.worker = BotWorker(host, budget_s=0.05)
    host.worker.move("t1")
    assert host.played == [] and host.announced == []


def test_the_worker_thread_plays_requested_tables_and_stops() -> None:
    done = threading.Event()

    class Once(Host):
        def bot_played(self, turn: BotTurn, action: Any) -> None:
            super().bot_played(turn, action)
            self.turn = None
            done.set()

    host = Once(trike_turn())
    worker = host.worker = BotWorker(host, budget_s=0.05)
    worker.start()
    worker.request("t1")
    assert done.wait(30)
    worker.stop()
    assert len(host.played) == 1
