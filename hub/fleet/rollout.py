"""A staged firmware rollout (issue 33.4) as a fold over its log entries (pure).

One canary board first; once it is updated, waves of at most ``wave`` boards. Only idle
boards are touched — online and with no live match: the others *wait* and are taken in a
later wave once idle. The rollout halts at the first failure and says where (the board
and why); nothing new starts after it. Each step is a log entry (``source = "fleet"``),
so a hub restarted mid-rollout folds them again and goes on: a board started but never
finished is updated again (the transfer is idempotent: a board already running the
version says so).

Entries (``body["rollout"]``): ``start`` {id, version, bundle, boards, canary, wave},
``begin`` {board}, ``done`` {board, fw}, ``failed`` {board, reason}, ``cancel`` {}.

>>> r = Rollout.start({"id": "r1", "version": "1.2", "bundle": "fw-1.2.tar", "boards": ["B1", "B2", "B3"],
...                    "canary": "B2", "wave": 2})
>>> r.next_wave(idle={"B1", "B2", "B3"})
['B2']
>>> r.apply({"step": "begin", "board": "B2"}); r.next_wave(idle={"B1", "B3"})
[]
>>> r.apply({"step": "done", "board": "B2", "fw": "1.2"}); r.next_wave(idle={"B3"})
['B3']
>>> r.apply({"step": "begin", "board": "B3"}); r.apply({"step": "failed", "board": "B3", "reason": "bad hash"})
>>> r.state, r.halted, r.next_wave(idle={"B1"})
('halted', {'board': 'B3', 'outcome': 'failed', 'reason': 'bad hash'}, [])
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]

STEPS = ("begin", "done", "failed", "cancel")


class RolloutError(ValueError):
    """A rollout entry that does not fit the rollout (bad start, unknown board)."""


@dataclass
class Rollout:
    """One rollout's state: each board ``pending``, ``updating``, ``done`` or ``failed``."""

    id: str
    version: str
    bundle: Any
    boards: list[str]
    canary: str
    wave: int
    boards_state: dict[str, str] = field(default_factory=dict)
    halted: dict[str, str] | None = None  # board, outcome (service.OUTCOMES), reason
    cancelled: bool = False
    reasons: dict[str, str] = field(default_factory=dict)

    @classmethod
    def start(cls, body: Mapping[str, Any]) -> Rollout:
        boards = body.get("boards")
        if not isinstance(boards, list) or not boards or not all(isinstance(b, str) for b in boards):
            raise RolloutError("rollout: boards must be a non-empty list of board ids")
        if len(set(boards)) != len(boards):
            raise RolloutError("rollout: a board is named twice")
        canary = body.get("canary") or boards[0]
        if canary not in boards:
            raise RolloutError(f"rollout: the canary {canary!r} is not one of its boards")
        wave = body.get("wave", 5)
        if not isinstance(wave, int) or isinstance(wave, bool) or not 1 <= wave <= 60:
            raise RolloutError("rollout: wave must be a whole number from 1 to 60")
        version = body.get("version")
        if not isinstance(version, str) or not version:
            raise RolloutError("rollout: the bundle's version is missing")
        ordered = [canary, *[b for b in boards if b != canary]]
        return cls(str(body["id"]), version, body.get("bundle"), ordered, canary, wave,
                   dict.fromkeys(ordered, "pending"))

    def to_start(self) -> JSONDict:
        """The ``start`` entry's body that rebuilds this rollout."""
        return {"id": self.id, "version": self.version, "bundle": self.bundle, "boards": list(self.boards),
                "canary": self.canary, "wave": self.wave}

    def apply(self, step: Mapping[str, Any]) -> None:
        kind = step.get("step")
        if kind == "cancel":
            self.cancelled = True
            return
        board = step.get("board")
        if kind not in STEPS or board not in self.boards_state:
            raise RolloutError(f"rollout {self.id}: step {kind!r} for board {board!r} does not fit")
        if kind == "begin":
            self.boards_state[board] = "updating"
        elif kind == "done":
            self.boards_state[board] = "done"
        else:
            self.boards_state[board] = "failed"
            self.reasons[board] = str(step.get("reason", ""))
            if self.halted is None:  # rollouts logged before outcomes were kept: "failed"
                self.halted = {"board": board, "outcome": str(step.get("outcome", "failed")),
                               "reason": self.reasons[board]}

    @property
    def state(self) -> str:
        """``running``, ``halted`` (a failure), ``cancelled`` or ``finished``."""
        if self.halted is not None:
            return "halted"
        if self.cancelled:
            return "cancelled"
        if all(s == "done" for s in self.boards_state.values()):
            return "finished"
        return "running"

    def count(self, state: str) -> int:
        return sum(s == state for s in self.boards_state.values())

    def interrupted(self) -> list[str]:
        """Boards begun and never finished (the hub stopped meanwhile): pending again."""
        out = [b for b, s in self.boards_state.items() if s == "updating"]
        for board in out:
            self.boards_state[board] = "pending"
        return out

    def next_wave(self, idle: Collection[str]) -> list[str]:
        """The boards to start now: none while a wave is under way or the rollout is not
        running; the canary alone until it is done; then up to ``wave`` pending boards
        that are ``idle`` (online, no live match), in the rollout's order."""
        if self.state != "running" or any(s == "updating" for s in self.boards_state.values()):
            return []
        if self.boards_state[self.canary] != "done":
            return [self.canary] if self.canary in idle else []
        pending = [b for b in self.boards if self.boards_state[b] == "pending" and b in idle]
        return pending[: self.wave]

    def waiting(self, idle: Collection[str]) -> list[str]:
        """Pending boards that are not idle now (a live match, offline): they wait."""
        return [b for b in self.boards if self.boards_state[b] == "pending" and b not in idle]

    def to_json(self, idle: Collection[str] = (), progress: Mapping[str, float] | None = None) -> JSONDict:
        progress = progress or {}
        return {
            "id": self.id, "version": self.version, "state": self.state, "canary": self.canary,
            "wave": self.wave, "halted": dict(self.halted) if self.halted else None,
            "total": len(self.boards), "done": self.count("done"), "failed": self.count("failed"),
            "updating": self.count("updating"), "pending": self.count("pending"),
            "waiting": self.waiting(idle) if self.state == "running" else [],
            "boards": {b: {"state": s, "progress": progress.get(b), "reason": self.reasons.get(b)}
                       for b, s in self.boards_state.items()},
        }
