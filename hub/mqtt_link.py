"""The MQTT link (DESIGN.md §5) with paho-mqtt 2.x.

Subscribes (QoS 1) to ``trigono/v1/+/event``, ``…/status`` (retained ``online``, last
will ``lost``) and ``…/health`` (retained). Acks go to ``trigono/v1/<board>/ack`` (QoS 0:
cumulative, so a lost ack only costs a resend). The hub's session is persistent (``clean_session=False``, fixed client id)
so the broker queues events that arrive while the hub is down; the devices' own resends
cover everything the hub had not acknowledged.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from hub.transport import DeviceSink, Transport

SUBSCRIPTIONS = [
    (protocol.TOPIC_ROOT + "+/event", 1),
    (protocol.TOPIC_ROOT + "+/status", 1),
    (protocol.TOPIC_ROOT + "+/health", 0),
]


def parse_status(payload: bytes | bytearray) -> str | None:
    """``online``/``lost`` from a status payload (plain text or a JSON string).

    >>> parse_status(b"online"), parse_status(b'"lost"'), parse_status(b"x")
    ('online', 'lost', None)
    """
    try:
        text = payload.decode().strip().strip('"')
    except UnicodeError:
        return None
    return text if text in protocol.STATUS_VALUES else None


class MqttTransport(Transport):
    """One paho client; its network thread calls the hub sink."""

    name = "mqtt"

    def __init__(self, host: str, port: int = 1883, *, client_id: str = "trigono-hub",
                 keepalive: int = 15) -> None:
        self.host, self.port = host, port
        self.link = f"mqtt:{host}:{port}"
        self.connected = threading.Event()
        self._sink: DeviceSink | None = None
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                   clean_session=False, protocol=mqtt.MQTTv311)
        self._client.max_inflight_messages_set(100)
        self._client.max_queued_messages_set(0)
        self._client.reconnect_delay_set(min_delay=1, max_delay=2)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._keepalive = keepalive

    def start(self, sink: DeviceSink) -> None:
        self._sink = sink
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive)
        self._client.loop_start()

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
        self.connected.clear()

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        info = self._client.publish(protocol.topic(board, msg["type"]), protocol.encode_payload(msg),
                                    qos=ack_qos(msg))
        return info.rc == mqtt.MQTT_ERR_SUCCESS

    def describe(self) -> dict[str, Any]:
        return {"transport": self.name, "broker": f"{self.host}:{self.port}",
                "connected": self.connected.is_set(), "process": False}

    # -- paho callbacks (network thread) ---------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure:
            sock = client.socket()
            if isinstance(sock, socket.socket):
                # paho leaves Nagle on: a PUBACK then an ack publish waited for the
                # broker's delayed TCP ack (20-40 ms per event).
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            client.subscribe(SUBSCRIPTIONS)
            self.connected.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        deliver(self, self._sink, self.link, message.topic, message.payload)



def deliver(transport: Transport, sink: DeviceSink | None, link: str, topic: str,
            payload: bytes | bytearray) -> None:
    """Decode one MQTT message and hand it to the hub (status, event or health)."""
    assert sink is not None
    parsed = protocol.parse_topic(topic)
    if parsed is None:
        return
    board, kind = parsed
    if kind == "status":
        status = parse_status(payload)
        if status is None:
            sink.device_corrupt(transport, link, "bad status payload", board)
        else:
            sink.device_status(transport, board, status, link)
        return
    if kind not in ("event", "health"):
        return
    msg, reason = protocol.decode_payload(payload, board)
    if msg is None or msg.get("type") not in protocol.DEVICE_TYPES:
        sink.device_corrupt(transport, link, str(reason or "not a device message"), board)
        return
    if (kind == "health") != (msg["type"] == "health"):
        sink.device_corrupt(transport, link, f"{msg['type']} on the {kind} topic", board)
        return
    sink.device_message(transport, msg, link)


def ack_qos(msg: dict[str, Any]) -> int:
    """Acks go at QoS 0: they are cumulative, so a lost one costs only a resend, and a
    QoS 1 PUBACK per ack doubled the broker traffic and met Nagle's algorithm on the
    broker side (20 ms per event). Commands keep QoS 1."""
    return 0 if msg["type"] == "ack" else 1


class MqttProcessTransport(Transport):
    """The same link with paho in a child process (``hub.mqtt_receiver``): the hub's
    interpreter only decodes and ingests, so ingest keeps up with what one paho client
    can receive. What the hub sees is identical to :class:`MqttTransport`."""

    name = "mqtt"

    def __init__(self, host: str, port: int = 1883, *, client_id: str = "trigono-hub",
                 keepalive: int = 15) -> None:
        self.host, self.port = host, port
        self.link = f"mqtt:{host}:{port}"
        self.client_id, self.keepalive = client_id, keepalive
        self.connected = threading.Event()
        self._sink: DeviceSink | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._reader: threading.Thread | None = None
        self._send_lock = threading.Lock()

    def start(self, sink: DeviceSink) -> None:
        self._sink = sink
        mine, theirs = socket.socketpair()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "hub.mqtt_receiver", self.host, str(self.port), self.client_id,
             str(self.keepalive), str(theirs.fileno())], pass_fds=(theirs.fileno(),))
        theirs.close()
        self._conn = Connection(mine.detach())
        self._reader = threading.Thread(target=self._read, name="mqtt-receiver", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._conn is not None
        while True:
            try:
                item = self._conn.recv()
            except (EOFError, OSError):
                self.connected.clear()
                return
            if item[0] == "msgs":
                for topic, payload in item[1]:
                    deliver(self, self._sink, self.link, topic, payload)
            elif item[0] == "up":
                self.connected.set()
            elif item[0] == "down":
                self.connected.clear()

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        if self._conn is None:
            return False
        try:
            with self._send_lock:
                self._conn.send(("pub", protocol.topic(board, msg["type"]),
                                 protocol.encode_payload(msg), ack_qos(msg)))
            return True
        except OSError:
            return False

    def stop(self) -> None:
        if self._conn is not None:
            try:
                with self._send_lock:
                    self._conn.send(("stop",))
            except OSError:
                pass
        if self._proc is not None:
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._reader is not None:
            self._reader.join(timeout=2)
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self.connected.clear()

    def describe(self) -> dict[str, Any]:
        return {"transport": self.name, "broker": f"{self.host}:{self.port}",
                "connected": self.connected.is_set(), "process": True}
