"""Trigono: whole scripted matches (2, 3, 5, 6 players, hexagon), the worked examples,
the shipped sample match and seeded random playouts checked after every action."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engines.core import GameError
from engines.records import ReplayError, replay
from engines.trigono import (
    Knock,
    Throw,
    TrigonoGame,
    TrigonoState,
    action_from_str,
    hexagon_boards,
)
from engines.trigono.playout import random_action
from engines.trigono.scoreboard import describe

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"
SAMPLE = ROOT / "engines" / "trigono" / "sample_match.json"
TWO_BOARDS = [{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "down"]}]
TWO_HEXAGONS = [
    {"id": f"C{n}", "cell": list(cell)}
    for n, cell in enumerate(
        sorted({tuple(b["cell"]) for b in hexagon_boards() + hexagon_boards(vertex=(1, 0))}),
        start=1,
    )
]


def start(options: dict[str, Any]) -> TrigonoState:
    return TrigonoGame(options).new_initial_state(random.Random(0))


def play(state: TrigonoState, line: str) -> None:
    """Apply a space-separated list of actions in text notation."""
    for move in line.split():
        state.apply(action_from_str(move))


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


def test_sample_match_is_a_complete_three_player_two_board_match() -> None:
    record = json.loads(SAMPLE.read_text(encoding="utf-8"))
    state = replay(record)
    printed = state.to_json()
    assert len(record["options"]["players"]) == 3 and len(record["options"]["boards"]) == 2
    assert printed["status"] == "match_over" and printed["winner"] == "Ana"
    board = describe(printed)
    assert "match over" in board and "Ana" in board and "match winner" in board


def test_scoreboard_command_prints_the_sample() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "engines.trigono.scoreboard", str(SAMPLE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Trigono — round 4") and "Rounds: 1: Ana, 2: draw" in run.stdout


def test_scoreboard_shows_phase_target_and_eliminated() -> None:
    s = start(
        {
            "players": ["A", "B", "C"],
            "boards": hexagon_boards(),
            "palets_per_player": 1,
            "first": "A",
        }
    )
    play(s, "A>floor")
    text = describe(s.to_json())
    assert "final, target jackpot" in text and "(out)" in text and "\n> B" in text


# -- seeded random playouts ------------------------------------------------------------------------

LAYOUTS: dict[str, dict[str, Any]] = {
    "2p-1board": {"players": ["A", "B"], "palets_per_player": 4},
    "3p-2boards": {"players": ["A", "B", "C"], "boards": TWO_BOARDS},
    "4p-1board": {"players": ["A", "B", "C", "D"], "palets_per_player": 3},
    "5p-2boards": {"players": list("ABCDE"), "boards": TWO_BOARDS, "palets_per_player": 3},
    "6p-2boards": {"players": list("ABCDEF"), "boards": TWO_BOARDS, "palets_per_player": 3},
    "8p-2boards": {"players": list("ABCDEFGH"), "boards": TWO_BOARDS, "palets_per_player": 2},
    "3p-hexagon": {"players": ["A", "B", "C"], "boards": hexagon_boards()},
    "6p-hexagon": {"players": list("ABCDEF"), "boards": hexagon_boards(), "palets_per_player": 3},
    "5p-two-hexagons": {"players": list("ABCDE"), "boards": TWO_HEXAGONS, "palets_per_player": 2},
}


def _check_invariants(state: TrigonoState, options: dict[str, Any]) -> None:
    printed = state.to_json()
    each = state.game.opts.palets_per_player
    total = (
        sum(printed["hands"].values())
        + sum(printed["boards"].values())
        + printed["floor"]
        + sum(printed["holes"].values())
    )
    assert total == len(printed["players"]) * each, "palets are conserved"
    assert all(n >= 0 for n in printed["hands"].values())
    mover = printed["to_move"]
    assert (mover is None) == (printed["status"] == "match_over")
    if mover is not None:
        assert mover not in printed["eliminated"] and printed["hands"][mover] > 0
    if printed["phase"] != "final":
        assert printed["target"] is None or len(state.game.opts.layout.jackpots) == 1
    assert state.game.load(state.dump()) == state, "dump/load round trip"
    assert json.loads(json.dumps(state.dump())) == state.dump(), "dump is plain JSON"


def _fuzz_action(state: TrigonoState, rng: random.Random) -> Throw:
    """Any throw at all: right or wrong player, known or unknown place, knock-ins from anywhere."""
    opts = state.game.opts
    places = ["floor", "board:B9", "B9.big", "jackpot", *opts.layout.holes]
    places += [f"board:{b}" for b in opts.layout.board_ids]
    knocked = tuple(
        Knock(
            rng.choice([*opts.layout.board_ids, "B9"]), rng.choice([*opts.layout.holes, "B9.big"])
        )
        for _ in range(rng.choice([0, 0, 1, 2]))
    )
    player = rng.choice([*opts.players, "Zoé", state.current_player() or "Zoé"])
    return Throw(player, rng.choice(places), rng.random() < 0.2, knocked)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_playout_invariants_R1(layout: str, seed: int) -> None:
    options = LAYOUTS[layout]
    game = TrigonoGame(options)
    state = game.new_initial_state(random.Random(seed))
    rng = random.Random(seed * 1000 + len(layout))
    actions: list[Any] = []
    record = {"game": "trigono", "options": options, "seed": seed, "actions": actions}
    seen_phases = set()
    while not state.is_terminal():
        assert len(actions) < 3000, "the match ends"
        mover = state.current_player()
        assert mover is not None
        if actions and len(actions) % 7 == 0:  # a wrong player is refused, nothing changes
            other = next(p for p in state.game.opts.players if p != mover)
            before = state.dump()
            with pytest.raises(GameError):
                state.apply(Throw(other, "floor"))
            assert state.dump() == before
        fuzz = _fuzz_action(state, rng)  # refused without a trace, or legal and consistent
        trial = state.clone()
        before = trial.dump()
        try:
            trial.apply(fuzz)
        except GameError:
            assert trial.dump() == before, f"{fuzz.to_str()} was refused but changed the state"
        else:
            _check_invariants(trial, options)
        eliminated = list(state.eliminated)
        action = random_action(state, rng)
        if isinstance(action, Throw):
            assert action.player not in eliminated, "nobody eliminated throws"
        state.apply(action)
        actions.append(state.game.action_to_json(action))
        seen_phases.add(state.phase)
        _check_invariants(state, options)
        if len(actions) % 10 == 0:
            assert replay(record) == state, "the state is the replay of the log"
    assert replay(record) == state
    assert [e["action"] for e in state.log] == actions
    assert sum(state.rounds_won.values()) == len([r for r in state.round_results if "winner" in r])
    assert max(state.rounds_won.values()) == state.game.opts.rounds_to_win
