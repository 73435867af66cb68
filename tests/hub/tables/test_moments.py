"""The hub says what happened: moments in the view (hub/tables/moments.py), worked out as
each action is applied, taken back when the action is undone or amended."""

from __future__ import annotations

from typing import Any

from hub.tables.tableset import make_table
from tests.hub.tables.test_referee import Fold


def kinds(view: dict[str, Any]) -> list[str]:
    return [m["kind"] for m in view["moments"]]


def test_a_drop_in_a_big_hole_is_a_big_moment_with_the_palets_it_takes_T5() -> None:
    fold = Fold()
    fold.device("drop", t_ms=100, hole="big")
    fold.tick(2.0)
    (moment,) = fold.table.view()["moments"]
    assert moment["kind"] == "big"
    assert moment["params"]["player"] == "Ana" and moment["params"]["hole"] == "B1.big"
    assert moment["params"]["n"] == fold.table.printed()["log"][-1]["points"]
    assert moment["seq"] == 1 and moment["action"] == 0


def test_an_undone_throw_takes_its_moment_back_and_says_undone() -> None:
    fold = Fold()
    fold.console(landed="floor")
    fold.device("drop", t_ms=5000, hole="small")
    fold.now = 6.0
    fold.tick(8.0)
    assert kinds(fold.table.view()) == ["floor", "small"]
    fold.console(undo=True)
    view = fold.table.view()
    assert kinds(view) == ["floor", "undone"]
    undone = view["moments"][-1]
    assert undone["params"] == {"player": "Ben", "index": 1}
    assert undone["seq"] > max(m["seq"] for m in view["moments"][:-1])


def test_an_amended_throw_says_amended() -> None:
    fold = Fold()
    fold.console(landed="floor")
    fold.console(amend={"index": 0, "action": {"throw": {"player": "Ana", "to": "board:B1"}}})
    assert kinds(fold.table.view()) == ["amended"]


def test_moments_survive_a_snapshot_and_a_replay() -> None:
    fold = Fold()
    fold.console(landed="floor")
    fold.console(landed="board:B1")
    fold.console(undo=True)
    assert fold.refold().view()["moments"] == fold.table.view()["moments"]
    copy = make_table("t1", fold.body, 0.0)
    copy.load(fold.table.dump())
    assert copy.view()["moments"] == fold.table.view()["moments"]


def test_a_trial_does_not_touch_the_tables_moments() -> None:
    fold = Fold()
    twin = fold.table.trial()
    twin.play({"throw": {"player": "Ana", "to": "floor"}}, [99], "referee")
    assert fold.table.view()["moments"] == [] and kinds(twin.view()) == ["floor"]


def test_a_correction_that_would_put_a_throw_out_of_turn_names_both_players_T5() -> None:
    import pytest

    from hub.errors import RefusedError

    fold = Fold()
    fold.console(landed="floor")
    fold.console(landed="floor")
    with pytest.raises(RefusedError) as refused:
        fold.console(amend={"index": 0, "action": {"throw": {"player": "Ben", "to": "floor"}}})
    assert refused.value.kind == "would_be_out_of_turn"
    assert {k: refused.value.params[k] for k in ("index", "player", "to_move")} == {"index": 0, "player": "Ben",
                                                                                  "to_move": "Ana"}
