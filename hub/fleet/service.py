"""The hub's fleet service: the fleet view, the actions on a board and the rollouts,
around the running hub (its board health, tables, device links and log writer).

Actions on a board (issue 33.2): ``identify`` (LED / buzzer for 10 s), ``selftest`` (the
result per beam on the fleet page), ``rearm`` (the board resyncs its beams and tests them),
``reboot``. Each is refused with a :class:`BoardLiveError` while a match is live on the
board (a self-test blinds a hole for 40 ms, a reboot for seconds), unless ``force``.
Those that change the board's state (``rearm``, ``reboot``) are log entries
(``source = "fleet"``, ``{"fleet": "action", ...}``), and so are the fleet's target and
each rollout step (:mod:`hub.fleet.rollout`): a restarted hub folds them again and an
interrupted rollout goes on.

The transfer of a bundle to one board is not here: an :data:`Updater` does it, by default
:func:`hub.fleet.hub_link.transfer_updater` (:func:`hub.fleet.transfer.update_board` over
the hub's own links, issue 33.3).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from firmware import protocol
from hub.devices import ingest
from hub.errors import ConflictError, RefusedError, UnknownBoardError
from hub.fleet import view
from hub.fleet.hub_link import transfer_updater
from hub.fleet.rollout import Rollout, RolloutError
from hub.log import clock
from hub.log.store import Entry

if TYPE_CHECKING:
    from hub.facade import Hub

JSONDict = dict[str, Any]
log = logging.getLogger("hub.fleet")

SOURCE = "fleet"
ACTIONS = ("identify", "selftest", "rearm", "reboot")
LOGGED = ("rearm", "reboot")  # they change the board's state
Progress = Callable[..., None]
Updater = Callable[[Any, str, Any, Progress], Any]
"""``update_board(link, board_id, bundle, progress)``: sends ``bundle`` to the board and
returns once it runs it (``progress(done, total)`` along the way); raises, or returns a
value with ``ok`` false and a ``reason``, when the board refused or rolled back."""
RECHECK_S = 0.5  # a rollout waiting for idle boards looks again this often


class BoardLiveError(ConflictError):
    """An action on a board a live match uses (409): allowed only when forced."""


OUTCOMES = ("refused", "rolled_back", "unreachable", "unheard", "failed")
"""How an update failed, as kinds the web words (``fleet.outcome.<kind>``): the board
refused the bundle, its new version failed the trial and it went back, it stopped
answering, it was heard on no link, or the transfer raised."""


def failure(result: Any) -> tuple[str, str] | None:
    """``(outcome, reason)`` when an updater's result is a failure, else None: the outcome
    a kind of :data:`OUTCOMES`, the reason the board's or the transfer's own words.

    >>> failure(None), failure(True), failure(False)
    (None, None, ('failed', ''))
    >>> failure({"ok": False, "outcome": "refused", "reason": "bad signature"})
    ('refused', 'bad signature')
    """
    if result is None or result is True:
        return None
    if result is False:
        return ("failed", "")
    get = result.get if isinstance(result, dict) else (lambda key, default=None: getattr(result, key, default))
    if get("ok", True):
        return None
    outcome = str(get("outcome") or "failed")
    return (outcome if outcome in OUTCOMES else "failed", str(get("reason") or ""))


class FleetService:
    """The fleet of one hub (built by :class:`hub.facade.Hub`, under its lock)."""

    def __init__(self, hub: Hub, updater: Updater | None = None) -> None:
        self.hub = hub
        self.updater = updater if updater is not None else transfer_updater(self)
        self._taps: dict[str, queue.Queue[JSONDict]] = {}
        self.target = view.Target()
        self.selftests: dict[str, int] = {}  # board -> its self-test counter when one was asked
        self.actions: list[JSONDict] = []  # the newest actions (the page shows them)
        self.rollouts: dict[str, Rollout] = {}
        self.current: str | None = None
        self.progress: dict[str, float] = {}
        self._ids = itertools.count(1)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the transfer's tap on the hub's device messages -------------------------------
    def open_tap(self, board: str, inbox: queue.Queue[JSONDict]) -> None:
        self._taps[board] = inbox

    def close_tap(self, board: str) -> None:
        self._taps.pop(board, None)

    @property
    def tapping(self) -> bool:
        return bool(self._taps)

    def tap(self, msg: JSONDict) -> bool:
        """A device message arrives (any transport thread): a copy goes to the transfer
        under way with its board; True when it is for the transfer only (``update_state``)."""
        inbox = self._taps.get(msg.get("board"))  # type: ignore[arg-type]
        kind = msg.get("type")
        if inbox is not None and kind in ("update_state", "hello"):
            inbox.put(msg)
        return kind == "update_state"

    # -- the log ---------------------------------------------------------------------
    def restore(self, entries: Iterable[Entry]) -> None:
        """Fold the fleet's entries of the log (at the hub's start)."""
        for entry in entries:
            if entry.source == SOURCE and entry.table_id is None:
                self._fold(entry.body, entry.at)
        rollout = self.rollout()
        if rollout is not None:
            again = rollout.interrupted()
            if again:
                log.warning("rollout %s: %s interrupted by the hub's restart, updated again",
                            rollout.id, ", ".join(again))

    def _fold(self, body: JSONDict, at: float) -> None:
        kind = body.get("fleet")
        if kind == "target":
            self.target = view.Target(body.get("fw"), body.get("config"))
        elif kind == "action":
            self.actions.append({"at": at, **{k: v for k, v in body.items() if k != "fleet"}})
            del self.actions[:-50]
        elif kind == "rollout":
            step = body["step"]
            if step == "start":
                rollout = Rollout.start(body["rollout"])
                self.rollouts[rollout.id] = rollout
                self.current = rollout.id
                self.target = view.Target(rollout.version, self.target.config)
                self._ids = itertools.count(len(self.rollouts) + 1)
            else:
                self.rollouts[body["id"]].apply(body)

    def _write(self, body: JSONDict) -> None:
        """Store a fleet entry, then fold it (the hub's writer: store → apply → announce)."""
        entry = Entry.new(SOURCE, body)

        def apply(stored: list[Entry | None]) -> list[JSONDict]:
            for got in stored:
                if got is not None:
                    self._fold(got.body, got.at)
            board = body.get("board")
            return [{"kind": "board", "board": board}] if isinstance(board, str) else []

        self.hub.writer.write([entry], apply)

    # -- the view --------------------------------------------------------------------
    def placements(self) -> dict[str, view.Placement]:
        """Where each bound board serves (under the hub's lock)."""
        out = {}
        tables = self.hub.tables
        for board, table_id in self.hub.devices.bound.items():
            table = tables.get(table_id) if not tables.is_dormant(table_id) else None
            live = table is not None and not table.finished
            position = table.position_of(board) if table is not None else None
            out[board] = view.Placement(table_id, position, live)
        return out

    def rows(self, now: float, day_start: float | None = None) -> list[JSONDict]:
        """The fleet's rows (under the hub's lock)."""
        devices = self.hub.devices
        health = [devices.health[b].to_json() for b in sorted(devices.health)]
        health += [{"board": b} for b in sorted(set(devices.bound) | devices.registered)
                   if b not in devices.health]
        rollout = self.rollout()
        updates = {} if rollout is None else {
            b: {"state": s, "progress": self.progress.get(b), "rollout": rollout.id}
            for b, s in rollout.boards_state.items()}
        return view.fleet_rows(health, self.target, now, placements=self.placements(), day_start=day_start,
                               selftests=self.selftests, updates=updates)

    def idle(self) -> set[str]:
        """Boards a rollout may touch now: online, no live match (under the hub's lock)."""
        placements = self.placements()
        return {b for b, h in self.hub.devices.health.items()
                if h.status == "online" and not (b in placements and placements[b].live)}

    def rollout(self) -> Rollout | None:
        return None if self.current is None else self.rollouts[self.current]

    def rollout_view(self) -> JSONDict | None:
        rollout = self.rollout()
        return None if rollout is None else rollout.to_json(self.idle(), self.progress)

    # -- actions ---------------------------------------------------------------------
    def act(self, board: str, action: str, *, force: bool = False, by: str = "admin") -> JSONDict:
        """Send ``action`` to ``board`` (under the hub's lock); refused while a match is
        live on it unless ``force``."""
        if action not in ACTIONS:
            raise RefusedError(f"unknown board action {action!r} (known: {', '.join(ACTIONS)})",
                               "unknown_action", action=action)
        devices = self.hub.devices
        if board not in devices.health and board not in devices.bound:
            raise UnknownBoardError(f"no board {board!r} in this fleet", "unknown_board", board=board)
        placement = self.placements().get(board)
        if placement is not None and placement.live and not force:
            raise BoardLiveError(
                f"board {board} serves table {placement.table}, where a match is live: "
                f"{action} refused (force it to do it anyway)", "board_live",
                board=board, table=placement.table, action=action)
        link = devices.links.get(board)
        if link is None:
            raise RefusedError(f"board {board} has not been heard on any link: {action} cannot reach it",
                               "board_unreachable", board=board, action=action)
        self.hub.ingest_loop.send([ingest.Ack(link, board, protocol.command(0, action))])
        now = clock.now()
        if action in ("selftest", "rearm"):
            health = devices.health.get(board)
            self.selftests[board] = health.counters.get("selftests", 0) if health is not None else 0
        record = {"action": action, "board": board, "forced": bool(force and placement is not None
                                                                   and placement.live), "by": by}
        if action in LOGGED:
            self._write({"fleet": "action", **record})
        return {"at": now, **record}

    def set_target(self, fw: str | None, config: str | None) -> None:
        self._write({"fleet": "target", "fw": fw, "config": config})

    # -- rollouts --------------------------------------------------------------------
    def start_rollout(self, version: str, bundle: Any, boards: list[str] | None = None,
                      canary: str | None = None, wave: int = 5) -> JSONDict:
        """Start a rollout of ``bundle`` (its ``version``) to ``boards`` (default: every
        board not running ``version``), canary first (under the hub's lock)."""
        if self.updater is None:
            raise RefusedError("this hub has no firmware transfer (hub/fleet/transfer.py): no rollout",
                               "no_transfer")
        current = self.rollout()
        if current is not None and current.state == "running":
            raise ConflictError(f"rollout {current.id} is still running", "rollout_running",
                                rollout=current.id)
        if boards is None:
            boards = [b for b, h in sorted(self.hub.devices.health.items()) if h.fw != version]
        known = set(self.hub.devices.health) | set(self.hub.devices.bound)
        unknown = [b for b in boards if b not in known]
        if unknown:
            raise UnknownBoardError(f"no board {unknown[0]!r} in this fleet", "unknown_board", board=unknown[0])
        rid = f"r{next(self._ids)}"
        body = {"id": rid, "version": version, "bundle": bundle, "boards": boards, "canary": canary, "wave": wave}
        try:
            Rollout.start(body)
        except RolloutError as err:
            raise RefusedError(str(err), "bad_rollout") from err
        self._write({"fleet": "rollout", "step": "start", "rollout": body})
        self._wake.set()
        return self.rollout_view() or {}

    def cancel_rollout(self) -> None:
        rollout = self.rollout()
        if rollout is not None and rollout.state == "running":
            self._write({"fleet": "rollout", "step": "cancel", "id": rollout.id})

    def start(self) -> None:
        """Run rollouts in a thread of their own (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="hub-rollout", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _run(self) -> None:
        workers: dict[str, threading.Thread] = {}
        while not self._stop.is_set():
            self._wake.wait(RECHECK_S)
            self._wake.clear()
            workers = {b: w for b, w in workers.items() if w.is_alive()}
            if self._stop.is_set():
                break
            with self.hub.writer.lock:
                rollout = self.rollout()
                if rollout is None or rollout.state != "running" or workers or self.updater is None:
                    continue
                wave = rollout.next_wave(self.idle())
                links = {b: self.hub.devices.links.get(b) for b in wave}
                for board in wave:
                    self._write({"fleet": "rollout", "step": "begin", "id": rollout.id, "board": board})
            for board in wave:
                worker = threading.Thread(target=self._update, args=(rollout, board, links[board]),
                                          name=f"hub-update-{board}", daemon=True)
                workers[board] = worker
                worker.start()

    def _update(self, rollout: Rollout, board: str, link: Any) -> None:
        def progress(done: float, total: float | None = None) -> None:
            self.progress[board] = done if total is None else (done / total if total else 1.0)

        assert self.updater is not None
        try:
            failed = failure(self.updater(link, board, rollout.bundle, progress))
        except Exception as err:  # the transfer's own error, whatever its type: the rollout halts there
            failed = ("failed", str(err) or type(err).__name__)
        if self._stop.is_set():  # the hub is closing: the log keeps the board "begun", a restart redoes it
            return
        step = ({"step": "done", "fw": rollout.version} if failed is None
                else {"step": "failed", "outcome": failed[0], "reason": failed[1]})
        if failed is not None:
            log.error("rollout %s halted at board %s: %s (%s)", rollout.id, board, *failed)
        try:
            with self.hub.writer.lock:
                self._write({"fleet": "rollout", "id": rollout.id, "board": board, **step})
        except Exception as err:  # the hub closed meanwhile: the board stays "begun", redone on restart
            log.warning("rollout %s: the result of board %s was not stored: %s", rollout.id, board, err)
        if failed is None:
            self.progress[board] = 1.0
        self._wake.set()
