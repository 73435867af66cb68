"""The drawing in a table's view (hub/tables/drawing.py): the pages scale it, they do
not work out the lattice (issue 23)."""

from __future__ import annotations

from engines.trigono.layout import hexagon_boards
from hub.tables.drawing import board_layout
from hub.tables.spec import TableSpec
from hub.tables.tableset import make_table


def test_a_hexagon_of_six_boards_has_its_jackpot_at_the_shared_corner_T20() -> None:
    spec = TableSpec.build("trigono", seats=["Ana", "Ben"], options={"boards": hexagon_boards()}, seed=1)
    view = make_table("t1", spec.entry_body(1, 1.0), 0.0).view()
    drawing = view["drawing"]
    assert [b["id"] for b in drawing["boards"]] == [f"H{k}" for k in range(1, 7)]
    assert drawing["jackpots"] == [{"hole": "jackpot", "at": [0.0, 0.0]}]
    for board in drawing["boards"]:
        assert [0.0, 0.0] in board["corners"]  # every board touches the jackpot
        assert set(board["holes"]) == {f"{board['id']}.big", f"{board['id']}.small"}
    x, y, w, h = drawing["box"]
    assert (x, w) == (-1.0, 2.0) and round(h, 3) == 1.732 and round(y, 3) == -0.866
    assert view["places"]["jackpot"] == {"kind": "jackpot"}


def test_holes_sit_inside_their_board() -> None:
    (board,) = board_layout({"boards": [{"id": "B1", "cell": [2, 1, "down"], "holes": ["B1.big", "B1.small"]}]})["boards"]
    xs, ys = [c[0] for c in board["corners"]], [c[1] for c in board["corners"]]
    for hole in board["holes"].values():
        assert min(xs) < hole["at"][0] < max(xs) and min(ys) < hole["at"][1] < max(ys)


def test_a_triolet_drawing_is_the_engines_fixed_board_with_its_bonus_cells_L1() -> None:
    spec = TableSpec.build("triolet", seats=["Ana", "Ben"], seed=1)
    d = make_table("t1", spec.entry_body(1, 1.0), 0.0).view()["drawing"]
    assert (d["columns"], d["rows"]) == ("ABCDEFGHIJKLMNO", 15)
    assert d["bonus"]["H8"] == "double" and d["bonus"]["A8"] == "again"


def test_a_triominos_drawing_has_every_legal_spot_and_names_each_rack_reading() -> None:
    from hub.tables import drawing

    spec = TableSpec.build("triominos", seats=["Ana", "Ben"], seed=1)
    table = make_table("t1", spec.entry_body(1, 1.0), 0.0)
    table.play(table.legal_actions(str(table.state.current_player()))[0], [2], "Ana")
    player = str(table.state.current_player())
    d = drawing.of(table.state.observation(player))
    assert d is not None
    rack = table.state.observation(player)["racks"][player]
    for action in table.legal_actions(player):
        if "place" in action:
            assert ",".join(map(str, action["place"]["cell"])) in d["cells"]
            assert d["tiles"]["-".join(map(str, action["place"]["corners"]))] in rack
    assert set(d["tiles"].values()) == set(rack)  # only the viewer's own tiles


def test_a_trike_drawing_has_every_cell_with_its_neighbours() -> None:
    spec = TableSpec.build("trike", seats=["Ana", "Ben"], options={"size": 5}, seed=1)
    d = make_table("t1", spec.entry_body(1, 1.0), 0.0).view()["drawing"]
    assert len(d["cells"]) == 15 and len(d["hexagon"]) == 6
    assert d["neighbours"]["c2"] == ["b1", "b2", "c1", "c3", "d2", "d3"]  # an inner cell: six
    assert d["neighbours"]["e5"] == ["d4", "e4"]  # a corner: two
