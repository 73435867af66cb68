"""Findings 4 and 5 of issue 13, against the shipped Mosquitto configuration: the hub logs
in with its own user (password from a file, TLS), a board writes only its own topics,
nobody can take the hub's session, and a refused hub says so at ERROR."""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from hub.devices.mqtt_link import MqttProcessTransport, MqttTransport, read_password, stop_client
from hub.facade import Hub
from tests.broker import AuthBroker, make_certificates
from tests.hub.boards import wait_for

pytestmark = [pytest.mark.chaos, pytest.mark.mqtt]


def client(broker: AuthBroker, user: str | None, password: str | None, client_id: str = "",
           port: int | None = None, cafile: str | None = None) -> tuple[mqtt.Client, int]:
    """A paho client connected (or refused): (client, CONNACK reason code value)."""
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id or f"t-{time.monotonic_ns()}")
    if user is not None:
        c.username_pw_set(user, password)
    if cafile is not None:
        c.tls_set(ca_certs=cafile, cert_reqs=ssl.CERT_REQUIRED)
    done = threading.Event()
    result: list[int] = []

    def on_connect(cl: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        result.append(reason.value)
        done.set()

    c.on_connect = on_connect
    c.connect(broker.host, port or broker.port)
    c.loop_start()
    done.wait(5)
    return c, result[0] if result else -1


def drop(board: str, seq: int, hole: str = "big") -> bytes:
    return protocol.encode_payload({"type": "drop", "board": board, "boot": 1, "seq": seq,
                                    "t_us": 1000 * seq, "hole": hole})


def refusals(broker: AuthBroker) -> int:
    """Connections the broker has refused so far (its log says each one)."""
    log = broker.workdir / "mosquitto.log"
    return log.read_text().count("disconnected, not authorised.") if log.exists() else 0


def retried_twice(broker: AuthBroker) -> bool:
    """Until the refused client has tried twice more (paho retries every 1-2 s): what
    it logs meanwhile is checked over real retries, however slow the machine."""
    seen = refusals(broker)
    return wait_for(lambda: refusals(broker) >= seen + 2, timeout=30)


def received(hub: Hub, board: str) -> int:
    return next((b["received"] for b in hub.boards() if b["board"] == board), 0)


@pytest.mark.parametrize("transport", [MqttTransport, MqttProcessTransport])
def test_a_board_writes_only_its_own_topics_finding_4(
        auth_broker: AuthBroker, transport: type[MqttTransport] | type[MqttProcessTransport]) -> None:
    hub = Hub(":memory:")
    hub.start()
    hub.register_board("B1")
    link = transport(auth_broker.host, auth_broker.port, client_id="hub-a", username="hub",
                     password=read_password(str(auth_broker.password_file("hub"))))
    hub.add_transport(link)
    b1, rc = client(auth_broker, "B1", auth_broker.password("B1"))
    acks: list[str] = []
    try:
        assert rc == 0 and link.connected.wait(5), link.describe()
        assert link.describe()["state"] == "connected"
        b1.on_message = lambda c, u, m: acks.append(m.topic)
        b1.subscribe("trigono/v1/+/ack", qos=1)
        b1.publish(protocol.topic("B1", "event"), drop("B1", 1), qos=1).wait_for_publish(5)
        assert wait_for(lambda: received(hub, "B1") == 1, timeout=30)
        # B1 forges B2's event (its own payload and B2's topic): the broker drops it.
        b1.publish(protocol.topic("B2", "event"), drop("B2", 1), qos=1).wait_for_publish(5)
        # Nobody without a password gets in at all (the one-line mosquitto_pub of the finding).
        anonymous, rc_anon = client(auth_broker, None, None)
        wrong, rc_wrong = client(auth_broker, "B2", "guess")
        assert rc_anon != 0 and rc_wrong != 0
        # A board cannot acknowledge for another board nor read another board's acks.
        b1.publish(protocol.topic("B2", "ack"), protocol.encode_payload(protocol.ack(1, 99)), qos=1)
        b1.publish(protocol.topic("B1", "event"), drop("B1", 2), qos=1).wait_for_publish(5)
        assert wait_for(lambda: received(hub, "B1") == 2, timeout=30)
        time.sleep(0.5)
        assert received(hub, "B2") == 0 and "B2" not in {b["board"] for b in hub.boards()}
        assert acks and set(acks) == {protocol.topic("B1", "ack")}  # the hub's acks to B1 only
    finally:
        stop_client(b1)
        hub.close()


def test_nobody_takes_the_hubs_session_and_two_hubs_share_a_broker_finding_5(
        auth_broker: AuthBroker) -> None:
    hubs = [Hub(":memory:"), Hub(":memory:")]
    links = []
    for hub, user in zip(hubs, ["hub", "hub2"], strict=True):
        hub.start()
        hub.register_board("B4")  # both referee it here (the ACL of this broker lets them)
        # Both ask for the same client id: the broker uses each one's user name instead.
        link = MqttTransport(auth_broker.host, auth_broker.port, client_id="trigono-hub", username=user,
                             password=auth_broker.password(user))
        hub.add_transport(link)
        links.append(link)
    drops: list[mqtt.Client] = []
    try:
        assert all(link.connected.wait(5) for link in links)
        # A board presents the hub's user name as its client id, then the fixed id.
        for cid in ("hub", "trigono-hub"):
            thief, rc = client(auth_broker, "B3", auth_broker.password("B3"), client_id=cid)
            drops.append(thief)
            assert rc == 0
        b4, rc = client(auth_broker, "B4", auth_broker.password("B4"))
        drops.append(b4)
        for seq in range(1, 6):
            b4.publish(protocol.topic("B4", "event"), drop("B4", seq), qos=1).wait_for_publish(5)
        assert wait_for(lambda: all(received(hub, "B4") == 5 for hub in hubs), timeout=30)
        # Neither hub was ever thrown off its session.
        assert [link.describe()["state"] for link in links] == ["connected", "connected"]
        assert all(link.connected.is_set() for link in links)
    finally:
        for c in drops:
            stop_client(c)
        for hub in hubs:
            hub.close()


@pytest.mark.parametrize("transport", [MqttTransport, MqttProcessTransport])
def test_a_refused_hub_logs_an_error_and_shows_refused_finding_4(
        auth_broker: AuthBroker, transport: type[MqttTransport] | type[MqttProcessTransport],
        caplog: pytest.LogCaptureFixture) -> None:
    hub = Hub(":memory:")
    hub.start()
    link = transport(auth_broker.host, auth_broker.port, username="hub", password="not-the-password")
    try:
        with caplog.at_level(logging.ERROR, logger="hub.links"):
            hub.add_transport(link)
            assert wait_for(lambda: link.describe()["state"] == "refused", timeout=30)
            assert retried_twice(auth_broker)  # and still one line
        errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "hub.links"]
        assert len(errors) == 1 and "refused" in errors[0].getMessage()
        assert "not-the-password" not in caplog.text
        view = [d for d in hub.links() if d["transport"] == "mqtt"][0]
        assert view["state"] == "refused" and view["connected"] is False and view["error"]
    finally:
        hub.close()


