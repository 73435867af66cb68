"""Issue 35: every screen says where sync stands. A club's admin and console pages say
"synced … · 0 waiting", then "offline since HH:MM · N entries waiting" once the
federation's server is SIGKILLed; the federation's admin page has a row per club. Both
languages; the pages need the referee's login as before."""

from __future__ import annotations

import html as html_text
import re
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.sync.conftest import ClubSide, FederationSide, register_some, wait_for
from tests.web.conftest import PASSWORD_HASH, csrf_token, login
from web import create_app

pytestmark = pytest.mark.nats
League = Callable[[list[str]], tuple[FederationSide, dict[str, ClubSide]]]


def client_for(hub: Hub, lang: str) -> FlaskClient:
    app = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k"}, hub=hub)
    client = app.test_client()
    client.set_cookie("lang", lang)
    assert login(client).status_code == 302
    return client


def text(client: FlaskClient, page: str) -> str:
    html = client.get(page).get_data(as_text=True)
    return re.sub(r"\s+", " ", html_text.unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.slow
def test_sync_status_on_the_club_and_federation_pages(league: League) -> None:
    fed, clubs = league(["a", "b"])
    a = clubs["a"]
    assert a.hub is not None
    register_some(a.hub, "night", ["Ana", "Ben"])
    assert clubs["b"].hub is not None
    for side, name in ((a, "Zoé Martin"), (clubs["b"], "Zoe Martin")):  # one licence, two spellings
        assert side.hub is not None
        side.hub.tournaments.create({"game": "trike", "format": "elimination", "options": {"size": 3},
                                     "check_in": False, "name": "cup"}, tournament_id="cup")
        side.hub.tournaments.submit("cup", {"type": "register", "player": {"name": name, "key": "FR-42"}})
    wait_for("club a synced", lambda: (s := a.publisher.status())["online"] and s["waiting"] == 0)
    en, fr = client_for(a.hub, "en"), client_for(a.hub, "fr")
    for page in ("/admin/", "/console/"):
        assert re.search(r"synced \d+ s ago · 0 waiting", text(en, page)), page
        assert re.search(r"synchronisé il y a \d+ s · 0 en attente", text(fr, page)), page
    fed_en = client_for(fed.hub, "en")
    wait_for("the federation's table", lambda: '<tr data-club="a" class="online">' in
             fed_en.get("/admin/").get_data(as_text=True))
    assert "Last contact" in text(fed_en, "/admin/") and "Dernier contact" in text(client_for(fed.hub, "fr"), "/admin/")
    wait_for("the conflict shown", lambda: "FR-42" in text(fed_en, "/admin/"))
    page = text(fed_en, "/admin/")
    assert "1 person with conflicting versions" in page and "Zoé Martin" in page and "Zoe Martin" in page
    assert re.search(r"from a, \d\d:\d\d", page) and re.search(r"from b, \d\d:\d\d", page)
    answer = fed_en.post("/admin/sync/settle", data={"licence": "FR-42", "club": "b",
                                                     "csrf_token": csrf_token(fed_en, "/admin/")})
    assert answer.status_code == 303
    assert "FR-42: b's version kept" in text(fed_en, "/admin/")
    assert 'id="sync-conflicts"' not in fed_en.get("/admin/").get_data(as_text=True)
    assert fed.sync.persons()["FR-42"]["settled"]["name"] == "Zoe Martin"

    fed.server.kill()
    register_some(a.hub, "night", ["Cleo"])
    wait_for("club a offline", lambda: not a.publisher.status()["online"])
    assert re.search(r"offline since \d\d:\d\d · 1 entry waiting", text(en, "/admin/"))
    assert re.search(r"hors ligne depuis \d\d:\d\d · 1 entrée en attente", text(fr, "/console/"))
    anonymous = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k"},
                           hub=a.hub).test_client()
    assert anonymous.get("/admin/").status_code in (302, 401, 403)
