"""Trike rules (docs/rules/trike.md K1–K6), records (docs/records.md § Trike) and the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engines.core import GameOverError, IllegalMoveError, InvalidMoveError, RecordError
from engines.records import replay
from engines.trike import TrikeAction, TrikeGame, TrikeState
from engines.trike.board import geometry
from tests.engines.command import trigono

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"


def play(size: int, cells: list[str], **options: Any) -> TrikeState:
    game = TrikeGame({"size": size, **options})
    state = game.new_initial_state(random.Random(0))
    for cell in cells:
        state.apply(game.parse_action(cell))
    return state


# ---------------------------------------------------------------- K2 opening
def test_K2_opening_anywhere_black_stone_and_pawn() -> None:
    state = play(7, [])
    assert len(state.legal_actions()) == 28 and state.current_player() == "black"
    state.apply(TrikeAction(geometry(7).index("g7")))
    out = state.to_json()
    assert out["stones"] == {"g7": "black"} and out["pawn"] == "g7"
    assert out["to_move"] == "white" and not state.is_terminal()


# ---------------------------------------------------------------- K3 pie rule
def test_K3_swap_only_as_second_action() -> None:
    state = play(5, ["c2"])
    assert state.to_json()["legal_moves"][-1] == "swap"
    state.apply(TrikeGame({"size": 5}).parse_action("swap"))
    out = state.to_json()
    assert out["colors"] == {"black": "white", "white": "black"}
    assert out["stones"] == {"c2": "black"} and out["pawn"] == "c2"
    # the same colour (White) moves, now played by the first player
    assert out["to_move"] == "black" and "swap" not in out["legal_moves"]
    before = state.dump()
    with pytest.raises(IllegalMoveError):
        state.apply(TrikeAction(None))
    assert state.dump() == before
    state.apply(TrikeAction(geometry(5).index("d2")))
    assert state.to_json()["stones"]["d2"] == "white"
    with pytest.raises(IllegalMoveError):
        play(5, []).apply(TrikeAction(None))  # not before the opening
    with pytest.raises(IllegalMoveError):
        play(5, ["c2", "d2", "swap"])  # not later
    assert "swap" not in play(5, ["c2"], pie=False).to_json()["legal_moves"]


# ---------------------------------------------------------------- K4 moves
def test_K4_golden_legal_move_counts() -> None:
    # On an empty board every cell (r, c) sees c + (r-c) + c + (r-c) + 2(n-1-r) = 2(n-1).
    for size in (3, 9, 13, 19):
        for name in ("a1", geometry(size).names[-1], "c2"):
            assert len(play(size, [name]).target_cells()) == 2 * (size - 1)
    assert len(play(13, ["g4"], pie=True).legal_actions()) == 25  # 24 cells + swap
    # side 5: pawn c2 (black), white d2 and b1: the pawn reaches b2, c1, c3, d3, e4
    game = TrikeGame({"size": 5})
    state = game.new_initial_state(
        random.Random(0), {"stones": {"c2": "black", "d2": "white", "b1": "white"}, "pawn": "c2"}
    )
    assert state.to_json()["legal_moves"] == ["b2", "c1", "c3", "d3", "e4"]
    assert state.current_player() == "white"
    # the worked example trike-swap.json
    assert play(5, ["c2", "swap", "d2", "e2", "e1", "d1"], players=["Ana", "Ben"]).to_json()[
        "legal_moves"] == ["a1", "b1", "c1"]


def test_K4_cannot_pass_over_or_land_on_a_stone_and_no_pass() -> None:
    state = play(5, ["a1", "c1"])  # a1 black, c1 white; pawn c1
    before = state.dump()
    for bad in ("a1", "c1", "e4"):  # a1 occupied; c1 under the pawn; e4 off every line
        with pytest.raises(IllegalMoveError):
            state.apply(TrikeGame({"size": 5}).parse_action(bad))
    assert state.dump() == before
    assert "a1" in play(5, ["c1"]).to_json()["legal_moves"]  # c1 -> b1 -> a1, all empty
    state = play(5, ["b1", "c1"])  # pawn c1, b1 blocks the line to a1
    assert "a1" not in state.to_json()["legal_moves"]
    with pytest.raises(InvalidMoveError):
        state.apply(state.parse_action("pass"))


# ---------------------------------------------------------------- K5 end
def test_K5_game_ends_when_pawn_has_no_empty_neighbour() -> None:
    state = play(3, ["b1", "c1", "c2", "b2"])
    assert not state.is_terminal()
    state.apply(TrikeAction(0))  # a1: both neighbours full
    assert state.is_terminal() and state.legal_actions() == [] and state.current_player() is None
    with pytest.raises(GameOverError):
        state.apply(TrikeAction(5))
    # a pawn with only a far cell on a line is not blocked: a one-step move exists iff
    # a neighbour is empty
    state = play(4, ["a1", "b1", "b2"])
    assert not state.is_terminal()


# ---------------------------------------------------------------- K6 score
def test_K6_score_counts_pawn_cell_and_neighbours() -> None:
    state = play(3, ["b1", "c1", "c2", "b2", "a1"])
    assert state.scores() == {"black": 2, "white": 1} and state.winner() == "black"
    out = state.to_json()
    assert out["status"] == "over" and out["to_move"] is None and out["winner"] == "black"
    assert [e["points"] for e in out["log"]] == [0] * 5


def test_K6_scores_follow_players_after_swap() -> None:
    # Ben swaps and becomes Black; the game then ends in the a1 corner.
    state = play(3, ["b1", "swap", "c1", "c2", "b2", "a1"], players=["Ana", "Ben"])
    assert state.is_terminal()
    # stones: b1 Black (Ben), c1 White (Ana), c2 Black (Ben), b2 White (Ana), a1 Black (Ben)
    assert state.scores() == {"Ana": 1, "Ben": 2} and state.winner() == "Ben"


# ---------------------------------------------------------------- records and CLI
def _example(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = json.loads((RECORDS / name).read_text())
    return record, record.pop("expect")


@pytest.mark.parametrize("name", ["trike-short-game.json", "trike-swap.json"])
def test_examples_replay_via_cli(name: str) -> None:
    record, expect = _example(name)
    done = trigono("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    for field, value in expect.items():
        assert out[field] == value, field
    assert replay(record).to_json() == out


def test_replay_illegal_action_exits_2_naming_it() -> None:
    record = {"game": "trike", "options": {"size": 5}, "actions": ["c2", "d2", "swap"]}
    done = trigono("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().startswith("action 2:")
    bad = {"game": "trike", "options": {"size": 5, "colour": 1}, "actions": []}
    done = trigono("replay", "-", stdin=json.dumps(bad))
    assert done.returncode == 2 and "colour" in done.stderr


def test_analyze_examples_via_cli() -> None:
    record, _ = _example("trike-swap.json")
    done = trigono("analyze", "-", "--budget", "5", stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["to_move"] == "Ana" and set(out["moves"]) == {"a1", "b1", "c1"}
    assert set(out["moves"].values()) <= {"win", "loss"}  # side 5 is solved in 5 s
    record, _ = _example("trike-short-game.json")
    out = json.loads(trigono("analyze", "-", stdin=json.dumps(record)).stdout)
    assert out == {"to_move": None, "moves": {}}
    # the solved side-3 facts, with and without the pie rule
    for pie, labels in ((False, ["loss", "win", "win", "loss", "win", "loss"]), (True, ["loss"] * 6)):
        record = {"game": "trike", "options": {"size": 3, "pie": pie}, "actions": []}
        out = json.loads(trigono("analyze", "-", stdin=json.dumps(record)).stdout)
        assert list(out["moves"].values()) == labels


def test_dump_load_and_clone() -> None:
    state = play(6, ["c2", "swap", "d2", "e2"], players=["Ana", "Ben"])
    game = state.game
    again = game.load(json.loads(json.dumps(state.dump())))
    assert again == state and again.to_json() == state.to_json()
    copy = state.clone()
    copy.apply(copy.legal_actions()[0])
    assert copy != state and len(state.log) == 4
    with pytest.raises(RecordError):
        game.load({"options": {}})


def test_position_is_validated() -> None:
    game = TrikeGame({"size": 5})
    for bad in ({"stones": {"z9": "black"}, "pawn": "z9"}, {"stones": {"a1": "red"}, "pawn": "a1"},
                {"stones": {"a1": "black"}}, {"stones": {"a1": "black"}, "pawn": "b1"},
                {"stones": {}, "extra": 1}):
        with pytest.raises(RecordError):
            game.new_initial_state(random.Random(0), bad)


# ---------------------------------------------------------------- random playouts
@pytest.mark.parametrize("size", [3, 4, 7, 13, 19])
def test_seeded_random_playouts_keep_the_invariants(size: int) -> None:
    rng = random.Random(size)
    for _ in range(15):
        game = TrikeGame({"size": size, "pie": rng.random() < 0.5})
        state = game.new_initial_state(rng)
        actions: list[str] = []
        last = None
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            state.apply(action)
            actions.append(action.to_str())
            if action.cell is not None:
                last = action.cell
            out = state.to_json()
            cells = geometry(size).cells
            empty = sum(1 for i in range(cells) if not state.occupied >> i & 1)
            assert len(out["stones"]) + empty == cells
            assert state.occupied.bit_count() == len([a for a in actions if a != "swap"])
            assert state.pawn == last  # the pawn is always on the last stone
        scores = state.scores()
        assert sum(scores.values()) in (3, 5, 7) and len(set(scores.values())) == 2  # no draw
        assert len(actions) >= 3  # the shortest game is 3 moves
        record = {"game": "trike", "options": game.options_json(), "actions": actions}
        assert replay(record) == state
