"""Triominos play (engines/triominos/game.py): rules M3–M14 (docs/rules/triominos.md), one
test or more per clause; records and `trigono replay`; seeded random playouts checked
against a brute-force move finder."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engines.core import GameOverError, IllegalMoveError, InvalidMoveError, RecordError
from engines.lattice import DOWN, UP, Cell, Vertex, cells_around, corners, edge_neighbours
from engines.records import ReplayError, replay
from engines.triominos import Draw, Pass, Place, TriominosGame, TriominosState, action_from_str
from engines.triominos.board import Board, cell_key, key_cell
from engines.triominos.tiles import EXCEL, canonical, rotations, tile_name
from tests.engines.command import trigono


def place(i: int, j: int, o: str, a: int, b: int, c: int) -> dict[str, Any]:
    return {"place": {"cell": [i, j, o], "corners": [a, b, c]}}


def record(
    board: list[tuple[Cell, tuple[int, int, int]]] | None = None,
    racks: dict[str, list[str]] | None = None,
    pool: list[str] | None = None,
    actions: list[Any] | None = None,
    scores: dict[str, int] | None = None,
    to_move: str = "Ana",
    **options: Any,
) -> dict[str, Any]:
    position: dict[str, Any] = {
        "board": [{"cell": c.to_json(), "corners": list(v)} for c, v in (board or [])],
        "racks": racks or {"Ana": ["4-4-5"], "Ben": ["3-3-3"]},
        "pool": pool if pool is not None else [],
        "to_move": to_move,
    }
    if scores is not None:
        position["scores"] = scores
    return {
        "game": "triominos",
        "seed": 1,
        "options": {"players": ["Ana", "Ben"], "set": "classic", **options},
        "position": position,
        "actions": actions or [],
    }


def play(rec: dict[str, Any]) -> TriominosState:
    state = replay(rec)
    assert isinstance(state, TriominosState)
    return state


def board_from_values(values: dict[Vertex, int], cells: list[Cell]) -> list[tuple[Cell, Any]]:
    return [(c, tuple(values[v] for v in corners(c))) for c in cells]


ZERO_UP = (Cell(0, 0, UP), (0, 1, 2))


def test_M1_mirror_tile_is_refused_in_classic_and_accepted_in_excel() -> None:
    rec = record([ZERO_UP], {"Ana": ["0-2-1"], "Ben": ["3-3-3"]})
    with pytest.raises(ReplayError, match="not in the classic set"):
        play(rec)
    rec["options"]["set"] = "excel"
    state = play(rec)
    # 0-2-1 fits the side 0–1 of 0-1-2 turned the other way: the mirror slot
    # 0-2-1 fits the slot D(-1, 0) that reads ?, 1, 0 clockwise: no classic tile does
    state.apply(Place(Cell(-1, 0, DOWN), (2, 1, 0)))
    assert state.log[-1]["points"] == 3


def test_M1_tiles_rotate_but_never_flip() -> None:
    # D(0, 0) reads 1, ?, 2 clockwise: 1-2-3 only fits it flipped (1-3-2)
    state = play(record([ZERO_UP], {"Ana": ["1-2-3"], "Ben": ["3-3-3"]}))
    legal = {a.to_str() for a in state.legal_actions() if isinstance(a, Place)}
    assert "0,0,down:1-3-2" not in legal  # a flipped 1-2-3
    with pytest.raises(IllegalMoveError, match="1-2-3|not in"):
        state.apply(Place(Cell(0, 0, DOWN), (1, 3, 2)))


# ---------------------------------------------------------------- M3 first player
@pytest.mark.parametrize("seed", range(40))
def test_M3_goliath_highest_draw_starts_and_ties_draw_again(seed: int) -> None:
    game = TriominosGame({"players": ["Ana", "Ben", "Cy"]})
    state = game.new_initial_state(random.Random(seed))
    draws = state.opening_draw
    first = state.current_player()
    assert first is not None
    # the starter's last draw beats every other draw of the last drawing round
    rounds = max(len(v) for v in draws.values())
    last = {p: sum(int(x) for x in v[-1].split("-")) for p, v in draws.items() if len(v) == rounds}
    assert max(last.values()) == last[first] and list(last.values()).count(last[first]) == 1
    for p, v in draws.items():  # earlier rounds were ties among those who drew again
        if rounds > 1 and len(v) == rounds:
            firsts = {q: sum(map(int, w[0].split("-"))) for q, w in draws.items()}
            assert firsts[p] == max(firsts.values())
    # the opening player must place (no draw), any tile of their rack, for its pip sum
    actions = state.legal_actions()
    assert actions and all(isinstance(a, Place) for a in actions)
    opening = max(actions, key=lambda a: sum(a.corners) if isinstance(a, Place) else 0)
    assert isinstance(opening, Place)
    state.apply(Place(Cell(5, -3, DOWN), opening.corners))  # anywhere on the table
    assert state.log[-1]["points"] == sum(opening.corners)


def test_M3_pressman_highest_triple_opens_with_ten_bonus() -> None:
    rec = record(racks={"Ana": ["2-2-2", "4-4-4", "0-1-2"], "Ben": ["5-5-5"]}, rules="pressman")
    state = play(rec)
    legal = [a for a in state.legal_actions()]
    assert {a.corners for a in legal if isinstance(a, Place)} == {(4, 4, 4)}
    with pytest.raises(IllegalMoveError, match="highest triple"):
        state.apply(Place(Cell(0, 0, UP), (2, 2, 2)))
    state.apply(Place(Cell(0, 0, UP), (4, 4, 4)))
    assert state.log[-1]["points"] == 22 and state.log[-1]["opening_bonus"] == 10


def test_M3_pressman_zero_triple_opening_scores_40() -> None:
    rec = record(racks={"Ana": ["0-0-0", "3-3-3"], "Ben": ["5-5-5"]}, pool=["1-1-1"],
                 rules="pressman")
    state = play(rec)
    assert {a.corners for a in state.legal_actions() if isinstance(a, Place)} == {
        (0, 0, 0), (3, 3, 3)}
    state.apply(Place(Cell(0, 0, UP), (0, 0, 0)))
    assert state.score_list[0] == 40


def test_M3_pressman_without_triples_highest_sum_opens_without_bonus() -> None:
    state = play(record(racks={"Ana": ["1-2-3", "4-4-5"], "Ben": ["0-0-1"]}, rules="pressman"))
    assert {a.corners for a in state.legal_actions() if isinstance(a, Place)} == {
        (4, 4, 5), (4, 5, 4), (5, 4, 4)}
    state.apply(Place(Cell(0, 0, UP), (4, 4, 5)))
    assert state.score_list[0] == 13


# ---------------------------------------------------------------- M4 matching
def test_M4_a_side_must_match() -> None:
    state = play(record([ZERO_UP], {"Ana": ["1-2-2", "4-4-5"], "Ben": ["3-3-3"]}))
    with pytest.raises(IllegalMoveError, match="corner 0 is 2 but touches a 1"):
        state.apply(Place(Cell(0, 0, DOWN), (2, 2, 1)))
    state.apply(Place(Cell(0, 0, DOWN), (1, 2, 2)))
    assert state.log[-1]["points"] == 5


def test_M4_point_contact_alone_is_not_enough() -> None:
    # (1, 0, up) touches 0-1-2 only at V(1, 0)
    state = play(record([ZERO_UP], {"Ana": ["2-3-4"], "Ben": ["3-3-3"]}))
    with pytest.raises(IllegalMoveError, match="shares no side"):
        state.apply(Place(Cell(1, 0, UP), (2, 3, 4)))


def test_M4_point_contacts_must_match_too() -> None:
    # slot D(0, -1): corners V(0,0)=0, V(1,0)=2 (its side on 0-1-2) and V(1,-1), which
    # D(0,-2) = 4-5-3 touches at a point only, with a 5
    board = [ZERO_UP, (Cell(0, -2, DOWN), (4, 5, 3))]
    state = play(record(board, {"Ana": ["0-2-4", "0-2-5"], "Ben": ["5-5-5"]}))
    with pytest.raises(IllegalMoveError, match="corner 2 is 4 but touches a 5"):
        state.apply(Place(Cell(0, -1, DOWN), (0, 2, 4)))
    legal = {a.to_str() for a in state.legal_actions() if isinstance(a, Place)}
    assert "0,-1,down:0-2-5" in legal and "0,-1,down:0-2-4" not in legal
    state.apply(Place(Cell(0, -1, DOWN), (0, 2, 5)))


def test_M4_covered_cell_and_foreign_tile_are_refused_and_change_nothing() -> None:
    state = play(record([ZERO_UP], {"Ana": ["1-2-2"], "Ben": ["3-3-3"]}))
    before = state.dump()
    with pytest.raises(IllegalMoveError, match="already covered"):
        state.apply(Place(Cell(0, 0, UP), (1, 2, 2)))
    with pytest.raises(IllegalMoveError, match="does not hold 3-3-3"):
        state.apply(Place(Cell(0, 0, DOWN), (3, 3, 3)))
    assert state.dump() == before


def test_M4_every_vertex_holds_one_number_after_any_game() -> None:
    state = TriominosGame().new_initial_state(random.Random(9))
    rng = random.Random(9)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    seen: dict[Vertex, int] = {}
    for entry in state.to_json()["board"]:
        cell = Cell.from_json(entry["cell"])
        for v, value in zip(corners(cell), entry["corners"], strict=True):
            assert seen.setdefault(v, value) == value


# ---------------------------------------------------------------- M5 score
def test_M5_placement_scores_its_three_numbers() -> None:
    state = play(record([ZERO_UP], {"Ana": ["0-2-5", "0-0-1"], "Ben": ["3-3-3"]}))
    state.apply(Place(Cell(0, -1, DOWN), (0, 2, 5)))
    assert state.log[-1] == {"player": "Ana", "action": place(0, -1, DOWN, 0, 2, 5),
                             "points": 7, "bonus": None}


# ---------------------------------------------------------------- M6 hexagons
def _hexagon_values(center: Vertex, tileset: Any, seed: int, extra: int = 0) -> Any:
    """Vertex numbers round ``center`` such that the cells around it are distinct tiles."""
    rng = random.Random(seed)
    ring = sorted({v for c in cells_around(center) for v in corners(c)})
    for _ in range(20000):
        values = {v: rng.randrange(6) for v in ring}
        tiles = [canonical(tuple(values[v] for v in corners(c))) for c in cells_around(center)]
        if len(set(tiles)) == 6 and all(tileset.find(t) is not None for t in tiles):
            return values
    raise AssertionError("no hexagon found")


@pytest.mark.parametrize("missing", range(6))
def test_M6_hexagon_scores_50_whichever_cell_completes_it(missing: int) -> None:
    center = Vertex(0, 0)
    values = _hexagon_values(center, EXCEL, missing)
    ring = list(cells_around(center))
    last = ring.pop(missing)
    vals = tuple(values[v] for v in corners(last))
    state = _excel(board_from_values(values, ring), [tile_name(canonical(vals))])
    state.apply(Place(last, vals))  # type: ignore[arg-type]
    assert state.log[-1]["bonus"] == "hexagon"
    assert state.log[-1]["points"] == sum(vals) + 50


def _multi_hexagon(centers: list[Vertex], seed: int) -> tuple[list[Any], Cell, Any]:
    """Numbers for every cell round ``centers`` (distinct excel tiles); all but the one
    cell shared by every centre go on the board."""
    cells = sorted({c for v in centers for c in cells_around(v)})
    last = next(c for c in cells if all(c in cells_around(v) for v in centers))
    verts = sorted({v for c in cells for v in corners(c)})
    rng = random.Random(seed)
    for _ in range(200000):
        values = {v: rng.randrange(6) for v in verts}
        tiles = [canonical(tuple(values[v] for v in corners(c))) for c in cells]
        if len(set(tiles)) == len(tiles):
            rest = [c for c in cells if c != last]
            return board_from_values(values, rest), last, tuple(values[v] for v in corners(last))
    raise AssertionError("no layout found")


def test_M6_double_hexagon_scores_60() -> None:
    board, last, vals = _multi_hexagon([Vertex(0, 0), Vertex(0, 1)], 1)
    state = _excel(board, [tile_name(canonical(vals))])
    state.apply(Place(last, vals))
    assert state.log[-1]["bonus"] == "double_hexagon"
    assert state.log[-1]["points"] == sum(vals) + 60


def test_M6_triple_hexagon_scores_70() -> None:
    up = Cell(0, 0, UP)
    board, last, vals = _multi_hexagon(list(corners(up)), 3)
    assert last == up
    state = _excel(board, [tile_name(canonical(vals))])
    state.apply(Place(last, vals))
    assert state.log[-1]["bonus"] == "triple_hexagon"
    assert state.log[-1]["points"] == sum(vals) + 70


def _excel(board: list[Any], rack: list[str]) -> TriominosState:
    """An excel position with this board, Ana holding ``rack`` plus a spare tile."""
    used = {canonical(v) for _, v in board} | {canonical(tuple(map(int, r.split("-"))))
                                               for r in rack}
    spare = [tile_name(t) for t in EXCEL.tiles if t not in used]
    return play(record(board, {"Ana": rack + spare[:1], "Ben": spare[1:2]}, set="excel"))


# ---------------------------------------------------------------- M7 bridge
def test_M7_bridge_scores_40() -> None:
    # 0-1-2 at U(0,0); 2-3-4 at U(2,-1) touches V(2,-1)... build: a side on U(0,0) and the
    # opposite corner on a tile met only at a point.
    # D(0,0) corners V(0,1), V(1,1), V(1,0): side V(0,1)-V(1,0) on U(0,0); corner V(1,1)
    # touches U(1,1) (corners V(1,1), V(1,2), V(2,1)) at a point only.
    board = [ZERO_UP, (Cell(1, 1, UP), (3, 4, 5))]
    state = play(record(board, {"Ana": ["1-3-2", "0-0-0"], "Ben": ["5-5-5"]}, set="excel"))
    state.apply(Place(Cell(0, 0, DOWN), (1, 3, 2)))
    assert state.log[-1]["bonus"] == "bridge" and state.log[-1]["points"] == 6 + 40


def test_M7_no_bridge_when_a_flank_is_covered() -> None:
    # as above, plus U(0,1) beside the bridge corner: D(0,0) then matches two sides
    board = [ZERO_UP, (Cell(1, 1, UP), (3, 4, 5)), (Cell(0, 1, UP), (1, 5, 3))]
    state = play(record(board, {"Ana": ["1-3-2", "0-0-0"], "Ben": ["5-5-5"]}, set="excel"))
    state.apply(Place(Cell(0, 0, DOWN), (1, 3, 2)))
    assert state.log[-1]["bonus"] is None and state.log[-1]["points"] == 6


def test_M7_pressman_option_pays_the_notch_under_a_bridge() -> None:
    # the two-side case above: D(0,0) fills the notch between U(0,1) and U(0,0) while
    # U(1,1) touches its corner V(1,1) at a point
    board = [ZERO_UP, (Cell(1, 1, UP), (3, 4, 5)), (Cell(0, 1, UP), (1, 5, 3))]
    for option in ("goliath", "pressman"):
        rec = record(board, {"Ana": ["1-3-2", "0-0-0"], "Ben": ["5-5-5"]}, set="excel",
                     bridge=option)
        state = play(rec)
        state.apply(Place(Cell(0, 0, DOWN), (1, 3, 2)))
        expected = "bridge" if option == "pressman" else None
        assert state.log[-1]["bonus"] == expected
        assert state.log[-1]["points"] == 6 + (40 if expected else 0)


# ---------------------------------------------------------------- M8 precedence
def test_M8_hexagon_takes_precedence_and_bonuses_do_not_stack() -> None:

    # Six cells round V(0,0), all zeros; a point contact at the last cell's far corner.
    board = Board()
    ring = list(cells_around(Vertex(0, 0)))
    last = ring.pop(0)  # U(0,0): corners V(0,0), V(0,1), V(1,0)
    for c in ring:
        board.place(cell_key(c), (0, 0, 0))
    board.place(cell_key(Cell(1, 0, UP)), (0, 0, 0))  # touches V(1,0) at a point
    assert board.bonus(cell_key(last), pressman_bridge=True) == "hexagon"
    # without the hexagon the same tile would be a (Pressman) bridge
    board.remove(cell_key(ring[1]))  # U(-1, 0): not beside the last cell
    assert board.bonus(cell_key(last), pressman_bridge=True) == "bridge"


# ---------------------------------------------------------------- M9 drawing
def test_M9_draw_costs_5_and_the_drawn_tile_may_be_played_at_once() -> None:
    state = play(record([ZERO_UP], {"Ana": ["4-4-5"], "Ben": ["3-3-3"]}, ["1-2-2", "5-5-5"]))
    state.apply(Draw())
    assert state.score_list[0] == -5 and state.current_player() == "Ana"
    state.apply(Place(Cell(0, 0, DOWN), (1, 2, 2)))
    assert state.score_list[0] == 0 and state.current_player() == "Ben"


def test_M9_after_a_draw_only_the_drawn_tile_may_be_placed() -> None:
    # Ana could place 1-2-2 but draws instead: now only the drawn 0-2-5 may go down
    state = play(record([ZERO_UP], {"Ana": ["1-2-2"], "Ben": ["3-3-3"]}, ["0-2-5", "5-5-5"]))
    state.apply(Draw())
    placements = {a.to_str() for a in state.legal_actions() if isinstance(a, Place)}
    assert placements == {"0,-1,down:0-2-5"}
    with pytest.raises(IllegalMoveError, match=r"only the tile just drawn \(0-2-5\)"):
        state.apply(Place(Cell(0, 0, DOWN), (1, 2, 2)))
    state.apply(Draw())  # 5-5-5 fits nowhere and the pool is empty: a free pass (M10),
    assert state.legal_actions() == [Pass()]  # though 1-2-2 in the rack would fit
    state.apply(Pass())
    assert state.score_list[0] == -10 and not state.is_terminal()


def test_M9_drawing_is_allowed_even_with_a_legal_placement() -> None:
    state = play(record([ZERO_UP], {"Ana": ["1-2-2"], "Ben": ["3-3-3"]}, ["5-5-5"]))
    assert Draw() in state.legal_actions()
    assert Pass() not in state.legal_actions()


def test_M9_three_draws_then_pass_costs_25() -> None:
    pool = ["3-3-4", "3-4-4", "3-3-5", "5-5-5"]
    state = play(record([ZERO_UP], {"Ana": ["4-4-5"], "Ben": ["3-3-3"]}, pool))
    with pytest.raises(IllegalMoveError, match="must place or draw"):
        state.apply(Pass())
    for _ in range(3):
        state.apply(Draw())
    with pytest.raises(IllegalMoveError, match="already drew 3"):
        state.apply(Draw())
    assert state.legal_actions() == [Pass()]
    state.apply(Pass())
    assert state.score_list[0] == -25 and [e["points"] for e in state.log] == [-5, -5, -5, -10]
    assert state.current_player() == "Ben" and state.draws == 0


# ---------------------------------------------------------------- M10 empty pool
def test_M10_empty_pool_pass_is_free_and_only_when_stuck() -> None:
    rack = {"Ana": ["4-4-5"], "Ben": ["1-2-2", "3-3-3"]}
    state = play(record([ZERO_UP], rack, []))
    assert state.legal_actions() == [Pass()]
    state.apply(Pass())
    assert state.score_list[0] == 0 and state.log[-1]["points"] == 0
    with pytest.raises(IllegalMoveError, match="can still place"):
        state.apply(Pass())


def test_M10_pressman_empty_pool_pass_costs_10() -> None:
    rack = {"Ana": ["4-4-5"], "Ben": ["1-2-2", "3-3-3"]}
    state = play(record([ZERO_UP], rack, [], rules="pressman"))
    state.apply(Pass())
    assert state.score_list[0] == -10


# ---------------------------------------------------------------- M11 going out
def test_M11_going_out_scores_25_plus_the_opponents_tiles() -> None:
    rec = record([ZERO_UP], {"Ana": ["1-2-2"], "Ben": ["3-3-3", "0-0-5"]}, ["5-5-5"],
                 [place(0, 0, DOWN, 1, 2, 2)], scores={"Ana": 10, "Ben": 20})
    state = play(rec)
    out = state.to_json()
    assert out["status"] == "over" and out["to_move"] is None
    assert out["log"][-1]["points"] == 5  # the settlement is not in the action's points
    assert out["scores"] == {"Ana": 10 + 5 + 25 + 14, "Ben": 20}
    assert out["winner"] == "Ana"
    assert out["round_results"][0]["end"] == "out"
    with pytest.raises(GameOverError):
        state.apply(Draw())
    assert state.legal_actions() == []


# ---------------------------------------------------------------- M12 blocked
def test_M12_blocked_round_everyone_subtracts_their_own_tiles() -> None:
    rec = record([ZERO_UP], {"Ana": ["4-4-5"], "Ben": ["3-3-3", "0-0-5"]}, [],
                 [{"pass": True}], scores={"Ana": 30, "Ben": 30})
    out = play(rec).to_json()
    # after Ana's pass nobody can play: over, each loses their own hand
    assert out["status"] == "over"
    assert out["scores"] == {"Ana": 30 - 13, "Ben": 30 - 14}
    assert out["round_results"][0]["end"] == "blocked"


def test_M12_pressman_lowest_hand_scores_the_others_minus_its_own() -> None:
    rec = record([ZERO_UP], {"Ana": ["4-4-5"], "Ben": ["3-3-3", "0-0-5"]}, [],
                 [{"pass": True}], scores={"Ana": 30, "Ben": 30}, blocked="lowest_wins")
    out = play(rec).to_json()
    assert out["scores"] == {"Ana": 30 + 14 - 13, "Ben": 30}
    assert out["winner"] == "Ana"


# ---------------------------------------------------------------- M13 match
def test_M13_match_plays_rounds_until_a_target_is_reached() -> None:
    game = TriominosGame({"players": ["Ana", "Ben"], "target": 150})
    state = game.new_initial_state(random.Random(4))
    rng = random.Random(4)
    rounds_seen = {1}
    while not state.is_terminal():
        before = state.round
        state.apply(rng.choice(state.legal_actions()))
        if state.round != before:
            # a fresh deal: empty table, full racks, the scores carried over
            assert len(state.board) == 0 and [len(r) for r in state.racks] == [9, 9]
            rounds_seen.add(state.round)
    assert max(state.score_list) >= 150
    assert len(state.round_results) == state.round
    assert state.winner() == state.players[state.score_list.index(max(state.score_list))]
    assert len(rounds_seen) == state.round


def test_M13_without_target_one_round_ends_the_game() -> None:
    state = TriominosGame().new_initial_state(random.Random(5))
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    assert state.round == 1 and len(state.round_results) == 1


# ---------------------------------------------------------------- M14 young players
def test_M14_young_players_tile_1_bonus_1_out_5_no_penalties() -> None:
    board = [ZERO_UP, (Cell(1, 1, UP), (3, 4, 5))]
    rec = record(board, {"Ana": ["1-3-2", "0-0-0"], "Ben": ["5-5-5"]}, ["2-2-2"],
                 set="excel", young=True)
    state = play(rec)
    state.apply(Place(Cell(0, 0, DOWN), (1, 3, 2)))  # a bridge: 1 + 1
    assert state.log[-1]["points"] == 2 and state.log[-1]["bonus"] == "bridge"
    state.apply(Draw())
    assert state.log[-1]["points"] == 0
    rec2 = record([ZERO_UP], {"Ana": ["1-2-2"], "Ben": ["5-5-5"]}, [],
                  [place(0, 0, DOWN, 1, 2, 2)], young=True)
    assert play(rec2).score_list == [1 + 5, 0]


ROOT = Path(__file__).resolve().parents[2]


RECORDS = ROOT / "tests" / "records"


# ---------------------------------------------------------------- records
def test_records_worked_example_replays_through_the_cli() -> None:
    example = json.loads((RECORDS / "triominos-match-and-draw.json").read_text())
    expect = example.pop("expect")
    done = trigono("replay", "-", stdin=json.dumps(example))
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
    done = trigono("replay", "-", stdin=json.dumps(_broken(change)))
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
