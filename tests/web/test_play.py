"""Play pages (web/play.py): the renderer chosen per game, seat links, and playing against
the computer with no referee (a new table, the seat claimed at once, a bound on how many
a visitor may start)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import csrf_token
from web.play import QUICK_PER_ADDRESS, QuickGames


def start(client: FlaskClient, game: str, name: str = "") -> Any:
    return client.post("/play/new", data={"csrf_token": csrf_token(client, "/play/"), "game": game, "name": name})


def test_play_against_the_computer_needs_no_referee(client: FlaskClient, hub: Hub) -> None:
    page = client.get("/play/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Play against the computer" in page and 'data-game="trike"' in page and 'data-game="trigono"' not in page
    response = start(client, "trike", "Zoé")
    assert response.status_code == 303
    table_id = response.headers["Location"].rsplit("/", 1)[1]
    view = hub.table_view(table_id)
    assert view["seats"] == [{"name": "Zoé", "bot": False}, {"name": "Ordinateur", "bot": True}]
    assert client.get(f"/api/tables/{table_id}/play").get_json()["you"] == "Zoé"


def test_a_trigono_table_or_an_unknown_game_is_refused(client: FlaskClient, hub: Hub) -> None:
    for game in ("trigono", "chess", ""):
        assert start(client, game).status_code == 400, game
    assert hub.list_tables() == []


def test_without_csrf_nothing_is_created(client: FlaskClient, hub: Hub) -> None:
    assert client.post("/play/new", data={"game": "trike"}).status_code == 400
    assert hub.list_tables() == []


def test_a_visitor_starts_only_so_many_games(client: FlaskClient, hub: Hub) -> None:
    for _ in range(QUICK_PER_ADDRESS):
        assert start(client, "trike").status_code == 303
    assert start(client, "trike").status_code == 429
    assert len(hub.list_tables()) == QUICK_PER_ADDRESS


def test_the_bound_forgets_old_games() -> None:
    counter = QuickGames()
    assert all(counter.allow("1.2.3.4", now=0.0) for _ in range(QUICK_PER_ADDRESS))
    assert not counter.allow("1.2.3.4", now=1.0) and counter.allow("5.6.7.8", now=1.0)
    assert counter.allow("1.2.3.4", now=10_000.0)