def test_the_hub_connects_over_tls_and_verifies_the_broker(auth_broker: AuthBroker, tmp_path: Path) -> None:
    assert auth_broker.tls_port is not None
    hub = Hub(":memory:")
    hub.start()
    hub.register_board("B1")
    link = MqttProcessTransport(auth_broker.host, auth_broker.tls_port, username="hub",
                                password=auth_broker.password("hub"), cafile=str(auth_broker.cafile))
    b1, rc = client(auth_broker, "B1", auth_broker.password("B1"), port=auth_broker.tls_port,
                    cafile=str(auth_broker.cafile))
    try:
        hub.add_transport(link)
        assert rc == 0 and link.connected.wait(8), link.describe()
        assert link.describe()["tls"] is True
        b1.publish(protocol.topic("B1", "event"), drop("B1", 1), qos=1).wait_for_publish(5)
        assert wait_for(lambda: received(hub, "B1") == 1, timeout=30)
        # A CA that did not sign the broker's certificate: the handshake fails.
        other = tmp_path / "other"
        other.mkdir()
        make_certificates(other)
        context = ssl.create_default_context(cafile=str(other / "ca.crt"))
        with socket.create_connection((auth_broker.host, auth_broker.tls_port), timeout=5) as raw:
            with pytest.raises(ssl.SSLCertVerificationError):
                context.wrap_socket(raw, server_hostname="127.0.0.1")
    finally:
        stop_client(b1)
        hub.close()


