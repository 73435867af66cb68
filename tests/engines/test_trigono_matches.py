"""Trigono: whole scripted matches (2, 3, 5, 6 players, hexagon), the worked examples,
the shipped sample match and seeded random playouts checked after every action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engines.records import ReplayError, replay
from engines.trigono import (
    TrigonoState,
    hexagon_boards,
)
from tests.engines.trigono_setups import TWO_BOARDS, TWO_HEXAGONS, play, start

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"


def out(state: TrigonoState) -> dict[str, Any]:
    return state.to_json()


# -- scripted matches ------------------------------------------------------------------------


def test_T14_T18_two_player_match_with_last_chances_and_a_draw() -> None:
    s = start({"players": ["Ana", "Ben"], "first": "Ana", "palets_per_player": 3})
    play(s, "Ana>floor Ben>B1.small Ana>board:B1 Ben>floor Ana>floor")
    assert out(s)["round_results"] == [{"winner": "Ben"}]
    assert (s.round, s.current_player(), s.hands) == (2, "Ben", {"Ana": 3, "Ben": 3})
    play(s, "Ben>floor Ana>floor Ben>floor Ana>floor Ben>floor")
    assert (s.phase, s.current_player(), s.hands) == ("last_chance", "Ana", {"Ana": 1, "Ben": 0})
    play(s, "Ana>B1.small")  # the floor (5) and her own
    assert s.log[-1]["points"] == 6 and s.rounds_won == {"Ana": 1, "Ben": 1}
    play(s, "Ana>floor Ben>floor Ana>floor Ben>floor Ana>floor Ben>board:B1")
    assert out(s)["round_results"][-1] == {"draw": True} and s.current_player() == "Ana"
    play(s, "Ana>B1.big Ben>floor Ana>floor Ben>floor Ana>floor Ben>floor Ana>B1.small")
    final = out(s)
    assert final["status"] == "match_over" and final["winner"] == "Ana"
    assert final["scores"] == {"Ana": 2, "Ben": 1} and final["round"] == 4
    assert final["eliminated"] == [] and final["to_move"] is None


def test_T15_three_player_match_on_one_board() -> None:
    s = start({"players": ["A", "B", "C"], "first": "A", "palets_per_player": 2})
    play(s, "A>board:B1 B>floor C>B1.big A>floor")
    assert out(s)["eliminated"] == ["A"] and s.current_player() == "B"
    play(s, "B>B1.small")  # B's last palet, but it takes the floor: B stays in
    assert s.hands == {"A": 0, "B": 3, "C": 3} and s.eliminated == ["A"]
    play(s, "C>floor B>floor C>floor B>floor C>floor")
    assert (s.phase, s.current_player(), s.eliminated) == ("last_chance", "B", ["A", "C"])
    play(s, "B>B1.small")
    assert s.round_results == [{"winner": "B"}] and s.current_player() == "B"
    play(s, "B>floor C>floor A>floor B>floor C>floor A>floor")
    assert s.round_results[-1] == {"draw": True} and s.current_player() == "B"
    play(s, "B>B1.small C>floor A>floor B>floor C>floor A>floor B>B1.small")
    assert s.winner() == "B" and s.rounds_won == {"A": 0, "B": 2, "C": 0}


def test_T16_T17_five_player_match_on_two_boards() -> None:
    s = start(
        {"players": list("ABCDE"), "boards": TWO_BOARDS, "first": "A", "palets_per_player": 1}
    )
    play(s, "A>floor B>floor C>B1.small D>floor")
    state = out(s)
    assert state["eliminated"] == ["A", "B", "D"] and state["throw_distance_m"] == 3.9
    assert (state["phase"], state["to_move"], state["finalists"]) == ("final", "C", ["C", "E"])
    play(s, "target:B2.big C>B2.big")
    assert s.round_results == [{"winner": "C"}] and out(s)["throw_distance_m"] == 3.0
    play(s, "C>floor D>floor E>floor")  # A and B, 1 each: A throws next and chooses
    assert (s.phase, s.current_player()) == ("final", "A")
    play(s, "target:B1.big A>board:B1")
    assert s.round_results[-1] == {"winner": "B"} and s.current_player() == "B"
    play(s, "B>floor C>B1.small D>floor E>floor")
    assert (s.phase, s.current_player(), s.finalists) == ("final", "C", ["C", "A"])
    play(s, "target:B1.big C>floor A>floor")
    assert s.winner() == "C" and out(s)["status"] == "match_over"


def test_T16_T17_six_player_match_on_two_boards() -> None:
    s = start(
        {
            "players": list("ABCDEF"),
            "boards": TWO_BOARDS,
            "first": "A",
            "palets_per_player": 2,
            "rounds_to_win": 1,
        }
    )
    play(s, "A>floor B>floor C>floor D>floor E>floor F>floor A>B2.small")
    assert s.hands["A"] == 7 and s.log[-1]["points"] == 7
    play(s, "B>floor C>floor D>floor E>floor")
    state = out(s)
    assert state["throw_distance_m"] == 4.2 and state["finalists"] == ["A", "F"]
    play(s, "target:B2.small A>floor F>B2.small~")  # F's last palet is not a valid drop
    assert s.winner() == "A" and s.round_results == [{"winner": "A"}]


def test_T8_T17_T20_hexagon_match_jackpot_and_final() -> None:
    s = start(
        {
            "players": list("ABCDEF"),
            "boards": hexagon_boards(),
            "first": "A",
            "palets_per_player": 2,
            "rounds_to_win": 1,
        }
    )
    play(s, "A>board:H1 B>board:H3 C>floor D>jackpot~ E>board:H5 F>jackpot")
    assert s.log[-1]["points"] == 6 and s.hands["F"] == 7
    play(s, "A>floor B>floor C>floor D>floor")
    state = out(s)
    assert (state["phase"], state["target"], state["to_move"]) == ("final", "jackpot", "F")
    play(s, "target:jackpot F>H1.big E>jackpot")
    assert s.winner() == "E"


def test_T17_two_hexagon_match_final_on_a_named_jackpot() -> None:
    s = start(
        {
            "players": ["A", "B", "C"],
            "boards": TWO_HEXAGONS,
            "first": "A",
            "palets_per_player": 1,
            "rounds_to_win": 1,
        }
    )
    play(s, "A>jackpot.1")  # T9: A takes her palet back
    play(s, "B>floor")  # B out: A and C, 1 each; C throws next and names the jackpot
    assert (s.phase, s.target, s.current_player()) == ("final", None, "C")
    play(s, "target:jackpot.2 C>jackpot.1")  # not the target: C's last palet, A wins
    assert s.winner() == "A" and s.holes["jackpot.1"] == 1


# -- worked examples (tests/records) -----------------------------------------------------------


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


EXAMPLES = sorted(RECORDS.glob("trigono-*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_worked_examples(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    expect = record.pop("expect", None)
    expect_error = record.pop("expect_error", None)
    if expect_error is not None:
        with pytest.raises(ReplayError) as err:
            replay(record)
        assert err.value.index == expect_error["index"]
        return
    state = replay(record).to_json()
    for field, value in expect.items():
        if field == "log_points":
            assert [e["points"] for e in state["log"]] == value
        elif isinstance(value, dict) and all(isinstance(v, int) for v in value.values()):
            assert _nonzero(state[field]) == _nonzero(value), field
        else:
            assert state[field] == value, field


def test_examples_include_error_records() -> None:
    errors = {
        json.loads(p.read_text(encoding="utf-8")).get("expect_error") is not None for p in EXAMPLES
    }
    assert errors == {True, False}


# -- the shipped sample match and the scoreboard ----------------------------------------------


# -- seeded random playouts ------------------------------------------------------------------------


