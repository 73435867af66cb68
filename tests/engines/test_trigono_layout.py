"""Trigono layouts (engines/trigono/layout.py): T19 side-connected boards, T20 jackpots, T21 holes."""

from __future__ import annotations

import pytest

from engines.core import RecordError
from engines.trigono import (
    hexagon_boards,
)
from tests.engines.trigono_setups import TWO_HEXAGONS, new, refused


def test_T19_boards_must_be_side_connected_in_any_order() -> None:
    chain = [
        {"id": "B3", "cell": [1, 0, "up"]},
        {"id": "B1", "cell": [0, 0, "up"]},
        {"id": "B2", "cell": [0, 0, "down"]},
    ]
    assert new(["A", "B"], boards=chain).to_json()["boards"] == {"B3": 0, "B1": 0, "B2": 0}
    corner_only = [{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [1, 0, "up"]}]
    with pytest.raises(RecordError, match=r"side-connected \(T19\)"):
        new(boards=corner_only)
    with pytest.raises(RecordError, match="duplicate id 'B1'"):
        new(boards=[{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B1", "cell": [0, 0, "down"]}])
    with pytest.raises(RecordError, match="same cell"):
        new(boards=[{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "up"]}])
    with pytest.raises(RecordError, match="boards: unknown field 'name'"):
        new(boards=[{"id": "B1", "cell": [0, 0, "up"], "name": "x"}])
    with pytest.raises(RecordError, match="id must be"):
        new(boards=[{"id": "B.1", "cell": [0, 0, "up"]}])
    with pytest.raises(RecordError, match="cell"):
        new(boards=[{"id": "B1", "cell": [0, 0, "left"]}])


def test_T20_one_hexagon_has_one_jackpot_several_are_numbered_by_vertex() -> None:
    one = new(boards=hexagon_boards()).to_json()
    assert "jackpot" in one["holes"]
    assert one["layout"]["jackpots"] == [
        {"id": "jackpot", "vertex": [0, 0], "boards": ["H1", "H2", "H3", "H4", "H5", "H6"]}
    ]
    two = new(boards=TWO_HEXAGONS).to_json()
    assert [(j["id"], j["vertex"]) for j in two["layout"]["jackpots"]] == [
        ("jackpot.1", [0, 0]),
        ("jackpot.2", [1, 0]),
    ]
    assert "jackpot" not in two["holes"] and {"jackpot.1", "jackpot.2"} <= set(two["holes"])
    refused(new(boards=TWO_HEXAGONS), "Ana>jackpot", "unknown destination 'jackpot'")


def test_T20_layout_without_six_boards_around_a_corner_has_no_jackpot() -> None:
    five = new(boards=hexagon_boards()[:5]).to_json()
    assert five["layout"]["jackpots"] == [] and not any("jackpot" in h for h in five["holes"])