def test_a_boards_mqtt_login_is_its_board_id() -> None:
    """The firmware takes its MQTT password from local.py (scripts/mqtt-users writes it)
    and refuses a user other than its board id: the ACL would drop all it publishes."""
    from types import SimpleNamespace

    from firmware import config

    cfg = {"board": "B1"}
    assert config.mqtt_login(cfg, SimpleNamespace(MQTT_PASSWORD="pw")) == ("B1", "pw")
    assert config.mqtt_login(cfg, SimpleNamespace(MQTT_USER="B1", MQTT_PASSWORD="pw")) == ("B1", "pw")
    assert config.mqtt_login(cfg, None) == ("B1", None)
    with pytest.raises(config.ConfigError, match="not the board id"):
        config.mqtt_login(cfg, SimpleNamespace(MQTT_USER="B2", MQTT_PASSWORD="pw"))


def test_trigono_hub_says_at_error_level_that_the_broker_refused_it_finding_4(
        auth_broker: AuthBroker, tmp_path: Path) -> None:
    """The real ``trigono hub`` at its default log level: a wrong password is one ERROR
    line on stderr (it used to loop on 'not authorised' silently)."""
    import json
    import subprocess
    import sys

    wrong = tmp_path / "wrong.password"
    wrong.write_text("not-it\n")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "hub", "hub", "--db", str(tmp_path / "hub.db"), "--mqtt",
                             f"{auth_broker.host}:{auth_broker.port}", "--mqtt-user", "hub",
                             "--mqtt-password-file", str(wrong)],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and json.loads(proc.stdout.readline())["hub"] == "ready"
        assert retried_twice(auth_broker)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    errors = [line for line in err.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "refused the hub's connection as user hub" in errors[0], err
    assert "not-it" not in err


def test_mqtt_users_keeps_passwords_rotates_one_and_refuses_bad_names(tmp_path: Path) -> None:
    import json
    import subprocess

    script = Path(__file__).resolve().parents[2] / "scripts" / "mqtt-users"
    out = tmp_path / "users"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), "--out", str(out), *args], capture_output=True, text=True)

    def secrets() -> dict[str, str]:
        data: dict[str, str] = json.loads((out / "secrets.json").read_text())
        return data

    assert run("--boards", "B1", "B2").returncode == 0
    first = secrets()
    assert run("--boards", "B3").returncode == 0 and {k: secrets()[k] for k in first} == first
    assert run("--rotate", "B1").returncode == 0
    assert secrets()["B1"] != first["B1"] and secrets()["B2"] == first["B2"]
    assert f"MQTT_PASSWORD = {secrets()['B1']!r}" in (out / "boards" / "B1" / "local.py").read_text()
    assert (out / "hub-hub.password").read_text().strip() == secrets()["hub"]
    assert sorted(line.split(":")[0] for line in (out / "passwd").read_text().splitlines()) == [
        "B1", "B2", "B3", "hub"]
    assert all(secret not in (out / "passwd").read_text() for secret in secrets().values())  # hashed
    for bad in (["--boards", "B/1"], ["--boards", "hub"], ["--rotate", "B9"]):
        assert run(*bad).returncode == 2
