"""Share of throws the hub scores with no human answer, and the share it scores wrongly,
when each board has a load cell (issue 14) and, with ``--throw-sensor``, a throw gate at
the throw line (issue 28, hardware/throw-line.md).

The real hub referees simulated tables (hub/sim: the firmware's own Node on simulated
beams, over ptys); each board also carries a load cell: the firmware's HX711 LoadCell
reading hub.sim.model.LoadCellModel (noise, the board rocking after a landing), which
sends `weight` events. With ``--throw-sensor`` each board also has a throw gate: every
throw makes the plane edges of hub.sim.model.throw_timeline (the palet's passage, seen
or missed by the gate's geometry; now and then a hand at full reach, someone walking
through the gate, a stray object), classified by the firmware's own Gate, so its misses
and false triggers are the modelled ones. The simulated referee answers only what is
still asked once the sensors had their say (each such throw needs a human):
  - a palet at rest on a board: the load cell's `weight` (count + 1) answers the
    `landed` prompt by itself;
  - a palet on the floor: with the gate, the hub scores `floor` when nothing else was
    sensed within its landing window; without it (or when the gate missed), a human;
  - a drop: the beams score it; a drop that bounced on the floor first (T10) is marked
    invalid by a human; a `fix` prompt (drops making no legal throw) is a human answer.
A throw is *scored wrongly* when what the hub logged for it is not where the simulated
palet came to rest (a false trigger scoring a floor for nobody's palet, a board landing
taken for the floor...).

Run: ``python bench/firmware_loadcell.py --throws 1000 [--throw-sensor] [--json]`` (25
tables, a few minutes; --json prints one line: throws, no_human, wrong, ...).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.errors import RefusedError  # noqa: E402
from hub.facade import Hub  # noqa: E402
from hub.sim.board import LANE  # noqa: E402
from hub.sim.model import gate_rates, hole_edges, throw_outcome, throw_timeline  # noqa: E402
from hub.sim.runner import REFEREE, WAIT_S, SimEvent, TableRun, make_specs  # noqa: E402
from hub.tables.referee import DEFAULT_LANDING_S, DEFAULT_SETTLE_S  # noqa: E402

AUTO_WAIT_S = 3.0  # a board landing: the load cell's weight comes within this
LANDING_WAIT_S = DEFAULT_LANDING_S + 1.0  # a throw seen at the line: its window, then the timer


class LoadCellEvent(SimEvent):
    """A SimEvent whose boards carry load cells (and throw gates), and whose referee
    counts its answers and compares what the hub scored with what happened."""

    def __init__(self, *args: Any, throws: int, throw_sensor: bool = False, **kw: Any) -> None:
        super().__init__(*args, load_cells=True, throw_lines=throw_sensor, **kw)
        self.limit = throws
        self.throw_sensor = throw_sensor
        self.counts: collections.Counter[str] = collections.Counter()
        self.wrong: list[tuple[str, str, list[str]]] = []  # (table, what happened, what was scored)
        self.lock = threading.Lock()
        self.physical: dict[str, dict[str, str]] = {}  # table -> engine board -> physical

    def start(self) -> None:
        for run in self.runs:  # before the tables' threads start
            self.physical[run.spec.id] = {b["as"]: b["board"]
                                          for b in run.spec.table_spec(self.seed, self.settle_s).boards}
        super().start()

    def count(self, what: str) -> bool:
        """Count one throw; False once the limit is reached (the table stops)."""
        with self.lock:
            if sum(v for k, v in self.counts.items() if not k.startswith("fix")) >= self.limit:
                self._stop.set()
                return False
            self.counts[what] += 1
            return True

    def _sync_loads(self, run: TableRun, state: dict[str, Any]) -> None:
        """Every load cell shows what lies on its board (knock-ins, the round's clear-up)."""
        for engine, palets in state["boards"].items():
            sim = run.boards[self.physical[run.spec.id][engine]]
            if sim.load is not None and sim.load.palets != palets:
                sim.set_palets(palets)
                sim.wait_idle()

    def _answer(self, run: TableRun, prompt: dict[str, Any], choice: Any) -> None:
        if prompt["kind"] == "next_round":  # palets collected before "start" (the hub then tares)
            for board in run.boards.values():
                if board.load is not None and board.load.palets:
                    board.set_palets(0)
                    board.wait_idle()
        super()._answer(run, prompt, choice)

    def _decided(self, run: TableRun, before: int, wait_s: float) -> bool:
        """Until the hub scored the throw (True), or nothing is settling any more and
        ``wait_s`` has passed (False: a human must answer)."""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline or self._busy(run):
            if run.actions > before:
                return True
            if time.monotonic() > deadline + WAIT_S:
                return False
            time.sleep(0.01)
            self._view(run)
        return run.actions > before

    def _busy(self, run: TableRun) -> bool:
        view = self.hub.table_view(run.spec.id)
        return (view["throw"] is not None and not view["throw"].get("stuck")) or view.get("landing") is not None

    def _scored(self, run: TableRun, before: int) -> list[str]:
        log = self.hub.table_view(run.spec.id)["state"]["log"]
        return [e["action"]["throw"]["to"] for e in log[before:] if "throw" in e["action"]]

    def _throw(self, run: TableRun, view: dict[str, Any], prompt: dict[str, Any]) -> None:
        state = view["state"]
        if prompt["kind"] == "fix":
            self.counts["fix prompt (human)"] += 1  # the throw was counted when made
            self._answer(run, prompt, run.rng.choice(list(state["holes"])))
            return
        self._sync_loads(run, state)
        player = str(view["to_move"])
        outcome = throw_outcome(run.rng, run.spec.skills[player], list(state["boards"]),
                                dict(state["boards"]), list(state["holes"]))
        before = run.actions
        home = state.get("homes", {}).get(player) or next(iter(state["boards"]))
        lane = run.boards[self.physical[run.spec.id][home]]
        gate_seen = False
        if self.throw_sensor:  # the palet (and whatever else) crosses the gate, then lands
            timeline = throw_timeline(run.rng, outcome.rest)
            gate_seen = bool(timeline.edges)
            lane.schedule(LANE, timeline.edges)
            lane.wait_idle()
        if outcome.bounce_out is not None:
            board, hole = run.holes[outcome.bounce_out]
            run.boards[board].schedule(hole, hole_edges(run.rng, 0, passes=False))
            run.boards[board].wait_idle()
        if outcome.rest.startswith("board:"):
            sim = run.boards[self.physical[run.spec.id][outcome.rest.split(":", 1)[1]]]
            sim.set_palets(state["boards"][outcome.rest.split(":", 1)[1]] + 1)
            sim.wait_idle()
        elif outcome.rest != "floor":
            self._drop(run, outcome)
        if self.throw_sensor and outcome.rest == "floor":  # its landing window passes on the board's
            lane.hold(int((LANDING_WAIT_S + 1) * 1e6))  # clock as fast as the palets' edges do
        where = "floor" if outcome.rest == "floor" else "board" if outcome.rest.startswith("board:") else "hole"
        # without the gate nothing sees a floor landing: the human answers at once
        by_sensors = (self.throw_sensor or where != "floor") and self._decided(
            run, before, LANDING_WAIT_S if self.throw_sensor else AUTO_WAIT_S)
        if not by_sensors:
            view = self._view(run)
            open_prompt = next((p for p in view["prompts"] if p["kind"] in ("landed", "fix")), None)
            if open_prompt is None or not self.count(f"{where}: human"):
                return
            self._answer(run, open_prompt, outcome.rest)
        else:
            human = outcome.invalid and where == "hole"
            what = f"{where}: " + ("human marks T10 invalid" if human else "gate" if where == "floor" else
                                   "load cell" if where == "board" else "beams")
            if not self.count(what):
                return
            if human:
                try:
                    self.hub.submit(run.spec.id, {"invalid": True, "by": REFEREE})
                except RefusedError:
                    pass
        scored = self._scored(run, before)
        if scored != [outcome.rest]:
            self.wrong.append((run.spec.id, outcome.rest + (" (gate saw it)" if gate_seen else ""), scored))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--throws", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=25, help="tables at once (each plays one match)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--throw-sensor", action="store_true", help="a throw gate at each board's line")
    parser.add_argument("--json", action="store_true", help="one JSON line: throws, no_human, wrong, ...")
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        # the referee's own knock-in window (a knock-in lands 350-450 ms after the palet, T12)
        hub = Hub(Path(tmp) / "hub.db", settle_s=DEFAULT_SETTLE_S)
        hub.start()
        specs = make_specs(args.tables * 50, args.players, seed=args.seed)  # more tables than run at once
        event = LoadCellEvent(hub, Path(tmp) / "dev", specs[:args.tables], speed=0.0, seed=args.seed,
                              settle_s=DEFAULT_SETTLE_S, throws=args.throws, throw_sensor=args.throw_sensor)
        event.start()
        while not event._stop.is_set() and not event.wait(timeout=1.0):
            pass
        event.close()
        hub.close()
        errors = [p for p in event.progress() if p["error"]]
        if errors:
            print("table errors:", errors, file=sys.stderr)
    counts = event.counts
    made = sum(v for k, v in counts.items() if not k.startswith("fix"))
    human = sum(v for k, v in counts.items() if "human" in k)
    wrong = len(event.wrong)
    seconds = time.monotonic() - started
    if args.json:
        rates = gate_rates(20_000, args.seed) if args.throw_sensor else None
        print(json.dumps({"throws": made, "no_human": round((made - human) / max(1, made), 4),
                          "wrong": round(wrong / max(1, made), 4), "throw_sensor": args.throw_sensor,
                          "seed": args.seed, "tables": args.tables, "players": args.players,
                          "counts": dict(sorted(counts.items())), "gate_model": rates,
                          "seconds": round(seconds)}))
        return 0
    print(f"throws: {made}  (seed {args.seed}, {args.tables} tables x {args.players} players, "
          f"throw sensor {'on' if args.throw_sensor else 'off'}, {seconds:.0f} s)")
    for key, value in sorted(counts.items()):
        print(f"  {key:<34} {value:5d}  {100 * value / max(1, made):5.1f} %")
    print(f"scored with no human answer: {100 * (made - human) / max(1, made):.1f} %")
    print(f"scored wrongly: {100 * wrong / max(1, made):.2f} % ({wrong})")
    for table, truth, scored in event.wrong[:20]:
        print(f"  {table}: the palet went to {truth}, the hub scored {scored}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
