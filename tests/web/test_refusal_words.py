"""The hub's refusals in the page's language (issue 23: "the hub sends kinds + params only";
issue 26 item 5): every kind the hub raises is worded in both catalogues, and the engine's
reason inside a refusal (``why``) is worded too, not shown as the engine's English."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from hub.api import HubError
from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token
from web.describe import alert_text, refusal_text, shown_params

ROOT = Path(__file__).resolve().parents[2]
KIND = re.compile(r"[a-z][a-z_]*")


def hub_kinds() -> dict[str, str]:
    """Every refusal kind raised in hub/ (the second argument of an error raised there)."""
    found = {}
    for path in sorted((ROOT / "hub").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            args = node.exc.args
            if name.endswith("Error") and len(args) >= 2 and isinstance(args[1], ast.Constant):
                if KIND.fullmatch(str(args[1].value)):
                    found[str(args[1].value)] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_refusal_kind_the_hub_raises_is_worded_in_both_languages() -> None:
    kinds = hub_kinds()
    assert {"tour_too_few", "not_your_turn", "no_such_action"} <= set(kinds)
    for lang in ("en", "fr"):
        catalogue = json.loads((ROOT / "web" / "messages" / f"{lang}.json").read_text(encoding="utf-8"))
        assert {k: where for k, where in kinds.items() if f"refusal.{k}" not in catalogue} == {}, lang


def refused(hub: Hub, table: str, inp: dict[str, Any]) -> HubError:
    with pytest.raises(HubError) as caught:
        hub.submit(table, inp)
    return caught.value


def test_an_illegal_triolet_play_reads_in_french_L4(app: Flask, hub: Hub) -> None:
    hub.create_table("triolet", seats=["Ana", "Ben"], seed=5, table_id="g1")
    legal = hub.legal_actions("g1", "Ana") or hub.legal_actions("g1", "Ben")
    first = next(a for a in legal if "play" in a)
    hub.submit("g1", {"move": first})
    err = refused(hub, "g1", {"move": {"play": ["A1:1"]}})
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        text = refusal_text(err)
    assert text in ("Ce coup n’est pas permis\u00a0: le coup ne touche pas les jetons déjà posés (L4).",
                    "Ce coup n’est pas permis\u00a0: Ana n’a pas de jeton 1 à jouer.",
                    "Ce coup n’est pas permis\u00a0: Ben n’a pas de jeton 1 à jouer.")
    assert "the play" not in text and "holds no" not in text
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert refusal_text(err).startswith("This move is not allowed: ")


def test_a_void_that_shifts_the_turn_reads_in_french_with_elision_T3(app: Flask, hub: Hub) -> None:
    hub.create_table("trigono", seats=["Hugo", "Inès"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Hugo"})
    for where in ["floor", "floor"]:
        hub.submit("t1", {"landed": where})
    # Taking back Hugo's throw would make Inès's the first: refused, with names.
    err = refused(hub, "t1", {"amend": {"index": 1, "action": {"throw": {"player": "Hugo", "to": "floor"}}}})
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        text = refusal_text(err)
    assert "turn to throw" not in text and "would be illegal" not in text, text
    assert "Hugo" in text and "Inès" in text


def test_a_stuck_drop_lists_the_engines_reasons_in_french(app: Flask) -> None:
    alert = {"kind": "cannot_referee", "params": {
        "player": "Élodie", "reasons": ["it is Hugo's turn to throw, not Élodie's"],
        "refusals": [{"kind": "illegal_move", "params": {
            "reason": "it is Hugo's turn to throw, not Élodie's", "why": "trigono.not_your_turn",
            "why_params": {"player": "Élodie", "to_move": "Hugo"}}}]}}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        text = shown_params(alert["params"])["reasons"]  # type: ignore[index]
        assert "{" not in alert_text(alert)
    assert text == "c’est à Hugo de lancer, pas à Élodie", text


def test_a_tournament_refusal_reads_in_french_in_the_api_and_on_the_page(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/tournaments/")
    assert api_post(referee, "/api/tournaments", {"id": "S1", "name": "Suisse", "game": "triominos",
                                                   "format": "swiss", "rounds": 3, "check_in": False},
                    token).status_code == 201
    bad = api_post(referee, "/api/tournaments/S1/entries", {"type": "start"}, token)
    error = bad.get_json()["error"]
    assert (bad.status_code, error["kind"]) == (400, "tour_too_few")
    assert error["message"] == "start: at least two present players are needed"  # the hub's English line
    assert error["text"] == "Il faut au moins deux joueurs présents pour commencer."
    admin = "/tournaments/S1/admin"
    referee.post(admin, data={"action": "start", "confirm": "1", "csrf_token": csrf_token(referee, admin)})
    page = referee.get(admin).get_data(as_text=True)
    assert "Il faut au moins deux joueurs présents" in page and "at least two" not in page


def test_hints_read_in_french(referee: FlaskClient, hub: Hub) -> None:
    from web.describe import hint_words

    app = referee.application
    triominos = {"action": {"draw": True}, "why": "no tile fits: draw (−5)", "reason": {"kind": "draw_no_fit"}}
    triolet = {"action": {"pass": True}, "why": "x", "reason": {"kind": "play", "points": 12, "worth": 9}}
    bonus = {"action": {}, "why": "scores 52 with a bridge", "reason": {"kind": "only_tile", "points": 52,
                                                                        "bonus": "bridge"}}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert hint_words("triominos", triominos)["why"] == "aucune tuile ne va\u00a0: piochez (−5)"
        assert hint_words("triolet", triolet)["why"].startswith("marque 12 maintenant\u00a0; vaut environ 9")
        assert hint_words("triominos", bonus)["why"] == "marque 52\u00a0; c’est la seule tuile qui va · Pont\u00a0! +40"
        assert hint_words("trike", {"action": "c3", "why": "??", "reason": {"kind": "other"}})["why"] == "??"
