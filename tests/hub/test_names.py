"""Player names at every door (issue 32.12): a table's seats and a tournament's
registration store names in NFC and refuse zero-width, bidi-override and control
characters with a message naming the character, storing nothing; the web's table form
says it in the reader's language."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.errors import BadInputError, RefusedError
from hub.facade import Hub
from hub.tables.names import look_alikes
from hub.tournament.service import TournamentService
from tests.web.conftest import PASSWORD_HASH, csrf_token, login
from web import create_app

HIDDEN = {
    "\u200b": "U+200B",  # zero-width space: "Ana" and "Ana" + it look the same
    "\u202e": "U+202E",  # right-to-left override: turns the rest of a line around
    "\u2066": "U+2066",  # left-to-right isolate
    "\x07": "U+0007",  # a control character (bell)
    "\u3164": "U+3164",  # Hangul filler: a letter that draws nothing
}


@pytest.fixture
def hub() -> Any:
    h = Hub(":memory:")
    yield h
    h.close()


@pytest.mark.parametrize("char", list(HIDDEN))
def test_a_table_seat_with_a_hidden_character_is_refused_and_nothing_is_created(hub: Hub, char: str) -> None:
    with pytest.raises(BadInputError) as caught:
        hub.create_table("trigono", seats=["Ana", f"An{char}a"], table_id="t1")
    assert caught.value.kind == "name_hidden_char" and caught.value.params["char"] == HIDDEN[char]
    assert HIDDEN[char] in str(caught.value)
    assert hub.list_tables() == []


def test_a_seat_typed_decomposed_is_stored_in_nfc(hub: Hub) -> None:
    view = hub.create_table("trigono", seats=["  Zoe\u0301 ", "Ben"], table_id="t1")
    assert [s["name"] for s in view["seats"]] == ["Zoé", "Ben"]
    with pytest.raises(BadInputError, match="same name"):  # the same player twice, however typed
        hub.create_table("trigono", seats=["Zoé", "Zoe\u0301"], table_id="t2")


def test_tournament_registration_normalises_and_refuses_hidden_characters(hub: Hub) -> None:
    service = TournamentService(hub.store, hub)
    service.create({"name": "Night", "game": "trike", "format": "elimination", "options": {"size": 3}},
                   tournament_id="T1")
    service.submit("T1", {"type": "register", "player": {"name": "Zoe\u0301"}})
    for char, code in HIDDEN.items():
        with pytest.raises(BadInputError, match=re.escape(code)):
            service.submit("T1", {"type": "register", "player": {"name": f"Ana{char}"}})
    # The whole list at once: the clean names in, the bad one refused with its reason.
    taken, refused = service.submit_many("T1", [{"type": "register", "player": {"name": "Ana"}},
                                                {"type": "register", "player": {"name": "Ben\u200b"}}])
    assert taken == 1 and [(i, e.kind) for i, e in refused] == [(1, "name_hidden_char")]
    # "Zoé" typed precomposed is the player already registered decomposed.
    with pytest.raises(RefusedError, match="already registered"):
        service.submit("T1", {"type": "register", "player": {"name": "Zoé"}})
    assert [p["name"] for p in service.view("T1")["players"]] == ["Zoé", "Ana"]


def test_look_alikes_are_named() -> None:
    assert look_alikes("Ａｎａ", ["Ana", "Ben"]) == ["Ana"]
    assert look_alikes("ana  de silva", ["Ana de Silva", "Ana"]) == ["Ana de Silva"]
    assert look_alikes("Ana", ["Ana", "Anna"]) == []


def test_the_table_form_says_why_in_french(hub: Hub) -> None:
    app = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k"}, hub=hub)
    client: FlaskClient = app.test_client()
    assert login(client).status_code == 302
    response = client.post("/admin/tables", headers={"Accept-Language": "fr"}, data={
        "csrf_token": csrf_token(client, "/admin/"), "game": "trigono", "players": "Ana\nBen\u202e"})
    assert response.status_code == 400
    assert "le nom contient un caractère invisible ou de contrôle (U+202E)" in response.get_data(as_text=True)
    assert hub.list_tables() == []
