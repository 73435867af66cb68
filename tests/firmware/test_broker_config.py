"""hardware/mosquitto: the event broker config starts on a real Mosquitto; per-board
passwords; the ACL lets a board write only its own topics."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.broker import Broker, mosquitto_binary
from tests.firmware.mp import ROOT

CONF_DIR = ROOT / "hardware" / "mosquitto"


class EventBroker(Broker):
    """hardware/mosquitto/mosquitto.conf with test paths and a free loopback port."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        passwd = workdir / "passwd"
        for i, (user, password) in enumerate([("hub", "hubpw"), ("B1", "b1pw"), ("B2", "b2pw")]):
            subprocess.run(["mosquitto_passwd", *([] if i else ["-c"]), "-b", str(passwd), user, password],
                           check=True, capture_output=True)
        passwd.chmod(0o644)
        text = (CONF_DIR / "mosquitto.conf").read_text()
        text = text.replace("listener 1883 0.0.0.0", f"listener {self.port} 127.0.0.1")
        text = text.replace("/etc/mosquitto/trigono/passwd", str(passwd))
        text = text.replace("/etc/mosquitto/trigono/acl", str(CONF_DIR / "acl"))
        text = text.replace("/var/lib/mosquitto/", f"{workdir}/")
        if os.geteuid() == 0:  # as root Mosquitto would drop to user mosquitto: no access to tmp
            text += "user root\n"
        self.conf.write_text(text)


@pytest.fixture
def event_broker(tmp_path: Path) -> Iterator[EventBroker]:
    mosquitto_binary()
    broker = EventBroker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.stop()


def connect(broker: EventBroker, user: str | None, password: str | None) -> tuple[mqtt.Client, int]:
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
def test_event_broker_passwords_and_acl(event_broker: EventBroker) -> None:
    hub, rc = connect(event_broker, "hub", "hubpw")
    assert rc == 0
    got: list[str] = []
    hub.on_message = lambda c, u, m: got.append(m.topic)
    hub.subscribe("trigono/#", qos=1)
    time.sleep(0.3)

    _, rc_anon = connect(event_broker, None, None)
    _, rc_wrong = connect(event_broker, "B1", "nope")
    assert rc_anon != 0 and rc_wrong != 0  # no anonymous access, passwords checked

    b1, rc = connect(event_broker, "B1", "b1pw")
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
    assert got.count("trigono/v1/B1/ack") == 1  # the hub's, not B1's
    assert b1_got == ["trigono/v1/B1/ack"]
    for client in (hub, b1):
        client.loop_stop()
        client.disconnect()
