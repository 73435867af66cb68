"""A table to create (hub/tables/spec.py), checked once whichever door it comes in by."""

from __future__ import annotations

from typing import Any

import pytest

from hub.errors import BadInputError, UnknownGameError
from hub.tables.spec import Seat, TableSpec


def test_a_full_spec_parses_and_reads_back_as_the_same_json() -> None:
    data = {"id": "t1", "game": "trigono", "options": {"rounds_to_win": 1}, "seed": 3,
            "seats": [{"name": "Ana", "bot": False}, {"name": "Ben", "bot": False}],
            "boards": [{"board": "pico-7", "as": "B1", "holes": {"big": "B1.big"}}],
            "referee": {"settle_s": 0.5}}
    spec = TableSpec.from_json(data)
    assert spec.seats == [Seat("Ana"), Seat("Ben")] and spec.settle_s == 0.5
    assert TableSpec.from_json(spec.to_json()) == spec
    assert spec.to_json() == data


def test_entry_body_fills_players_a_row_of_boards_and_the_default_settle_window() -> None:
    spec = TableSpec.from_text('{"game": "trigono", "seats": ["Ana", "bot-less Ben"], "boards": ["B1", "B2"]}')
    body = spec.entry_body(seed=9, default_settle_s=1.5)
    assert body["options"] == {"players": ["Ana", "bot-less Ben"], "boards": [
        {"id": "B1", "cell": [0, 0, "up"]}, {"id": "B2", "cell": [0, 0, "down"]}]}
    assert body["seed"] == 9 and body["referee"] == {"settle_s": 1.5}
    assert body["boards"][1] == {"board": "B2", "as": "B2", "holes": {"big": "B2.big", "small": "B2.small"}}


@pytest.mark.parametrize("data, error, words", [
    ({"game": "chess"}, UnknownGameError, "unknown game 'chess'"),
    ({"options": {}}, BadInputError, "missing field 'game'"),
    ({"game": "trike", "boards": ["B1"]}, BadInputError, "no sensor boards"),
    ({"game": "trike", "seats": ["Ana", "Ana"]}, BadInputError, "same name"),
    ({"game": "trike", "seats": [{"name": ""}]}, BadInputError, "a name of 1 to 40 characters"),
    ({"game": "trike", "seats": [{"name": "Ana", "colour": "red"}]}, BadInputError, "'colour'"),
    ({"game": "trike", "seats": "Ana"}, BadInputError, "seats: expected a list"),
    ({"game": "trike", "seed": "7"}, BadInputError, "seed"),
    ({"game": "trike", "seed": True}, BadInputError, "seed"),
    ({"game": "trike", "options": []}, BadInputError, "options"),
    ({"game": "trike", "id": ""}, BadInputError, "id"),
    ({"game": "trigono", "boards": ["B1", "B1"]}, BadInputError, "bound twice"),
    ({"game": "trigono", "boards": [{"board": "B1", "holes": {"big": 3}}]}, BadInputError, "holes"),
    ({"game": "trigono", "referee": {"settle_s": 31}}, BadInputError, "0 to 30"),
    ({"game": "trigono", "referee": {"window": 1}}, BadInputError, "'window'"),
    ("trike", BadInputError, "JSON object"),
])
def test_a_malformed_spec_is_a_typed_error_naming_the_field(data: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        TableSpec.from_json(data)


def test_text_that_is_not_json_is_a_bad_input() -> None:
    with pytest.raises(BadInputError, match="not JSON"):
        TableSpec.from_text("{game: trike}")


def test_boards_placed_on_the_admins_grid_give_the_bindings_and_the_engines_boards() -> None:
    """The admin's layout goes to the hub as data (issue 31: the web calls no placing
    helper): six boards around a vertex get their jackpot; options naming boards win."""
    from engines.trigono.layout import hexagon_boards

    layout = [{"id": f"B{n}", "cell": b["cell"], "device": f"pico-{n}"} for n, b in enumerate(hexagon_boards(), 1)]
    spec = TableSpec.build("trigono", layout=layout)
    assert [b["board"] for b in spec.boards] == [f"pico-{n}" for n in range(1, 7)]
    assert spec.boards[0]["holes"]["jackpot"] == "jackpot"
    assert [b["id"] for b in spec.options["boards"]] == [f"B{n}" for n in range(1, 7)]
    mine = [{"id": "B1", "cell": [0, 0, "up"]}]
    assert TableSpec.build("trigono", layout=layout[:1], options={"boards": mine}).options["boards"] == mine


@pytest.mark.parametrize("layout, boards, words", [
    ([{"id": "B1"}], None, "needs an id and a cell"),
    ({"B1": [0, 0, "up"]}, None, "expected a list"),
    ([{"id": "B1", "cell": [0, 0, "up"]}], ["B1"], "not both"),
])
def test_a_malformed_layout_is_a_typed_error(layout: Any, boards: Any, words: str) -> None:
    with pytest.raises(BadInputError, match=words):
        TableSpec.build("trigono", layout=layout, boards=boards)
