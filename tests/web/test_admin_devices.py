"""The admin page's device side (issue 13): a link the broker refuses is shown as refused,
boards no table binds as "unregistered, N messages" with an Ignore button that works."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from hub.devices.mqtt_link import MqttTransport
from hub.devices.transport import FakeTransport
from hub.facade import Hub
from tests.broker import AuthBroker, mosquitto_binary
from tests.hub.boards import wait_for
from tests.web.conftest import csrf_token

EN = {"Accept-Language": "en"}


def drop(board: str, seq: int) -> dict[str, object]:
    return {"type": "bounce", "board": board, "boot": 1, "seq": seq, "t_us": seq, "hole": "big"}


def test_unregistered_boards_are_listed_and_can_be_ignored(hub: Hub, referee: FlaskClient) -> None:
    link = FakeTransport()
    hub.add_transport(link)
    for seq in (1, 2, 3):
        link.inject(drop("X9", seq))
    assert hub.flush()
    page = referee.get("/admin/", headers=EN).get_data(as_text=True)
    assert "X9</b>: unregistered, 3 messages" in page
    reply = referee.post("/admin/boards/X9/ignore", data={"csrf_token": csrf_token(referee, "/admin/")})
    assert reply.status_code == 303
    link.inject(drop("X9", 4))
    assert hub.flush()
    panel = referee.get("/admin/boards", headers=EN).get_data(as_text=True)
    assert "(ignored)" in panel and 'data-board="X9"' in panel
    assert "X9" not in [b["board"] for b in hub.boards()]
    assert [u["messages"] for u in hub.unregistered() if u["board"] == "X9"] == [4]


@pytest.mark.mqtt
def test_a_refused_mqtt_link_shows_as_refused(hub: Hub, referee: FlaskClient, tmp_path: Path) -> None:
    mosquitto_binary()
    broker = AuthBroker(tmp_path / "broker", ["B1"])
    broker.start()
    try:
        hub.add_transport(MqttTransport(broker.host, broker.port, username="hub", password="wrong"))
        assert wait_for(lambda: hub.links()[-1]["state"] == "refused", timeout=10)
        panel = referee.get("/admin/boards", headers=EN).get_data(as_text=True)
        assert 'data-link-state="refused"' in panel and "REFUSED by the broker" in panel
    finally:
        broker.stop()
