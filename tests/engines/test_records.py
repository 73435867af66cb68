"""engines.records: replay is reduce(apply, actions, initial state), and a record's
``expect``/``expect_error`` claims are checked (docs/records.md, worked examples)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engines.records import RECORD_FIELDS, ReplayError, expect_mismatch, initial_state, replay

RECORDS = Path(__file__).resolve().parents[1] / "records"
TRIKE: dict[str, Any] = {"game": "trike", "options": {"size": 3}, "actions": ["b1", "c1"]}


def test_replay_names_the_failing_action() -> None:
    with pytest.raises(ReplayError) as err:
        replay({**TRIKE, "actions": ["b1", "b1"]})
    assert err.value.index == 1 and str(err.value) == "action 1: b1 is occupied"


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"game": "trike", "colour": "red"}, "record: unknown field 'colour'"),
        ({"options": {}}, "record: missing field 'game'"),
        ({"game": "trike", "seed": "7"}, "seed: expected an integer"),
        ({"game": "trike", "actions": "b1"}, "actions: expected a list"),
        ({"game": "trike", "position": []}, "position: expected an object"),
    ],
)
def test_malformed_records_are_record_errors(record: dict[str, Any], reason: str) -> None:
    with pytest.raises(ReplayError, match=reason) as err:
        replay(record)
    assert err.value.index is None


def test_initial_state_ignores_the_actions() -> None:
    assert initial_state(TRIKE).to_json()["stones"] == {}


def test_every_shipped_example_holds_its_claim() -> None:
    for path in sorted(RECORDS.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert set(record) <= set(RECORD_FIELDS), path.name
        if "expect_error" in record:
            with pytest.raises(ReplayError) as err:
                replay(record)
            assert err.value.index == record["expect_error"]["index"], path.name
        else:
            assert "expect" in record, path.name
            replay(record)


def test_a_true_expectation_changes_nothing() -> None:
    plain = replay(TRIKE)
    claimed = replay({**TRIKE, "expect": {"to_move": "black", "pawn": "c1", "log_points": [0, 0]}})
    assert claimed == plain


@pytest.mark.parametrize(
    ("expect", "reason"),
    [
        ({"pawn": "b1"}, "expect.pawn: the replay gives 'c1', not 'b1'"),
        ({"log_points": [0]}, r"expect.log_points: the replay gives \[0, 0\], not \[0\]"),
        ({"colour": "red"}, "expect.colour: the printed state has no field 'colour'"),
        ([1], "expect: expected an object"),
    ],
)
def test_a_false_expectation_is_a_record_error(expect: Any, reason: str) -> None:
    with pytest.raises(ReplayError, match=reason) as err:
        replay({**TRIKE, "expect": expect})
    assert err.value.index is None


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ({"exit": 2, "index": 5}, "expect_error: action 5 was expected to fail"),
        ({"exit": 1, "index": 0}, "expect_error: expected"),
        ({"index": 0}, "expect_error: missing field 'exit'"),
    ],
)
def test_a_false_or_malformed_error_claim_is_a_record_error(claim: Any, reason: str) -> None:
    with pytest.raises(ReplayError, match=reason):
        replay({**TRIKE, "expect_error": claim})


def test_an_expected_error_is_the_error_itself() -> None:
    with pytest.raises(ReplayError) as err:
        replay({**TRIKE, "actions": ["b1", "b1"], "expect_error": {"exit": 2, "index": 1}})
    assert str(err.value) == "action 1: b1 is occupied"


def test_expect_and_expect_error_together_are_refused() -> None:
    with pytest.raises(ReplayError, match="one or the other"):
        replay({**TRIKE, "expect": {}, "expect_error": {"exit": 2, "index": 0}})


def test_expect_mismatch_compares_like_the_examples() -> None:
    printed = {"racks": {"Ana": ["1-2-3", "0-0-0"]}, "boards": {"B1": 0, "B2": 2}, "log": []}
    assert expect_mismatch(printed, {"racks": {"Ana": ["0-0-0", "1-2-3"]}}) is None
    assert expect_mismatch(printed, {"boards": {"B2": 2}}) is None
    assert expect_mismatch(printed, {"boards": {"B2": 1}}) is not None
    assert expect_mismatch(printed, {"racks": {"Ana": ["0-0-0"]}}) is not None
