"""Triominos geometry (bridges, hexagons in every orientation), records and `trigono
replay`, seeded random playouts checked against a brute-force move finder, and the bot."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from engines.core import IllegalMoveError, InvalidMoveError, RecordError
from engines.lattice import DOWN, UP, Cell, Vertex, cells_around, corners, edge_neighbours
from engines.records import replay
from engines.triominos import Draw, Pass, Place, TriominosGame, TriominosState, action_from_str
from engines.triominos.board import Board, cell_key, key_cell
from engines.triominos.bot import (
    choose,
    determinize,
    greedy_choose,
    hint,
    read_turns,
    unseen_tiles,
)
from engines.triominos.tiles import SETS, canonical, rotations

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"
ORIENTED = [Cell(0, 0, UP), Cell(0, 0, DOWN), Cell(3, -2, UP), Cell(-1, 4, DOWN)]
ZERO = (0, 0, 0)


def board_with(cells: list[Cell]) -> Board:
    board = Board()
    for c in cells:
        board.place(cell_key(c), ZERO)
    return board


# ---------------------------------------------------------------- geometry
@pytest.mark.parametrize("cell", ORIENTED)
def test_geometry_side_k_is_opposite_corner_k(cell: Cell) -> None:
    for k, n in enumerate(edge_neighbours(cell)):
        assert corners(cell)[k] not in corners(n)


@pytest.mark.parametrize("cell", ORIENTED)
@pytest.mark.parametrize("k", range(3))
def test_M6_hexagon_geometry_every_orientation_and_corner(cell: Cell, k: int) -> None:
    v = corners(cell)[k]
    others = [c for c in cells_around(v) if c != cell]
    assert board_with(others).bonus(cell_key(cell)) == "hexagon"
    for missing in others:  # five around the corner are needed, four are not enough
        rest = [c for c in others if c != missing]
        assert board_with(rest).bonus(cell_key(cell)) != "hexagon"


@pytest.mark.parametrize("cell", ORIENTED)
@pytest.mark.parametrize("pair", list(combinations(range(3), 2)))
def test_M6_double_hexagon_geometry(cell: Cell, pair: tuple[int, int]) -> None:
    around = {c for k in pair for c in cells_around(corners(cell)[k])} - {cell}
    assert board_with(sorted(around)).bonus(cell_key(cell)) == "double_hexagon"


@pytest.mark.parametrize("cell", ORIENTED)
def test_M6_triple_hexagon_geometry(cell: Cell) -> None:
    around = {c for v in corners(cell) for c in cells_around(v)} - {cell}
    assert len(around) == 12
    assert board_with(sorted(around)).bonus(cell_key(cell)) == "triple_hexagon"


def _point_cells(cell: Cell, k: int) -> list[Cell]:
    """Cells touching ``cell`` only at its corner k."""
    sides = set(edge_neighbours(cell))
    return [c for c in cells_around(corners(cell)[k]) if c != cell and c not in sides]


@pytest.mark.parametrize("cell", ORIENTED)
@pytest.mark.parametrize("k", range(3))
def test_M7_bridge_geometry_every_orientation(cell: Cell, k: int) -> None:
    sides = edge_neighbours(cell)
    points = _point_cells(cell, k)
    assert len(points) == 3
    key = cell_key(cell)
    for point in points:
        assert board_with([sides[k], point]).bonus(key) == "bridge"
        # a covered flank (a second side) spoils it under Goliath rules, not under Pressman
        for flank in (sides[(k + 1) % 3], sides[(k + 2) % 3]):
            board = board_with([sides[k], point, flank])
            assert board.bonus(key) is None
            assert board.bonus(key, pressman_bridge=True) == "bridge"
    # a side alone, or a point at another corner, is no bridge
    assert board_with([sides[k]]).bonus(key) is None
    for other in _point_cells(cell, (k + 1) % 3):
        if other not in cells_around(corners(cell)[k]):
            assert board_with([sides[k], other]).bonus(key) is None


# ---------------------------------------------------------------- records
def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`trigono ARGS` (the installed script; `python -m hub` is the same CLI)."""
    script = ROOT / ".venv" / "bin" / "trigono"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "hub"]
    return subprocess.run(
        [*command, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60,
    )


def test_records_worked_example_replays_through_the_cli() -> None:
    example = json.loads((RECORDS / "triominos-match-and-draw.json").read_text())
    expect = example.pop("expect")
    done = run_cli("replay", "-", stdin=json.dumps(example))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [e["points"] for e in out["log"]] == expect["log_points"]
    for field in ("status", "to_move", "scores", "pool_count"):
        assert out[field] == expect[field]
    assert {p: sorted(r) for p, r in out["racks"].items()} == {
        p: sorted(r) for p, r in expect["racks"].items()}
    assert [e["bonus"] for e in out["log"]] == [None, None]
    assert out["board"][1] == {"cell": [0, 0, "down"], "corners": [1, 2, 2], "tile": "1-2-2"}


BASE: dict[str, Any] = json.loads((RECORDS / "triominos-match-and-draw.json").read_text())
BASE.pop("expect")


def _broken(change: dict[str, Any]) -> dict[str, Any]:
    rec = json.loads(json.dumps(BASE))
    for path, value in change.items():
        target = rec
        *parents, last = path.split(".")
        for p in parents:
            target = target[int(p)] if isinstance(target, list) else target[p]
        target[last] = value
    return rec


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"options.colour": "red"}, "record"),
        ({"options.set": "deluxe"}, "record"),
        ({"position.hint": 1}, "record"),
        ({"position.pool": ["1-2-9"]}, "record"),
        ({"position.pool": ["0-2-1"]}, "record"),  # not in the classic set
        ({"position.pool": ["1-2-2"]}, "record"),  # already in Ana's rack
        ({"position.board": [{"cell": [0, 0, "up"], "corners": [0, 1, 2]},
                             {"cell": [0, 0, "down"], "corners": [3, 3, 3]}]}, "record"),
        ({"position.to_move": "Cy"}, "record"),
        ({"actions": [{"place": {"cell": [0, 0, "down"]}}]}, "action 0"),
        ({"actions": [{"draw": True}, {"draw": True}, {"fly": True}]}, "action 2"),
        ({"actions": [{"draw": True}, {"pass": True}]}, "action 1"),  # Ben must place or draw
        ({"actions": [{"place": {"cell": [5, 5, "up"], "corners": [1, 2, 2]}}]}, "action 0"),
    ],
)
def test_records_malformed_or_illegal_exit_2_naming_the_action(
    change: dict[str, Any], where: str
) -> None:
    done = run_cli("replay", "-", stdin=json.dumps(_broken(change)))
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(where + ":")


