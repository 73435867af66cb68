# Links between a node and the hub. A link is any object with:
#   attach(node)   remember the node; call node.link_up(self) whenever the link (re)connects
#   is_up() -> bool
#   send(msg) -> bool      one device message (event or health); False = not sent now
#   service(now)           called every poll: connect, read incoming, keep alive
# and it hands what the hub sends to node.receive(msg) (decoded ack/cmd dicts), or
# node.bad_input(reason) for junk. Pure logic: hardware I/O is behind callables.

from firmware import protocol
from firmware.clock import ticks_add, ticks_diff


class SerialLink:
    """Protocol lines over a byte stream (USB CDC on a board, a pty in the simulator).

    write(data: bytes) sends; read() -> bytes or None (optional, non-blocking) is polled
    by service(); a board with an asyncio stream reader calls feed(data) itself instead.
    """

    name = "serial"

    def __init__(self, write, read=None):
        self._write = write
        self._read = read
        self._buf = b""
        self.node = None
        self.bad = 0
        self.write_errors = 0

    def attach(self, node):
        self.node = node
        node.link_up(self)

    def is_up(self):
        return True

    def send(self, msg):
        try:
            self._write(protocol.encode_line(msg))
            return True
        except OSError:
            self.write_errors += 1
            return False

    def service(self, now):
        if self._read is None:
            return
        data = self._read()
        if data:
            self.feed(data)

    def feed(self, data):
        """Bytes from the hub: complete lines are decoded and handed to the node."""
        buf = self._buf + data
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line = buf[:nl]
            buf = buf[nl + 1 :]
            if line.strip():
                self._line(line)
        if len(buf) > protocol.MAX_LINE:
            buf = b""
            self._bad("line too long")
        self._buf = buf

    def _line(self, line):
        msg, reason = protocol.decode_line(line)
        if msg is None or msg.get("type") not in protocol.HUB_TYPES:
            self._bad(reason or "not a hub message")
            return
        if self.node is not None:
            self.node.receive(msg)

    def _bad(self, reason):
        self.bad += 1
        if self.node is not None:
            self.node.bad_input(reason)


class MqttLink:
    """The MQTT link (docs/design.md §5 topics) over firmware.mqtt.MqttClient, never blocking.

    make_client() -> a fresh client with MqttClient's API: set_callback(f),
    set_last_will(topic, msg, retain, qos), begin(now), service(now), `connected`,
    publish(topic, msg, retain, qos) -> bool, subscribe(topic, qos), disconnect(),
    close(). Events and health go at QoS 0 (the hub acknowledges events end to end and
    the outbox resends); health and status are retained; last will retained "lost".
    Subscribes to the board's ack and cmd topics. network_up() (optional) says whether
    Wi-Fi is up before an attempt; any error in it or in the client drops the link and a
    new attempt follows retry_ms later.
    """

    name = "mqtt"

    def __init__(self, board, make_client, keepalive_s=15, retry_ms=2000, network_up=None):
        self.board = board
        self.make_client = make_client
        self.keepalive_us = keepalive_s * 1000000
        self.retry_us = retry_ms * 1000
        self.network_up = network_up
        self.client = None
        self.node = None
        self.up = False
        self.connects = 0
        self.errors = 0
        self.last_error = None
        self._next_try = None
        self.t_event = protocol.topic(board, "event")
        self.t_health = protocol.topic(board, "health")
        self.t_status = protocol.topic(board, "status")
        self.t_ack = protocol.topic(board, "ack")
        self.t_cmd = protocol.topic(board, "cmd")
        self.t_update = protocol.topic(board, "update")  # hub -> board (issue 33)
        self.t_update_state = protocol.topic(board, "update_state")

    def attach(self, node):
        self.node = node

    def is_up(self):
        return self.up

    def service(self, now):
        if self.client is None:
            if self._next_try is not None and ticks_diff(now, self._next_try) < 0:
                return
            self._next_try = ticks_add(now, self.retry_us)
            try:  # ESP32 wlan.connect() raises "Wifi Internal Error" while still connecting
                if self.network_up is not None and not self.network_up():
                    return
                client = self.make_client()
                self.client = client
                client.set_callback(self._on_message)
                client.set_last_will(self.t_status, b"lost", True, 1)
                client.begin(now)
            except Exception as err:  # noqa: BLE001 - Wi-Fi or socket trouble: a link fault, not a crash
                self._down(err, now)
                return
        client = self.client
        try:
            client.service(now)
            if client.connected and not self.up:
                client.subscribe(self.t_ack, 0)
                client.subscribe(self.t_cmd, 0)
                client.subscribe(self.t_update, 0)
                client.publish(self.t_status, b"online", True, 0)
                self.up = True
                self.connects += 1
                if self.node is not None:
                    self.node.link_up(self)
        except Exception as err:  # noqa: BLE001 - any socket or protocol error: reconnect
            self._down(err, now)

    def send(self, msg):
        client = self.client
        if not self.up or client is None:
            return False
        try:
            if msg["type"] == "health":
                return client.publish(self.t_health, protocol.encode_payload(msg), True, 0)
            if msg["type"] == "update_state":
                return client.publish(self.t_update_state, protocol.encode_payload(msg), False, 0)
            return client.publish(self.t_event, protocol.encode_payload(msg), False, 0)
        except Exception as err:  # noqa: BLE001
            self._down(err, None)
            return False

    def close(self):
        """Leave cleanly (the broker then does not publish the will)."""
        client = self.client
        if self.up and client is not None:
            try:
                client.publish(self.t_status, b"lost", True, 0)
                client.disconnect()
            except Exception:  # noqa: BLE001
                pass
        self.up = False
        self.client = None

    def _down(self, err, now):
        self.errors += 1
        self.last_error = repr(err)
        self.up = False
        client, self.client = self.client, None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001
                pass

    def _on_message(self, topic, payload):
        parsed = protocol.parse_topic(topic)
        if parsed is None or parsed[0] != self.board or parsed[1] not in ("ack", "cmd", "update"):
            return
        msg, reason = protocol.decode_payload(payload)
        if self.node is None:
            return
        if msg is None or msg.get("type") != parsed[1]:
            self.node.bad_input(reason or "wrong type on topic")
        else:
            self.node.receive(msg)
