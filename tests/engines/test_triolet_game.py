"""Triolet rules, one test per clause (docs/rules/triolet.md L1–L15), the special-cell
scoring cases, the worked example through `trigono replay`, malformed records, and a
seeded random playout (tokens conserved, replay equals state, generator complete)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engines.core import IllegalMoveError, RecordError
from engines.records import ReplayError, replay
from engines.triolet import Exchange, Pass, TrioletGame, TrioletState, parse_action
from engines.triolet.board import (
    ALL_TOKENS,
    JOKER,
    cell_index,
)
from tests.engines.command import trigono

ROOT = Path(__file__).resolve().parents[2]

WORKED_EXAMPLE: dict[str, Any] = {
    "game": "triolet",
    "seed": 3,
    "options": {"players": ["Ana", "Ben"]},
    "position": {
        "board": {"H8": 7},
        "racks": {"Ana": [8, 3, 2], "Ben": [4, 4, 1]},
        "bag": [5, 6, 9, 0, 10, 12, 1, 2, 3],
        "scores": {"Ana": 0, "Ben": 0},
        "to_move": "Ana",
    },
    "actions": [{"play": ["H9:8"]}, {"play": ["G8:4", "F8:4"]}],
}


def random_playout(
    seed: int, players: int = 2, stop_after: int | None = None
) -> tuple[TrioletState, list[object]]:
    """A seeded game of random legal actions (plays preferred to exchanges)."""
    names = [f"P{k + 1}" for k in range(players)]
    game = TrioletGame({"players": names})
    rng = random.Random(seed)
    state = game.new_initial_state(random.Random(seed))
    actions: list[object] = []
    while not state.is_terminal() and (stop_after is None or len(actions) < stop_after):
        legal = state.legal_actions()
        plays = [a for a in legal if "play" in str(game.action_to_json(a))]
        action = rng.choice(plays) if plays and rng.random() < 0.95 else rng.choice(legal)
        actions.append(game.action_to_json(action))
        state.apply(action)
    return state, actions


def setup(
    board: dict[str, Any],
    rack: list[Any],
    other: list[Any] | None = None,
    bag: list[Any] | None = None,
    **options: Any,
) -> TrioletState:
    """Ana to move with ``rack`` on ``board``; Ben holds ``other``."""
    record = {
        "game": "triolet",
        "options": {"players": ["Ana", "Ben"], **options},
        "position": {
            "board": board,
            "racks": {"Ana": rack, "Ben": other if other is not None else [1, 1, 1]},
            "bag": bag if bag is not None else [2, 2, 2, 3, 3, 3, 4, 4],
            "to_move": "Ana",
        },
    }
    state = replay(record)
    assert isinstance(state, TrioletState)
    return state


def play(state: TrioletState, *cells: str) -> int:
    """Apply a play and return its points (from the log)."""
    state.apply(parse_action({"play": list(cells)}))
    points = state.log[-1]["points"]
    assert isinstance(points, int)
    return points


def refused(state: TrioletState, *cells: str) -> str:
    before = state.dump()
    with pytest.raises(IllegalMoveError) as err:
        state.apply(parse_action({"play": list(cells)}))
    assert state.dump() == before, "a refused play changes nothing"
    return str(err.value)


def generated(state: TrioletState) -> set[tuple[str, ...]]:
    return {
        tuple(p.to_str() for p in state.play_action(pl).placements) for _, pl in state.plays()
    }


# --------------------------------------------------------------------------- clauses


def test_L2_tokens_and_deal() -> None:
    counts = Counter(ALL_TOKENS)
    assert len(ALL_TOKENS) == 83 and counts[JOKER] == 2
    assert [counts[v] for v in range(16)] == [9, 9, 8, 8, 7, 8, 6, 6, 4, 4, 3, 3, 2, 2, 1, 1]
    firsts = set()
    for seed in range(12):
        state = TrioletGame({"players": ["A", "B", "C", "D"]}).new_initial_state(
            random.Random(seed)
        )
        assert len(state.aside) == 3 and all(len(r) == 3 for r in state.racks)
        assert len(state.bag) == 83 - 3 - 12
        assert Counter(state.aside + state.bag + sum(state.racks, [])) == counts
        firsts.add(state.to_move)
    assert len(firsts) > 1, "the first player is drawn by lot"
    with pytest.raises(RecordError):
        TrioletGame({"players": ["A", "B", "C", "D", "E"]})


def test_L3_first_token_on_centre_and_refill() -> None:
    state = setup({}, [5, 10, 0], bag=[7, 8, 9])
    assert "centre" in refused(state, "H9:5")
    assert generated(state) and all(
        any(c.startswith("H8:") for c in p) for p in generated(state)
    )
    assert play(state, "H8:5", "H9:10") == 15 + 5  # the centre is a double
    assert sorted(state.racks[0]) == [0, 7, 8] and state.bag == [9]
    with pytest.raises(RecordError):
        parse_action({"play": ["H10:1", "H11:1", "H12:1", "H13:1"]})


def test_L4_contact() -> None:
    state = setup({"H8": 5}, [1, 2, 3])
    assert "touch" in refused(state, "J8:1")
    assert "touch" in refused(state, "I9:1")  # a diagonal never counts
    assert play(state, "I8:1") == 6


def test_L5_sets() -> None:
    state = setup({"H8": 9}, [7, 3, 6])
    assert "at most 15" in refused(state, "I8:7")
    assert "exactly 15" in refused(state, "I8:3", "J8:6")  # 9+3+6 = 18
    state = setup({"H8": 5, "I8": 4}, [6, 0, 1])
    assert play(state, "J8:6") == 30
    state = setup({"H8": 5, "I8": 4, "J8": 6}, [0, 1, 2])
    assert "run of 4" in refused(state, "K8:0")


def test_L6_shape() -> None:
    state = setup({"H8": 5}, [1, 2, 3])
    assert "one row or one column" in refused(state, "I8:1", "H9:2")
    state = setup({"H8": 5}, [4, 6, 5])
    assert "side by side" in refused(state, "G8:4", "I8:6", "J8:5")
    state = setup({"H8": 5}, [1, 2, 3])
    assert "gap" in refused(state, "I8:1", "K8:2")
    state = setup({"H8": 5}, [4, 6, 1])
    assert play(state, "G8:4", "I8:6") == 30  # two tokens around one token
    state = setup({"H8": 5}, [4, 6, 1])
    assert ("G8:4", "I8:6") in generated(state)


def test_L7_squares() -> None:
    state = setup({"H8": 1, "I8": 2, "H9": 3}, [4, 0, 0])
    assert "square" in refused(state, "I9:4")
    assert not any("I9:4" in p for p in generated(state))
    magic = {"G7": 2, "H7": 7, "I7": 6, "G8": 9, "I8": 1, "G9": 4, "H9": 3, "I9": 8}
    state = setup(magic, [5, 0, 0])
    assert "square" in refused(state, "H8:5")
    assert not any("H8:5" in p for p in generated(state))


def test_L8_pair_trio_and_lone_token() -> None:
    state = setup({"G9": 4}, [6, 1, 2])
    assert play(state, "G10:6") == 10  # pair: its sum
    state = setup({"G9": 4, "G10": 5}, [6, 1, 2])
    assert play(state, "G11:6") == 30  # trio: 30 whatever the values
    state = setup({}, [6, 1, 2])
    assert play(state, "H8:6") == 0  # lone first token [ours]
    state = setup({}, [6, 1, 2], lone_token="face")
    assert play(state, "H8:6") == 12  # variant: face value on the centre double
    assert state.plays()  # the generator sees the same board


def test_L9_triolet_bonus() -> None:
    state = setup({"H8": 0}, [4, 5, 6])
    assert play(state, "I8:4", "I9:5", "I10:6") == 30 + 4 + 50
    assert state.log[-1]["triolet"] is True


def test_L10_special_cells_count_once() -> None:
    record = json.loads(json.dumps(WORKED_EXAMPLE))
    state = replay(record)
    # H9:8 beside the covered centre double: 7 + 8 only.
    assert [e["points"] for e in state.log] == [15, 30]
    state = setup({"L7": 7}, [6, 1, 2])
    assert play(state, "L8:6") == 19
    assert state.log[-1]["sets"] == [{"cells": ["L7", "L8"], "sum": 13, "points": 19}]


def test_L11_play_again() -> None:
    state = setup({"B8": 5}, [6, 1, 2], bag=[9, 9, 9])
    assert play(state, "A8:6") == 11
    assert state.current_player() == "Ana" and state.log[-1]["again"] is True
    assert len(state.racks[0]) == 3
    play(state, "A9:1")
    assert state.current_player() == "Ben"


def test_L12_jokers() -> None:
    state = setup({"L7": 7}, ["J", 1, 2])
    assert play(state, "L8:J6") == 7  # a joker scores 0, even on a double
    assert state.to_json()["board"]["L8"] == "J6"
    assert state.board.value[cell_index("L8")] == 6  # its declared value stays
    state = setup({"H8": 0}, [4, 5, "J"])
    assert play(state, "I8:4", "I9:5", "I10:J6") == 34  # no Triolet bonus
    assert state.log[-1]["triolet"] is False
    state = setup({"H8": 5}, ["J", "J", 1])
    assert "both jokers" in refused(state, "G8:J4", "I8:J6")
    assert not any(p.count(":J") > 1 for p in map(" ".join, generated(state)))


def test_L13_exchange() -> None:
    state = setup({"H8": 5}, [15, 14, 1], bag=[0, 1, 2, 3, 4])
    state.apply(Exchange((15, 14)))
    assert sorted(state.racks[0]) == [0, 1, 1]  # drew first, then returned
    assert sorted(state.bag) == [2, 3, 4, 14, 15]
    assert state.current_player() == "Ben" and state.log[-1]["points"] == 0
    short = setup({"H8": 5}, [15, 14, 1], bag=[0, 1, 2, 3])
    with pytest.raises(IllegalMoveError, match="L13"):
        short.apply(Exchange((15,)))
    with pytest.raises(IllegalMoveError):
        state.apply(Exchange((9,)))  # Ben holds no 9


def test_L14_pass() -> None:
    state = setup({"H8": 5}, [1, 2, 3], other=[4, 4, 4], bag=[])
    with pytest.raises(IllegalMoveError, match="L14"):
        state.apply(Pass())
    state = setup({"H8": 15}, [14, 13], other=[0, 1, 1], bag=[])
    assert state.legal_actions() == [Pass()]
    state.apply(Pass())
    assert not state.is_terminal() and state.current_player() == "Ben"


def test_L15_going_out_and_blocked_game() -> None:
    state = setup({"H8": 5}, [4], other=[3, "J", 7], bag=[])
    assert play(state, "I8:4") == 9
    assert state.is_terminal() and state.scores() == {"Ana": 9 + 10, "Ben": 0}
    assert state.winner() == "Ana"
    state = setup({"H8": 15}, [14, 13], other=[12, 11, 10], bag=[])
    state.apply(Pass())
    assert state.is_terminal()
    assert state.scores() == {"Ana": -27, "Ben": -33} and state.winner() == "Ana"
    state = setup({"H8": 15}, [14, 13], other=[12, "J", 11], bag=[])
    state.apply(Pass())  # Ben's joker fits (J0 beside the 15): the game goes on
    assert not state.is_terminal() and state.current_player() == "Ben"


# --------------------------------------------------------------------------- scoring cases


@pytest.mark.parametrize(
    ("name", "board", "cells", "rack", "points"),
    [
        ("pair on double", {"L7": 7}, ["L8:6"], [6], 13 + 6),
        ("pair on triple", {"N4": 7}, ["N5:6"], [6], 13 + 12),
        ("two pairs on double", {"L7": 7, "M8": 5}, ["L8:6"], [6], 13 + 11 + 6),
        ("two pairs on triple", {"N4": 7, "O5": 5}, ["N5:6"], [6], 13 + 11 + 12),
        ("trio on double", {"L6": 4, "L7": 5}, ["L8:6"], [6], 60),
        ("trio on triple", {"N3": 4, "N4": 5}, ["N5:6"], [6], 90),
        ("trio and pair on double", {"L6": 4, "L7": 5, "M8": 3}, ["L8:6"], [6], 60 + 9),
        ("trio and pair on triple", {"N3": 4, "N4": 5, "O5": 3}, ["N5:6"], [6], 90 + 9),
        ("two trios on double", {"L6": 4, "L7": 5, "M8": 3, "N8": 6}, ["L8:6"], [6], 60 + 30),
        ("two trios on triple", {"N3": 4, "N4": 5, "M5": 3, "O5": 6}, ["N5:6"], [6], 90 + 30),
        ("joker pair on double", {"L7": 7}, ["L8:J6"], ["J"], 7),
        ("joker trio on triple", {"N3": 4, "N4": 5}, ["N5:J6"], ["J"], 90),
        ("joker beside trio on double", {"L6": "J4", "L7": 5}, ["L8:6"], [6], 60),
        ("triolet through double", {"M6": 1}, ["L6:4", "L7:5", "L8:6"], [4, 5, 6], 60 + 5 + 50),
        ("triolet with joker through double", {"M6": 1}, ["L6:4", "L7:5", "L8:J6"],
         [4, 5, "J"], 60 + 5),
        ("two pairs and a pair, on double", {"K7": 2, "K8": 3, "K12": 9}, ["L7:1", "L8:4"],
         [1, 4], 3 + 7 + 5 + 4),
    ],
)
def test_L10_scoring_cases(
    name: str, board: dict[str, Any], cells: list[str], rack: list[Any], points: int
) -> None:
    state = setup(board, rack + [0] * (3 - len(rack)))
    generated_points = {
        tuple(p.to_str() for p in state.play_action(pl).placements): pts
        for pts, pl in state.plays()
    }
    key = tuple(parse_action({"play": cells}).to_str().split())
    assert generated_points.get(key) == points, name
    assert play(state, *cells) == points, name


# --------------------------------------------------------------------------- records


def test_worked_example_via_trigono_replay() -> None:
    run = trigono("replay", "-", stdin=json.dumps(WORKED_EXAMPLE))
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout)
    assert state["status"] == "playing" and state["to_move"] == "Ana"
    assert state["scores"] == {"Ana": 15, "Ben": 30}
    assert [e["points"] for e in state["log"]] == [15, 30]
    assert {k: sorted(v) for k, v in state["racks"].items()} == {
        "Ana": [2, 3, 5],
        "Ben": [1, 6, 9],
    }
    assert state["bag_count"] == 6
    assert state["log"][1]["sets"] == [{"cells": ["F8", "G8", "H8"], "sum": 15, "points": 30}]


@pytest.mark.parametrize(
    ("actions", "index"),
    [
        ([{"play": ["H9:8"]}, {"play": ["Z9:1"]}], 1),
        ([{"play": ["H9:9"]}], 0),  # Ana holds no 9
        ([{"play": ["H9:8"]}, {"exchange": [4, 4, 1, 1]}], 1),
        ([{"pass": True}], 0),
        ([{"play": ["H9:8"], "pass": True}], 0),
        (["H9:8"], 0),
    ],
)
def test_malformed_records_exit_2(actions: list[Any], index: int) -> None:
    record = json.loads(json.dumps(WORKED_EXAMPLE))
    record["actions"] = actions
    run = trigono("replay", "-", stdin=json.dumps(record))
    assert run.returncode == 2 and run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"action {index}: ")


@pytest.mark.parametrize(
    "position",
    [
        {"board": {"H8": 16}},
        {"board": {"P8": 1}},
        {"board": {"H8": 15, "H9": 15}},  # there is one 15
        {"racks": {"Ana": [1, 2, 3, 4]}},
        {"racks": {"Zoé": [1]}},
        {"bag": ["J", "J", "J"]},
        {"colour": "red"},
    ],
)
def test_malformed_positions_are_refused(position: dict[str, Any]) -> None:
    with pytest.raises(ReplayError) as err:
        replay({"game": "triolet", "options": {"players": ["Ana", "Ben"]}, "position": position})
    assert err.value.index is None


# --------------------------------------------------------------------------- playouts


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4), (4, 2)])
def test_random_playout_conserves_tokens_and_replays(seed: int, players: int) -> None:
    state, actions = random_playout(seed, players)
    assert state.is_terminal()
    board = state.board
    on_board = [JOKER if board.joker[i] else board.value[i] for i in board.occupied]
    everything = on_board + state.bag + state.aside + sum(state.racks, [])
    assert len(everything) == 83 and len(state.aside) == 3
    assert Counter(everything) == Counter(ALL_TOKENS)
    record = {
        "game": "triolet",
        "seed": seed,
        "options": {"players": [f"P{k + 1}" for k in range(players)]},
        "actions": actions,
    }
    again = replay(record)
    assert again == state and again.to_json() == state.to_json()
    assert state.game.load(state.dump()) == state
    assert sum(e["points"] for e in state.log if e["player"] == "P1") <= state.score_list[0] + sum(
        state.rack_value(r) for r in state.racks
    )


def test_dump_load_and_clone_are_independent() -> None:
    state, _ = random_playout(5, 2, stop_after=10)
    twin = state.clone()
    assert twin == state
    twin.apply(twin.legal_actions()[0])
    assert twin != state
    loaded = state.game.load(state.dump())
    assert loaded.to_json() == state.to_json()
    with pytest.raises(RecordError):
        state.game.load({**state.dump(), "extra": 1})


def test_trigono_analyze_lists_the_best_plays() -> None:
    run = trigono("analyze", "-", "--budget", "0.1", stdin=json.dumps(WORKED_EXAMPLE))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["to_move"] == "Ana" and report["plays"] > 0
    state = replay(WORKED_EXAMPLE)
    legal = state.legal_actions()
    assert all(parse_action(b["action"]) in legal for b in report["best"])


def test_L15_stall_rounds_end_endless_exchanges() -> None:
    state = setup({"H8": 5}, [1, 2, 3], other=[4, 5, 6], bag=[0, 0, 1, 1, 2, 2])
    for _ in range(3):
        state.apply(Exchange((state.racks[state.to_move][0],)))
        assert not state.is_terminal()
    state.apply(Exchange((state.racks[state.to_move][0],)))  # two rounds without a token
    assert state.is_terminal()
    assert state.scores() == {
        "Ana": -state.rack_value(state.racks[0]),
        "Ben": -state.rack_value(state.racks[1]),
    }