def test_records_dump_load_and_text_notation_round_trip() -> None:
    state = replay(BASE)
    assert isinstance(state, TriominosState)
    again = state.game.load(json.loads(json.dumps(state.dump())))
    assert again == state and again.to_json() == state.to_json()
    for action in state.legal_actions():
        assert action_from_str(action.to_str()) == action
        assert state.game.parse_action(state.game.action_to_json(action)) == action
    with pytest.raises(InvalidMoveError):
        action_from_str("0,0,sideways:1-2-3")
    with pytest.raises(RecordError):
        TriominosGame({"set": "excel"}).load(state.dump())


# ---------------------------------------------------------------- playouts
def brute_force_placements(state: TriominosState) -> set[tuple[Cell, tuple[int, int, int]]]:
    """Every legal placement found the slow way: M4 read literally, cell by cell."""
    tiles = {Cell.from_json(e["cell"]): tuple(e["corners"]) for e in state.to_json()["board"]}
    ts = state.tileset
    rack = [ts.tiles[t] for t in state.racks[state.to_move]]
    if state.draws:  # M9: after a draw only the tile just drawn (the rack's last)
        rack = rack[-1:]
    found: set[tuple[Cell, tuple[int, int, int]]] = set()
    if not tiles:
        return found
    i_s = [c.i for c in tiles]
    j_s = [c.j for c in tiles]
    for i in range(min(i_s) - 2, max(i_s) + 3):
        for j in range(min(j_s) - 2, max(j_s) + 3):
            for orient in (UP, DOWN):
                cell = Cell(i, j, orient)
                if cell in tiles or not any(n in tiles for n in edge_neighbours(cell)):
                    continue
                for tile in rack:
                    for rot in rotations(tile):
                        ok = True
                        for v, value in zip(corners(cell), rot, strict=True):
                            for other in cells_around(v):
                                if other in tiles:
                                    held = tiles[other][corners(other).index(v)]
                                    ok = ok and held == value
                        if ok:
                            found.add((cell, rot))
    return found


def check_invariants(state: TriominosState) -> None:
    ts = state.tileset
    held = [t for r in state.racks for t in r] + list(state.pool)
    on_board = [ts.find(c) for c in state.board.tiles.values()]
    assert sorted(held + on_board) == list(range(ts.size))  # type: ignore[arg-type]
    out = state.to_json()
    assert len(out["board"]) + sum(map(len, out["racks"].values())) + out["pool_count"] == ts.size
    seen: dict[Vertex, int] = {}
    for entry in out["board"]:
        for v, value in zip(corners(Cell.from_json(entry["cell"])), entry["corners"], strict=True):
            assert seen.setdefault(v, value) == value


OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"set": "excel"},
    {"players": ["A", "B", "C"]},
    {"players": ["A", "B", "C", "D"], "rules": "pressman"},
    {"players": list("ABCDEF")},
    {"rules": "pressman", "set": "excel"},
    {"young": True, "players": ["A", "B", "C", "D", "E"]},
    {"target": 120},
]


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playout_conserves_tiles_replays_and_generates_only_legal_moves(
    options: dict[str, Any], seed: int
) -> None:
    game = TriominosGame(options)
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed)
    actions: list[Any] = []
    steps = 0
    while not state.is_terminal():
        check_invariants(state)
        legal = state.legal_actions()
        assert legal, "a live state always has an action"
        placements = {(a.cell, a.corners) for a in legal if isinstance(a, Place)}
        if state.board.tiles and len(state.board) <= 12:
            assert placements == brute_force_placements(state)
        if steps % 5 == 0:  # every generated action is accepted
            for action in legal:
                state.clone().apply(action)
        # a random wrong placement is refused and changes nothing
        if state.board.frontier:
            key = rng.choice(sorted(state.board.frontier))
            cell = key_cell(key)
            tile = state.tileset.tiles[rng.choice(state.racks[state.to_move] or [0])]
            if (cell, tile) not in placements and state.board.tiles:
                before = state.dump()
                with pytest.raises(IllegalMoveError):
                    state.apply(Place(cell, tile))
                assert state.dump() == before
        action = rng.choice(legal)
        actions.append(game.action_to_json(action))
        state.apply(action)
        steps += 1
    check_invariants(state)
    out = state.to_json()
    assert len(out["log"]) == len(actions)
    # every point is in the log or in a round settlement
    for name, score in out["scores"].items():
        logged = sum(e["points"] for e in out["log"] if e["player"] == name)
        settled = sum(r["points"].get(name, 0) for r in out["round_results"])
        assert score == logged + settled
    record = {"game": "triominos", "options": options, "seed": seed, "actions": actions}
    assert replay(record) == state


# ---------------------------------------------------------------- bot
def test_bot_plays_whole_games_legally_against_greedy() -> None:
    for seed in range(3):
        game = TriominosGame({"players": ["bot", "greedy"]})
        state = game.new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        kinds = set()
        while not state.is_terminal():
            if state.current_player() == "bot":
                action = choose(state, rng, 0.005)
                kinds.add(type(action).__name__)
            else:
                action = greedy_choose(state, rng)
            assert action in state.legal_actions()
            state.apply(action)
        assert "Place" in kinds


def test_bot_draws_then_passes_when_nothing_fits() -> None:
    rec = dict(BASE)
    rec["position"] = {**BASE["position"], "racks": {"Ana": ["4-4-5"], "Ben": ["3-3-3"]},
                       "pool": ["3-3-4", "3-4-4", "3-3-5", "5-5-5"]}
    rec["actions"] = []
    state = replay(rec)
    assert isinstance(state, TriominosState)
    for _ in range(3):
        assert choose(state, random.Random(0), 0.01) == Draw()
        state.apply(Draw())
    assert choose(state, random.Random(0), 0.01) == Pass()
    assert hint(state, 0.01)["action"] == {"pass": True}


def test_bot_hint_names_a_legal_action_and_why() -> None:
    state = TriominosGame().new_initial_state(random.Random(8))
    advice = hint(state, 0.05)
    assert state.game.parse_action(advice["action"]) in state.legal_actions()
    assert isinstance(advice["why"], str) and advice["why"]


def test_bot_worlds_keep_what_the_bot_sees_and_what_draws_tell() -> None:
    # Ben drew at the start of his turn: his old tiles fit nowhere on the board then
    rec = dict(BASE)
    rec["position"] = {**BASE["position"], "racks": {"Ana": ["1-2-2", "0-1-1"],
                                                     "Ben": ["3-3-3", "4-4-4"]},
                       "pool": ["5-5-5", "2-2-3"]}
    rec["actions"] = [{"place": {"cell": [0, 0, "down"], "corners": [1, 2, 2]}},
                      {"draw": True}, {"draw": True}]
    state = replay(rec)
    assert isinstance(state, TriominosState)
    hints = read_turns(state, 0)
    # Ben's two old tiles are among tiles that fit nowhere then
    old, nofit = hints[1]
    fitting = state.board.fitting_mask(state.tileset.fit)
    assert old == 2 and all(not state.tileset.tile_placements[t] & fitting for t in nofit)
    world = determinize(state, 0, random.Random(1), hints)
    assert world.racks[0] == state.racks[0] and len(world.racks[1]) == len(state.racks[1])
    assert len(world.pool) == len(state.pool)
    assert set(world.racks[1] + world.pool) <= set(unseen_tiles(state, 0))
    assert set(world.racks[1][:2]) <= set(nofit)


def test_tile_fit_masks_agree_with_a_direct_check() -> None:
    for ts in SETS.values():
        for a in range(7):
            for b in range(7):
                for c in range(7):
                    mask = ts.fit[(a * 7 + b) * 7 + c]
                    for p, rot in enumerate(ts.placement_corners):
                        direct = all(want in (got, 6) for want, got in zip((a, b, c), rot,
                                                                          strict=True))
                        assert bool(mask >> p & 1) == direct
                        assert canonical(rot) in ts.tiles
