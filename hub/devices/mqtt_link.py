"""The MQTT link (docs/design.md §5) with paho-mqtt 2.x.

Subscribes (QoS 1) to ``trigono/v1/+/event``, ``…/status`` (retained ``online``, last
will ``lost``) and ``…/health`` (retained). Acks go to ``trigono/v1/<board>/ack`` (QoS 0:
cumulative, so a lost ack only costs a resend). The hub's session is persistent
(``clean_session=False``) under a client id of its own (:func:`default_client_id`: one
per hub and event store, so two hubs never take each other's session) so the broker
queues events that arrive while the hub is down; the devices' own resends cover
everything the hub had not acknowledged.

The hub logs in with its own user (:class:`MqttSettings`: user, password, TLS with a CA
file and optionally a client certificate; hardware/mosquitto/ and docs/security.md). A
connection the broker refuses (bad password, not authorised) is logged at ERROR and
shown by :meth:`MqttTransport.describe` as ``"state": "refused"``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import socket
import ssl
import subprocess
import sys
import threading
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import orjson
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from firmware import protocol
from hub.devices import board_id
from hub.devices.address import parse_hostport
from hub.devices.rejects import RejectLog
from hub.devices.transport import DeviceSink, Transport

SUBSCRIPTIONS = [
    (protocol.TOPIC_ROOT + "+/event", 1),
    (protocol.TOPIC_ROOT + "+/status", 1),
    (protocol.TOPIC_ROOT + "+/health", 0),
]
PASSWORD_ENV = "TRIGONO_MQTT_PASSWORD"

log = logging.getLogger("hub.links")


def default_client_id(db: str) -> str:
    """A client id of this hub's own, stable across its restarts (the persistent session
    is found again) and different for another hub or another event store.

    >>> a, b = default_client_id("a.db"), default_client_id("b.db")
    >>> a.startswith("trigono-hub-") and a != b and a == default_client_id("a.db") and len(a) <= 64
    True
    """
    where = os.path.abspath(db) if db != ":memory:" else f"memory-{os.getpid()}"
    digest = hashlib.sha256(f"{socket.gethostname()}:{where}".encode()).hexdigest()[:10]
    return f"trigono-hub-{socket.gethostname()[:30]}-{digest}"


def read_password(path: str | None) -> str | None:
    """The MQTT password from a file (its first line), else from ${TRIGONO_MQTT_PASSWORD}:
    never from the command line, where every local user could read it with ``ps``."""
    if path is not None:
        with open(path, encoding="utf-8") as f:
            return f.readline().rstrip("\r\n")
    return os.environ.get(PASSWORD_ENV)


@dataclass(frozen=True)
class MqttSettings:
    """Where and as whom the hub connects. TLS is on when ``cafile`` is given (the
    broker's certificate is verified against it); ``certfile``/``keyfile`` add a client
    certificate."""

    host: str
    port: int = 1883
    client_id: str = "trigono-hub"
    keepalive: int = 15
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    cafile: str | None = None
    certfile: str | None = None
    keyfile: str | None = None

    @property
    def tls(self) -> bool:
        return self.cafile is not None

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> MqttSettings:
        return cls(**json.loads(text))


def add_mqtt_options(parser: argparse.ArgumentParser) -> None:
    """The hub's MQTT options: broker, identity, credentials, TLS (``trigono hub``)."""

    parser.add_argument("--mqtt", type=parse_hostport, metavar="HOST:PORT", help="MQTT broker")
    parser.add_argument("--client-id", default=None,
                        help="MQTT client id (persistent session); default: one of this hub's own, "
                             "from the host name and the event store")
    parser.add_argument("--mqtt-user", help="the hub's broker user (scripts/mqtt-users)")
    parser.add_argument("--mqtt-password-file", metavar="FILE",
                        help=f"file whose first line is the password (else ${PASSWORD_ENV}); "
                             "never on the command line")
    parser.add_argument("--mqtt-cafile", metavar="FILE", help="CA certificate: connect with TLS and "
                                                            "verify the broker against it")
    parser.add_argument("--mqtt-certfile", metavar="FILE", help="client certificate (TLS, optional)")
    parser.add_argument("--mqtt-keyfile", metavar="FILE", help="client certificate's key (TLS)")
    parser.add_argument("--mqtt-in-process", action="store_true",
                        help="run the MQTT client in the hub's process (default: a receiver process)")


def transport_from_args(args: argparse.Namespace, db: str) -> Transport | None:
    """The MQTT link the options of :func:`add_mqtt_options` ask for (None without
    ``--mqtt``). Raises ``OSError`` when the password file cannot be read."""
    if args.mqtt is None:
        return None
    host, port = args.mqtt
    link = MqttTransport if args.mqtt_in_process else MqttProcessTransport
    return link(host, port, client_id=args.client_id or default_client_id(db),
                username=args.mqtt_user, password=read_password(args.mqtt_password_file),
                cafile=args.mqtt_cafile, certfile=args.mqtt_certfile, keyfile=args.mqtt_keyfile)


def stop_client(client: mqtt.Client) -> None:
    """Disconnect, stop the network thread, and close what paho keeps open: ``loop_stop``
    leaves its wake-up socket pair (two TCP sockets on 127.0.0.1) open until the client
    is garbage-collected, two file descriptors per client (a transfer client per board
    updated) and a ResourceWarning at whatever moment the collector runs (a test of the
    suite failed on one). paho 2.x has no public call for it."""
    client.disconnect()
    client.loop_stop()
    client._reset_sockets()


def new_client(settings: MqttSettings) -> mqtt.Client:
    """A paho client for the hub: persistent session, credentials, TLS, no local queue
    limit beyond paho's in-flight window, quick reconnects. Nagle's algorithm stays on:
    it packs the PUBACKs of a burst into few TCP segments. With TCP_NODELAY each PUBACK
    was a segment of its own, and the link carried 13.7k events/s instead of 19.0k
    (bench/hub_ingest.py, 2026-12-01). What it delays — an ack or command written while
    a PUBACK waits for its TCP ack, by at most the broker's delayed-ack time (40 ms) —
    goes at QoS 0 to a board that resends only after 2 s."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=settings.client_id,
                         clean_session=False, protocol=mqtt.MQTTv311)
    client.max_inflight_messages_set(100)
    client.max_queued_messages_set(0)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set(ca_certs=settings.cafile, certfile=settings.certfile, keyfile=settings.keyfile,
                       cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    return client


class LinkState:
    """The connection's state as the admin page shows it, logged when it changes:
    ``connecting``, ``connected``, ``refused`` (the broker said no: ERROR), ``down``."""

    def __init__(self, link: str, user: str | None) -> None:
        self.link, self.user = link, user
        self.state = "connecting"
        self.error: str | None = None
        self.connected = threading.Event()
        self._lock = threading.Lock()

    def up(self) -> None:
        with self._lock:
            if self.state != "connected":
                log.info("%s: connected", self.link)
            self.state, self.error = "connected", None
            self.connected.set()

    def refused(self, reason: str) -> None:
        with self._lock:
            self.connected.clear()
            if (self.state, self.error) != ("refused", reason):
                log.error("%s: the broker refused the hub's connection as user %s: %s "
                          "(check --mqtt-user, the password file and the broker's ACL)",
                          self.link, self.user or "(anonymous)", reason)
            self.state, self.error = "refused", reason

    def down(self, reason: str | None = None) -> None:
        with self._lock:
            self.connected.clear()
            if self.state == "refused":
                return  # keep showing why
            if self.state == "connected":
                log.warning("%s: connection lost%s", self.link, f" ({reason})" if reason else "")
            self.state, self.error = "down", reason

    def describe(self) -> dict[str, Any]:
        with self._lock:
            return {"state": self.state, "error": self.error, "connected": self.connected.is_set()}


class MqttTransport(Transport):
    """One paho client; its network thread calls the hub sink."""

    name = "mqtt"

    def __init__(self, host: str, port: int = 1883, *, client_id: str = "trigono-hub",
                 keepalive: int = 15, username: str | None = None, password: str | None = None,
                 cafile: str | None = None, certfile: str | None = None,
                 keyfile: str | None = None) -> None:
        self.settings = MqttSettings(host, port, client_id, keepalive, username, password, cafile,
                                     certfile, keyfile)
        self.host, self.port = host, port
        self.link = f"mqtt:{host}:{port}"
        self.status = LinkState(self.link, username)
        self.connected = self.status.connected
        self.rejects = RejectLog(self.link)
        self._sink: DeviceSink | None = None
        self._client = new_client(self.settings)
        self._client.on_connect = self._on_connect
        self._client.on_subscribe = self._on_subscribe
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self, sink: DeviceSink) -> None:
        self._sink = sink
        self._client.connect_async(self.host, self.port, keepalive=self.settings.keepalive)
        self._client.loop_start()

    def stop(self) -> None:
        stop_client(self._client)
        self.connected.clear()

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        info = self._client.publish(protocol.topic(board, msg["type"]), protocol.encode_payload(msg),
                                    qos=ack_qos(msg))
        return info.rc == mqtt.MQTT_ERR_SUCCESS

    def describe(self) -> dict[str, Any]:
        return describe_link(self.settings, self.status, self.rejects, process=False)

    # -- paho callbacks (network thread) ---------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            self.status.refused(str(reason))
            return
        client.subscribe(SUBSCRIPTIONS)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        self.status.up()  # subscribed: from now on the broker keeps what boards send

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.status.down("cannot reach the broker")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.status.down(str(reason))

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        item = sort_payload(message.topic, message.payload, bool(message.retain))
        if item is not None:
            hand_over(self, self._sink, self.rejects, [item])


def describe_link(settings: MqttSettings, status: LinkState, rejects: RejectLog,
                  process: bool) -> dict[str, Any]:
    """The health page's view of an MQTT link."""
    return {"transport": "mqtt", "broker": f"{settings.host}:{settings.port}", "process": process,
            "client_id": settings.client_id, "user": settings.username, "tls": settings.tls,
            "rejected": rejects.total, **status.describe()}


Sorted = tuple[str, str | None, Any, Any]
"""A payload as :func:`sort_payload` read it: ``("message", board, msg, raw JSON)``
(``"retained"`` instead of ``"message"`` for a health message the broker kept),
``("status", board, "online"|"lost", None)`` or ``("bad", board|None, reason, None)``."""


def sort_payload(topic: str, payload: bytes | bytearray, retained: bool = False) -> Sorted | None:
    """Decode and check one MQTT message (None: a topic the hub does not read). Runs in
    the receiver process for :class:`MqttProcessTransport`, so the hub's interpreter
    gets decoded messages (decoding was half of its link thread's time). ``retained``:
    the broker's retain flag, set only on what it kept and hands a new subscription."""
    parsed = protocol.parse_topic(topic)
    if parsed is None:
        return ("bad", None, "not a protocol topic", None)
    board, kind = parsed
    refused = board_id.refusal(board)
    if refused is not None:  # counted on the link, under no board's name (issue 32.11)
        return ("bad", None, refused, None)
    if kind == "status":
        status = parse_status(payload)
        return ("bad", board, "bad status payload", None) if status is None else ("status", board, status, None)
    if kind not in ("event", "health"):
        return None
    msg, reason = protocol.decode_payload(payload, board, orjson.loads)
    if msg is None or msg.get("type") not in protocol.DEVICE_TYPES:
        reason = str(reason or "not a device message")
    elif (kind == "health") != (msg["type"] == "health"):
        reason = f"{msg['type']} on the {kind} topic"
    else:
        return ("retained" if retained else "message", board, msg, bytes(payload).decode())
    return ("bad", board, reason, None)


def hand_over(transport: Transport, sink: DeviceSink | None, rejects: RejectLog,
              items: list[Sorted]) -> None:
    """Give sorted payloads to the hub in order: messages in runs (one inbox round for
    a run), a bad one counted against the board its topic names and logged (rate-limited)."""
    assert sink is not None
    link = rejects.link
    run: list[tuple[dict[str, Any], str | None]] = []
    for what, board, value, raw in items:
        if what == "message":
            run.append((value, raw))
            continue
        if run:
            sink.device_messages(transport, run, link)
            run = []
        if what == "retained":
            sink.device_messages(transport, [(value, raw)], link, retained=True)
        elif what == "status":
            assert board is not None
            sink.device_status(transport, board, value, link)
        else:
            rejects.note(board, value)
            if board is not None:
                sink.device_corrupt(transport, link, value, board)
    if run:
        sink.device_messages(transport, run, link)


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


def ack_qos(msg: dict[str, Any]) -> int:
    """Everything the hub sends a board goes at QoS 0. Acks are cumulative, so a lost one
    costs only a resend; commands (selftest, tare, health, resend, newboot) are asked
    again when still needed, and the firmware subscribes at QoS 0 anyway (the broker
    delivers at the lower of the two). A QoS 1 publish costs a PUBACK that meets Nagle's
    algorithm on the broker's side and holds back the events behind it: 20 ms per event
    for acks, and again for the selftest sent after every throw (bench/hub_ingest.py p50
    1.5 -> 22 ms)."""
    return 0


class MqttProcessTransport(Transport):
    """The same link with paho in a child process (``hub.devices.mqtt_receiver``): the hub's
    interpreter only decodes and ingests, so ingest keeps up with what one paho client
    can receive. What the hub sees is identical to :class:`MqttTransport`. The settings
    (password included) go to the child over its socket pair, not on its command line."""

    name = "mqtt"

    def __init__(self, host: str, port: int = 1883, *, client_id: str = "trigono-hub",
                 keepalive: int = 15, username: str | None = None, password: str | None = None,
                 cafile: str | None = None, certfile: str | None = None,
                 keyfile: str | None = None) -> None:
        self.settings = MqttSettings(host, port, client_id, keepalive, username, password, cafile,
                                     certfile, keyfile)
        self.host, self.port = host, port
        self.link = f"mqtt:{host}:{port}"
        self.status = LinkState(self.link, username)
        self.connected = self.status.connected
        self.rejects = RejectLog(self.link)
        self._sink: DeviceSink | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._reader: threading.Thread | None = None
        self._send_lock = threading.Lock()

    def start(self, sink: DeviceSink) -> None:
        self._sink = sink
        mine, theirs = socket.socketpair()
        self._proc = subprocess.Popen([sys.executable, "-m", "hub.devices.mqtt_receiver", str(theirs.fileno())],
                                      pass_fds=(theirs.fileno(),))
        theirs.close()
        self._conn = Connection(mine.detach())
        self._conn.send(("settings", self.settings.to_json()))
        self._reader = threading.Thread(target=self._read, name="mqtt-receiver", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._conn is not None
        while True:
            try:
                item = self._conn.recv()
            except (EOFError, OSError):
                self.status.down("receiver process ended")
                return
            if item[0] == "msgs":
                hand_over(self, self._sink, self.rejects, item[1])
            elif item[0] == "up":
                self.status.up()
            elif item[0] == "refused":
                self.status.refused(item[1])
            elif item[0] == "down":
                self.status.down(item[1])

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        return self._to_receiver([(board, msg)])

    def send_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        self._to_receiver(items)

    def _to_receiver(self, items: list[tuple[str, dict[str, Any]]]) -> bool:
        """One crossing to the receiver process for the lot (a socket write each would
        cost a third of the hub's ingest time: bench/hub_ingest.py)."""
        if self._conn is None:
            return False
        pubs = [(protocol.topic(board, msg["type"]), protocol.encode_payload(msg), ack_qos(msg))
                for board, msg in items]
        try:
            with self._send_lock:
                self._conn.send(("pubs", pubs))
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
        return describe_link(self.settings, self.status, self.rejects, process=True)
