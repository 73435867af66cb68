"""``Table.trial``: the copy a console input is tried on before it is stored. Whatever the
copy takes (or refuses halfway), the table it came from is unchanged, and the copy ends
where a deep copy would (issue 15: it replaced ``copy.deepcopy``, the hub's costliest
step per console input)."""

from __future__ import annotations

import copy
import json
import random
from itertools import count
from typing import Any

import pytest

from engines import GAMES
from hub.errors import HubError
from hub.log.store import Entry
from hub.tables.spec import TableSpec
from hub.tables.table import Table
from hub.tables.tableset import make_table

IDS = count(2)


def dumped(table: Table) -> str:
    """Everything a table is: its snapshot, its views, what it asks the boards."""
    return json.dumps([table.dump(), table.view(), table.commands, sorted(table._alert_keys)],
                      sort_keys=True, default=str)


def apply(table: Table, source: str, body: dict[str, Any], **kw: Any) -> bool:
    try:
        table.apply_entry(Entry(next(IDS), 0.0, source, table.id, body, **kw))
        return True
    except HubError:
        return False


def console(table: Table, **inp: Any) -> bool:
    return apply(table, "console", {"input": inp, "by": "referee"})


def tried(table: Table, source: str, body: dict[str, Any], **kw: Any) -> None:
    """Apply on a trial copy and on a deep copy: same end; the table itself untouched."""
    before = dumped(table)
    trial, deep = table.trial(), copy.deepcopy(table)
    entry = Entry(next(IDS), 0.0, source, table.id, body, **kw)
    outcomes = []
    for twin in (trial, deep):
        try:
            twin.apply_entry(entry)
            outcomes.append("taken")
        except HubError as err:
            outcomes.append(type(err).__name__)
    assert dumped(table) == before
    assert outcomes[0] == outcomes[1] and dumped(trial) == dumped(deep)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_trial_copy_takes_moves_and_undos_and_leaves_its_table_alone(game: str) -> None:
    spec = TableSpec.build(game, seed=3, boards=["B1"] if game == "trigono" else None)
    table = make_table("t1", spec.entry_body(3, 1.0), 0.0)
    rng = random.Random(5)
    for _ in range(12):
        player = table.state.current_player()
        legal = table.legal_actions(player) if player is not None else []
        if legal:
            move = rng.choice(legal)
            tried(table, "console", {"input": {"move": move}, "by": "referee"})
            console(table, move=move)
        tried(table, "console", {"input": {"undo": True}, "by": "referee"})
        tried(table, "console", {"input": {"move": "not a move"}, "by": "referee"})


def test_a_trial_copy_of_a_settling_throw_keeps_the_open_throw_of_its_table_T10_T12() -> None:
    spec = TableSpec.build("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, options={"first": "Ana"})
    table = make_table("t1", spec.entry_body(1, 1.0), 0.0)
    drop = {"type": "drop", "board": "B1", "boot": 1, "seq": 1, "t_us": 1000, "hole": "big"}
    assert apply(table, "device", drop, board="B1", boot=1, seq=1)
    # invalid marks the open throw in place; a knock-in appends to its drops
    tried(table, "console", {"input": {"invalid": True}, "by": "referee"})
    knock = {**drop, "seq": 2, "t_us": 2000, "hole": "small"}
    tried(table, "device", knock, board="B1", boot=1, seq=2)
    tried(table, "console", {"input": {"void": 2}, "by": "referee"})
    tried(table, "hub", {"settle": {"first": 2}})
