"""Every refusal an engine raises names its reason as a kind with params (engines.core
GameError), so pages can say it in their language; the English line stays ``str(err)``
(what ``trigono replay`` prints and records expect)."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

from engines import game_spec
from engines.core import GameOverError, IllegalMoveError

ROOT = Path(__file__).resolve().parents[2]
REFUSALS = ("IllegalMoveError", "GameOverError")


def refusal_calls() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted((ROOT / "engines").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                name = node.exc.func
                if isinstance(name, ast.Name) and name.id in REFUSALS:
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.exc))
    return found


def kinds_of(call: ast.Call) -> list[str]:
    """The kinds a raise names (a literal, or either side of a conditional)."""
    if len(call.args) < 2:
        return []
    kind = call.args[1]
    parts = [kind.body, kind.orelse] if isinstance(kind, ast.IfExp) else [kind]
    return [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]


def engine_kinds() -> set[str]:
    return {kind for _, call in refusal_calls() for kind in kinds_of(call)}


def test_every_engine_refusal_names_a_kind() -> None:
    calls = refusal_calls()
    assert len(calls) > 50
    assert [where for where, call in calls if not kinds_of(call)] == []


def test_every_engine_kind_is_worded_in_both_languages() -> None:
    for lang in ("en", "fr"):
        catalogue = json.loads((ROOT / "web" / "messages" / f"{lang}.json").read_text(encoding="utf-8"))
        missing = [k for k in sorted(engine_kinds())
                   if f"engine.{k}" not in catalogue and f"engine.{k}.one" not in catalogue]
        assert missing == [], lang


def test_a_trigono_refusal_keeps_its_english_line_and_names_the_players_T3() -> None:
    spec = game_spec("trigono")
    state = spec.game({"players": ["Hugo", "Inès"], "first": "Hugo"}).new_initial_state(random.Random(0))
    with pytest.raises(IllegalMoveError) as caught:
        state.apply(state.parse_action({"throw": {"player": "Inès", "to": "floor"}}))
    assert str(caught.value) == "it is Hugo's turn to throw, not Inès's"
    assert (caught.value.kind, caught.value.params) == ("trigono.not_your_turn", {"player": "Inès", "to_move": "Hugo"})


def test_a_triolet_refusal_names_its_rule_L4() -> None:
    spec = game_spec("triolet")
    state = spec.game({"players": ["Ana", "Ben"]}).new_initial_state(random.Random(5))
    first = next(a for a in state.legal_actions() if "play" in spec.action_to_json(a))
    state.apply(first)
    token = state.to_json()["racks"][state.current_player()][0]
    with pytest.raises(IllegalMoveError) as caught:
        state.apply(state.parse_action({"play": [f"A1:{token}"]}))
    assert caught.value.kind == "triolet.not_touching"
    assert str(caught.value) == "the play does not touch the tokens on the board (L4)"


def test_game_over_is_a_kind_too() -> None:
    spec = game_spec("trike")
    state = spec.game({}).new_initial_state(random.Random(0))
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    with pytest.raises(GameOverError) as caught:
        state.apply(spec.parse_action("a1"))
    assert caught.value.kind == "game_over"


@pytest.mark.parametrize("game", ["triolet", "triominos"])
def test_hints_give_their_reason_as_a_kind(game: str) -> None:
    spec = game_spec(game)
    assert spec.bot is not None
    state = spec.game({"players": ["Ana", "Ben"]}).new_initial_state(random.Random(2))
    hint = spec.bot.hint(state, 0.05)
    catalogue = json.loads((ROOT / "web" / "messages" / "fr.json").read_text(encoding="utf-8"))
    assert isinstance(hint["reason"], dict)
    assert f"hint.{game}.{hint['reason']['kind']}" in catalogue
    assert isinstance(hint["why"], str) and hint["why"]
