"""Where boards sit and which holes they sense (hub/tables/layout.py): one home for the default
holes, the default row and the jackpot of each hexagon (T20)."""

from __future__ import annotations

import pytest

from engines.lattice import Vertex, cells_around
from engines.trigono.layout import Layout
from hub.errors import BadInputError
from hub.tables.layout import hexagon, place, row_boards


def test_placed_boards_get_big_and_small_holes_and_their_device_ids() -> None:
    boards, bindings = place([{"id": "B1", "cell": [0, 0, "up"], "device": "pico-7"},
                              {"id": "B2", "cell": [0, 0, "down"]}])
    assert boards == [{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "down"]}]
    assert [(b["board"], b["as"], b["holes"]) for b in bindings] == [
        ("pico-7", "B1", {"big": "B1.big", "small": "B1.small"}),
        ("B2", "B2", {"big": "B2.big", "small": "B2.small"})]


def test_each_hexagon_jackpot_goes_to_one_board_around_it_with_the_engines_ids_T20() -> None:
    cells = list(dict.fromkeys(cells_around(Vertex(0, 0)) + cells_around(Vertex(1, 0))))
    boards = [{"id": f"B{n}", "cell": list(cell)} for n, cell in enumerate(cells, start=1)]
    placed, bindings = place(boards)
    jackpots = {b["holes"]["jackpot"]: b["as"] for b in bindings if "jackpot" in b["holes"]}
    assert len(cells) == 10 and sorted(jackpots) == ["jackpot.1", "jackpot.2"]
    assert len(set(jackpots.values())) == 2  # two different boards sense them
    engine_holes = set(Layout.from_json(placed).holes)
    assert all(hole in engine_holes for b in bindings for hole in b["holes"].values())


def test_the_simulators_hexagon_is_six_devices_and_one_jackpot() -> None:
    boards, bindings = hexagon("hexa")
    assert [b["board"] for b in bindings] == [f"hexaB{k}" for k in range(1, 7)]
    assert [b["as"] for b in bindings] == [b["id"] for b in boards]
    assert [b["holes"].get("jackpot") for b in bindings] == ["jackpot"] + [None] * 5


def test_unplaced_boards_make_a_side_connected_row() -> None:
    row = row_boards([{"as": "B1"}, {"as": "B2"}, {"as": "B1"}, {"as": "B3"}])
    assert row == [{"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "down"]},
                   {"id": "B3", "cell": [1, 0, "up"]}]
    Layout.from_json(row)  # the engine accepts it (T19)


@pytest.mark.parametrize("placed", [
    "B1", [{"id": "B1"}], [{"id": 3, "cell": [0, 0, "up"]}], [{"id": "B1", "cell": [0, 0, "sideways"]}],
    [{"id": "B1", "cell": [0, 0, "up"], "device": 7}],
])
def test_a_malformed_layout_is_a_bad_input(placed: object) -> None:
    with pytest.raises(BadInputError):
        place(placed)
