"""Trigono's place ids read once, typed, in the game's own code (engines/trigono/places.py;
issue 31.3: the hub no longer takes them apart as strings)."""

from __future__ import annotations

from engines import game_spec
from engines.trigono import Place
from engines.trigono.layout import Layout, hexagon_boards


def test_every_hole_of_a_layout_reads_as_its_kind_and_board() -> None:
    two_hexagons = Layout.from_json(hexagon_boards("H") + hexagon_boards("K", (1, 1)))
    for hole in two_hexagons.holes:
        place = Place.parse(hole)
        kind, board = two_hexagons.hole_kind(hole)
        assert place.kind == (kind if kind != "jackpot" or hole == "jackpot" else "jackpot_n")
        assert place.board == board and (place.is_hole or place.is_jackpot)
    assert {Place.parse(h).n for h in two_hexagons.holes if h.startswith("jackpot")} == {"1", "2"}


def test_landing_places_are_not_holes() -> None:
    assert Place.parse("floor") == Place("floor")
    assert Place.parse("board:H3") == Place("board", board="H3") and not Place.parse("board:H3").is_hole


def test_the_game_registers_its_reading_and_the_hub_words_with_it() -> None:
    from hub.tables.moments import place_labels

    spec = game_spec("trigono")
    assert spec.place_label is not None and spec.place_label("H2.big") == ("big", {"board": "H2"})
    printed = {"holes": {"H1.big": 0, "jackpot": 1}, "boards": {"H1": 0}, "target": "jackpot"}
    assert place_labels(printed, spec.place_label) == {
        "board:H1": {"kind": "board", "board": "H1"}, "floor": {"kind": "floor"},
        "H1.big": {"kind": "big", "board": "H1"}, "jackpot": {"kind": "jackpot"}}
    assert place_labels(printed, None) == {}  # a game whose actions name no places
