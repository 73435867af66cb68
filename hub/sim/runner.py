"""A simulated event: tables of simulated players on simulated boards, refereed by the
real hub. Each table runs in its own thread; a simulated referee answers the prompts the
sensors cannot (where a palet rests, a floor bounce, the final's target, the next round)
through :meth:`hub.facade.Hub.submit`, exactly like the referee console.

Reproducible: every random choice of a table comes from ``random.Random(f"{seed}:{id}")``
and a table waits for the hub to apply each throw before the next one.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hub.errors import HubError, RefusedError
from hub.facade import Hub
from hub.log.store import HubBusyError
from hub.sim.board import SimBoard
from hub.sim.model import KNOCK_DELAY_MS, Outcome, hole_edges, throw_outcome
from hub.tables.layout import hexagon
from hub.tables.spec import TableSpec, parse_bindings

LAYOUTS = ("row", "hexagon")
REFEREE = "sim-referee"
MAX_ACTIONS = 3000
WAIT_S = 20.0
log = logging.getLogger("hub.sim")


@dataclass
class SimTable:
    """One simulated table: players (name → skill in [0, 1]), boards and their layout."""

    id: str
    skills: dict[str, float]
    boards: int = 1
    layout: str = "row"
    palets_per_player: int = 3
    rounds_to_win: int = 2
    link: str = "serial"  # how its boards reach the hub: "serial" (pty) or "mqtt"

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout: expected one of {', '.join(LAYOUTS)}, got {self.layout!r}")
        if self.layout == "hexagon":
            self.boards = 6
        if self.link not in ("serial", "mqtt"):
            raise ValueError(f"link: expected serial or mqtt, got {self.link!r}")
        if self.boards < 1:
            raise ValueError("boards: at least 1")

    def table_spec(self, seed: int, settle_s: float) -> TableSpec:
        """The hub table: the engine boards and their bindings come from :mod:`hub.tables.layout`
        (a row, or a hexagon with its jackpot), each device named ``<table id>B<k>``."""
        options: dict[str, Any] = {"palets_per_player": self.palets_per_player,
                                   "rounds_to_win": self.rounds_to_win}
        if self.layout == "hexagon":
            options["boards"], bindings = hexagon(self.id)
        else:
            bindings = parse_bindings([{"board": f"{self.id}B{k}", "as": f"B{k}"}
                                       for k in range(1, self.boards + 1)])
        return TableSpec.build("trigono", table_id=self.id, options=options, seats=list(self.skills),
                               boards=bindings, seed=seed, referee={"settle_s": settle_s})


def make_specs(tables: int, players: int, boards: int = 1, layout: str = "row", seed: int = 1,
               prefix: str = "sim", link: str = "serial") -> list[SimTable]:
    """``tables`` tables of ``players`` players with seeded skills.

    >>> [(s.id, len(s.skills), s.boards) for s in make_specs(2, 3, layout="hexagon")]
    [('sim1', 3, 6), ('sim2', 3, 6)]
    """
    rng = random.Random(f"skills:{seed}")
    names = ["Ana", "Ben", "Chloé", "Dario", "Eva", "Féodor", "Gaia", "Hugo"]
    return [SimTable(f"{prefix}{t}", {f"{names[p % len(names)]}{'' if p < len(names) else p}":
                                       round(rng.uniform(0.2, 0.9), 2) for p in range(players)},
                      boards, layout, link=link) for t in range(1, tables + 1)]


@dataclass
class TableRun:
    spec: SimTable
    rng: random.Random
    boards: dict[str, SimBoard] = field(default_factory=dict)  # physical id -> board
    holes: dict[str, tuple[str, str]] = field(default_factory=dict)  # engine hole -> (board, hole)
    actions: int = 0
    status: str = "starting"
    winner: str | None = None
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)


class SimEvent:
    """Boards, tables and simulated players and referee for ``specs`` on ``hub``.

    ``workdir`` holds the pty symlinks. ``speed``: 1 = real time, 0 = as fast as
    possible. ``mqtt``: the broker for tables whose link is ``"mqtt"``; the hub gets an
    MQTT transport to it unless ``hub_mqtt`` is False (it has one already). ``start()`` creates boards, links and tables; ``wait()`` until every
    match is over; ``close()`` stops it all (the hub stays open).
    """

    def __init__(self, hub: Hub, workdir: Path, specs: list[SimTable], *, speed: float = 0.0,
                 seed: int = 1, settle_s: float | None = None,
                 mqtt: tuple[str, int] | None = None, hub_mqtt: bool = True,
                 load_cells: bool = False, throw_lines: bool = False) -> None:
        self.hub = hub
        self.workdir = Path(workdir)
        self.speed = speed
        self.seed = seed
        self.settle_s = settle_s if settle_s is not None else (0.8 if speed == 0 else 1.0)
        self.mqtt, self.hub_mqtt = mqtt, hub_mqtt
        self.load_cells, self.throw_lines = load_cells, throw_lines  # the boards' optional sensors
        if mqtt is None and any(s.link == "mqtt" for s in specs):
            raise ValueError("link mqtt: no broker given")
        self.runs = [TableRun(s, random.Random(f"{seed}:{s.id}")) for s in specs]
        self.boards: dict[str, SimBoard] = {}
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()

    def start(self) -> None:
        from hub.devices.serial_link import SerialTransport

        self.workdir.mkdir(parents=True, exist_ok=True)
        tables = {run.spec.id: run.spec.table_spec(self.seed, self.settle_s) for run in self.runs}
        for run in self.runs:
            for b in tables[run.spec.id].boards:
                board = SimBoard(b["board"], list(b["holes"]), self.workdir / b["board"], self.speed,
                                 self.mqtt if run.spec.link == "mqtt" else None,
                                 load_cell=self.load_cells, throw_line=self.throw_lines)
                run.boards[b["board"]] = self.boards[b["board"]] = board
                for name, engine_hole in b["holes"].items():
                    run.holes[engine_hole] = (b["board"], name)
        ports = [str(b.path) for b in self.boards.values() if not b.is_mqtt]
        if ports:
            self.hub.add_transport(SerialTransport(ports))
        if self.mqtt is not None and self.hub_mqtt and any(s.spec.link == "mqtt" for s in self.runs):
            from hub.devices.mqtt_link import MqttTransport

            self.hub.add_transport(MqttTransport(*self.mqtt, client_id=f"trigono-sim-hub-{self.seed}"))
        known = {t["id"] for t in self.hub.list_tables()}
        for run in self.runs:
            if run.spec.id not in known:
                self.hub.create(tables[run.spec.id])
            thread = threading.Thread(target=self._play, args=(run,), name=f"sim-{run.spec.id}",
                                      daemon=True)
            thread.start()
            self._threads.append(thread)

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        for run in self.runs:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not run.done.wait(left):
                return False
        return True

    def progress(self) -> list[dict[str, Any]]:
        return [{"table": r.spec.id, "actions": r.actions, "status": r.status, "winner": r.winner,
                 "error": r.error} for r in self.runs]

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=WAIT_S)
        for board in self.boards.values():
            board.close()

    # -- one table ------------------------------------------------------------------------
    def _play(self, run: TableRun) -> None:
        try:
            while not self._stop.is_set():
                try:
                    if self._turn(run):
                        break
                except HubBusyError as err:  # a slow commit held the hub: the turn looks again
                    log.warning("sim %s: %s", run.spec.id, err)
                    self._stop.wait(0.5)
        except Exception as err:  # a table that fails must not hang the event: report it
            run.error = f"{type(err).__name__}: {err}"
            run.status = "error"
        finally:
            run.done.set()

    def _view(self, run: TableRun) -> dict[str, Any]:
        view = self.hub.table_view(run.spec.id)
        state = view["state"]
        run.actions, run.status, run.winner = len(state.get("log", [])), state["status"], view["winner"]
        return view

    def _answer(self, run: TableRun, prompt: dict[str, Any], choice: Any) -> None:
        """Answer as the referee would. A real referee may have answered or corrected
        something meanwhile (the prompt is gone, or another throw is being settled):
        then the next turn looks again (issue 17 Broken 4)."""
        try:
            self.hub.submit(run.spec.id, {"answer": {"prompt": prompt["id"], "choice": choice},
                                          "by": REFEREE})
        except RefusedError as err:
            log.info("sim %s: %s; looking again", run.spec.id, err)

    def _turn(self, run: TableRun) -> bool:
        """One step of the table; True when the match is over."""
        view = self._view(run)
        if self.hub.game_over(run.spec.id) or run.actions >= MAX_ACTIONS:
            return True
        prompts = view["prompts"]
        if view["throw"] is not None and not view["throw"].get("stuck"):
            time.sleep(0.01)  # a drop is settling
            return False
        if not prompts:
            time.sleep(0.01)
            return False
        prompt = prompts[0]
        if prompt["kind"] == "next_round":
            self._pause(1.0)  # palets are collected
            self._answer(run, prompt, "start")
        elif prompt["kind"] == "target":
            self._answer(run, prompt, run.rng.choice(prompt["choices"]))
        elif prompt["kind"] in ("landed", "fix"):
            self._throw(run, view, prompt)
        else:
            time.sleep(0.01)
        return False

    def _pause(self, seconds: float) -> None:
        if self.speed > 0:
            self._stop.wait(seconds / self.speed)

    def _throw(self, run: TableRun, view: dict[str, Any], prompt: dict[str, Any]) -> None:
        state = view["state"]
        if prompt["kind"] == "fix":  # the sensors' drops made no legal throw: say the truth
            self._answer(run, prompt, run.rng.choice(list(state["holes"])))
            return
        player = str(view["to_move"])
        self._pause(3.0)  # the player walks up and throws
        outcome = throw_outcome(run.rng, run.spec.skills[player], list(state["boards"]),
                                dict(state["boards"]), list(state["holes"]))
        before = run.actions
        if outcome.bounce_out is not None:
            board, hole = run.holes[outcome.bounce_out]
            run.boards[board].schedule(hole, hole_edges(run.rng, 0, passes=False))
            run.boards[board].wait_idle()
        if outcome.rest not in state["holes"]:
            self._answer(run, prompt, outcome.rest)
            return
        self._drop(run, outcome)
        deadline = time.monotonic() + WAIT_S
        seen_throw = False
        while time.monotonic() < deadline and not self._stop.is_set():
            view = self._view(run)
            if run.actions > before or (view["throw"] or {}).get("stuck"):
                break
            if view["throw"] is not None:
                seen_throw = True
            elif seen_throw:  # the referee voided the drop: the next turn looks again
                break
            time.sleep(0.005)
        if outcome.invalid and run.actions > before:
            try:
                self.hub.submit(run.spec.id, {"invalid": True, "by": REFEREE})
            except RefusedError as err:  # a referee corrected the throw meanwhile
                log.info("sim %s: %s", run.spec.id, err)

    def _drop(self, run: TableRun, outcome: Outcome) -> None:
        board, hole = run.holes[outcome.rest]
        sim = run.boards[board]
        sim.schedule(hole, hole_edges(run.rng, 0, passes=True))
        for _from_board, knocked_hole in outcome.knocked:
            k_board, k_hole = run.holes[knocked_hole]
            delay = int(run.rng.uniform(*KNOCK_DELAY_MS) * 1000)
            run.boards[k_board].schedule(k_hole, hole_edges(run.rng, delay, passes=True))
        sim.wait_idle()


def describe(progress: list[dict[str, Any]]) -> str:
    """One progress line.

    >>> describe([{"table": "sim1", "actions": 12, "status": "playing", "winner": None, "error": None}])
    'sim1: 12 throws, playing'
    """
    parts = []
    for p in progress:
        text = f"{p['table']}: {p['actions']} throws, {p['status']}"
        if p["winner"]:
            text += f" ({p['winner']} wins)"
        if p["error"]:
            text += f" [{p['error']}]"
        parts.append(text)
    return " | ".join(parts)


__all__ = ["SimEvent", "SimTable", "make_specs", "describe", "HubError"]
