"""hardware/mosquitto: the event broker config starts on a real Mosquitto; per-board
passwords; the ACL lets a board write only its own topics."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.broker import AuthBroker, mosquitto_binary


@pytest.fixture
def event_broker(tmp_path: Path) -> Iterator[AuthBroker]:
    """hardware/mosquitto/ as Debian runs it, users from scripts/mqtt-users."""
    mosquitto_binary()
    broker = AuthBroker(tmp_path / "broker", ["B1", "B2"])
    broker.start()
    yield broker
    broker.stop()


def connect(broker: AuthBroker, user: str | None, password: str | None) -> tuple[mqtt.Client, int]:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"t-{user}-{time.monotonic_ns()}")
    if user is not None:
        client.username_pw_set(user, password)
    done = threading.Event()
    result: list[int] = []

    def on_connect(c: mqtt.Client, userdata: object, flags: object, reason: mqtt.ReasonCode,
                   properties: object) -> None:
        result.append(reason.value)
        done.set()

    client.on_connect = on_connect
    client.connect(broker.host, broker.port)
    client.loop_start()
    done.wait(5)
    return client, result[0] if result else -1


@pytest.mark.mqtt
def test_event_broker_passwords_and_acl(event_broker: AuthBroker) -> None:
    hub, rc = connect(event_broker, "hub", event_broker.password("hub"))
    assert rc == 0
    got: list[str] = []
    hub.on_message = lambda c, u, m: got.append(m.topic)
    hub.subscribe("trigono/v1/+/event", qos=1)
    time.sleep(0.3)

    _, rc_anon = connect(event_broker, None, None)
    _, rc_wrong = connect(event_broker, "B1", "nope")
    assert rc_anon != 0 and rc_wrong != 0  # no anonymous access, passwords checked

    b1, rc = connect(event_broker, "B1", event_broker.password("B1"))
    assert rc == 0
    b1_got: list[str] = []
    b1.on_message = lambda c, u, m: b1_got.append(m.topic)
    b1.subscribe("trigono/v1/+/ack", qos=1)
    time.sleep(0.2)
    b1.publish("trigono/v1/B1/event", b"{}", qos=1).wait_for_publish(5)
    b1.publish("trigono/v1/B2/event", b"{}", qos=1).wait_for_publish(5)  # forged: dropped
    b1.publish("trigono/v1/B1/ack", b"{}", qos=1).wait_for_publish(5)  # not the board's to write
    hub.publish("trigono/v1/B1/ack", b"{}", qos=1).wait_for_publish(5)
    hub.publish("trigono/v1/B2/ack", b"{}", qos=1).wait_for_publish(5)  # B1 may not read it
    time.sleep(0.5)
    assert "trigono/v1/B1/event" in got
    assert "trigono/v1/B2/event" not in got
    assert b1_got == ["trigono/v1/B1/ack"]  # the hub's, not B1's own
    for client in (hub, b1):
        client.loop_stop()
        client.disconnect()
