"""Share of throws the hub scores with no human answer when each board has a load cell
(issue 14, "Scoring without a human for every throw").

The real hub referees simulated tables (hub/sim: the firmware's own Node on simulated
beams, over ptys); each board also carries a load cell: the firmware's HX711 LoadCell
reading hub.sim.model.LoadCellModel (noise, the board rocking after a landing), which
sends `weight` events. The simulated referee answers only what is still asked once the
sensors had their say, and each such throw counts as needing a human:
  - a palet at rest on a board: the load cell's `weight` (count + 1) answers the
    `landed` prompt by itself; if the prompt is still open 3 s later, a human answers;
  - a palet on the floor: nothing sees it, a human answers `floor`;
  - a drop: the beams score it; a drop that bounced on the floor first (T10) is marked
    invalid by a human; a `fix` prompt (drops making no legal throw) is a human answer.

Run: ``python bench/firmware_loadcell.py --throws 1000`` (25 tables, about a minute; prints the
shares and the command line for docs/performance.md).
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.facade import Hub  # noqa: E402
from hub.sim.model import hole_edges, throw_outcome  # noqa: E402
from hub.sim.runner import SimEvent, TableRun, make_specs  # noqa: E402

AUTO_WAIT_S = 3.0


class LoadCellEvent(SimEvent):
    """A SimEvent whose boards carry load cells and whose referee counts its answers."""

    def __init__(self, *args: Any, throws: int, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.limit = throws
        self.counts: collections.Counter[str] = collections.Counter()
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
        """Every board has its load cell, showing what lies on it (knock-ins)."""
        for board in run.boards.values():
            if board.load is None:
                board.add_load_cell(self.seed)
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

    def _prompt_gone(self, run: TableRun, prompt: dict[str, Any], before: int) -> bool:
        deadline = time.monotonic() + AUTO_WAIT_S
        while time.monotonic() < deadline:
            view = self._view(run)
            if run.actions > before or all(p["id"] != prompt["id"] for p in view["prompts"]):
                return True
            time.sleep(0.01)
        return False

    def _throw(self, run: TableRun, view: dict[str, Any], prompt: dict[str, Any]) -> None:
        state = view["state"]
        if prompt["kind"] == "fix":
            self.counts["fix prompt (human)"] += 1  # the throw was counted when made
            self._answer(run, prompt, run.rng.choice(list(state["holes"])))
            return
        self._sync_loads(run, state)
        player = str(view["to_move"])
        before_throw = run.rng.getstate()
        outcome = throw_outcome(run.rng, run.spec.skills[player], list(state["boards"]),
                                dict(state["boards"]), list(state["holes"]))
        if not outcome.rest.startswith("board:"):  # floor or hole: as the plain simulator does
            if outcome.rest == "floor":
                what = "floor: human"
            else:
                what = "hole: human marks T10 invalid" if outcome.invalid else "hole: beams"
            if self.count(what):
                run.rng.setstate(before_throw)  # the same throw, made by SimEvent
                super()._throw(run, view, prompt)
            return
        before = run.actions
        if outcome.bounce_out is not None:
            board, hole = run.holes[outcome.bounce_out]
            run.boards[board].schedule(hole, hole_edges(run.rng, 0, passes=False))
            run.boards[board].wait_idle()
        engine = outcome.rest.split(":", 1)[1]
        sim = run.boards[self.physical[run.spec.id][engine]]
        sim.set_palets(state["boards"][engine] + 1)  # the load cell, not a human, answers
        sim.wait_idle()
        if self._prompt_gone(run, prompt, before):
            self.count("board: load cell")
        elif self.count("board: human (load cell missed)"):
            self._answer(run, prompt, outcome.rest)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--throws", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=25, help="tables at once (each plays one match)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(Path(tmp) / "hub.db", settle_s=0.3)
        hub.start()
        specs = make_specs(args.tables * 50, args.players, seed=args.seed)  # more tables than run at once
        event = LoadCellEvent(hub, Path(tmp) / "dev", specs[:args.tables], speed=0.0, seed=args.seed,
                              settle_s=0.3, throws=args.throws)
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
    print(f"throws: {made}  (seed {args.seed}, {args.tables} tables x {args.players} players, "
          f"{time.monotonic() - started:.0f} s)")
    for key, value in sorted(counts.items()):
        print(f"  {key:<34} {value:5d}  {100 * value / max(1, made):5.1f} %")
    print(f"scored with no human answer: {100 * (made - human) / max(1, made):.1f} %")
    resting = sum(v for k, v in counts.items() if k.startswith(("board", "hole")))
    human_resting = sum(v for k, v in counts.items() if k.startswith(("board", "hole")) and "human" in k)
    print(f"... of the throws that end on a board or in a hole: "
          f"{100 * (resting - human_resting) / max(1, resting):.1f} %")
    floor = counts["floor: human"]
    print(f"projection, if a throw sensor let the hub infer 'floor' (not built): "
          f"{100 * (made - human + floor) / max(1, made):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
