# A small MQTT 3.1.1 client that never blocks: a non-blocking socket, an output buffer
# written as the socket takes it, an input buffer parsed as bytes arrive. The node's
# main loop calls service(now) every poll; nothing here waits for the network.
#
# Why not umqtt.simple: its QoS 1 publish waits for PUBACK and its reads block once a
# packet has started, with no timeout, so a frozen or half-open broker froze the whole
# board (issue 14). Why not mqtt_as: it needs its own asyncio tasks and ~3 KiB more RAM,
# and its QoS 1 retries duplicate what the outbox already does end to end (the hub acks
# every event; the board resends until it does). So events go at QoS 0, and a link that
# hears nothing from the broker for 1.5 x keepalive (we ping every keepalive / 2) or gets
# no CONNACK within connect_timeout is dropped and made again.
#
# Runs unchanged on MicroPython (rp2, esp32, unix) and CPython (the hub's simulator).

import errno
import select
import socket

from firmware.clock import ticks_diff

OUT_MAX = 2048  # bytes queued for the socket; above this publish() says "not now"
IN_MAX = 2048  # a packet bigger than this from the broker is a protocol error
_WOULD_BLOCK = (errno.EAGAIN, errno.EINPROGRESS, getattr(errno, "EWOULDBLOCK", errno.EAGAIN))


class MqttError(OSError):
    """The connection is unusable (refused, closed, silent, bad packet): drop it."""


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | 0x80 if n else byte)
        if not n:
            return bytes(out)


def _str(s):
    b = s.encode() if isinstance(s, str) else bytes(s)
    return bytes((len(b) >> 8, len(b) & 0xFF)) + b


def _packet(head, body):
    return bytes((head,)) + _varint(len(body)) + body


def _errno(err):
    return err.args[0] if err.args else None


class MqttClient:
    """One MQTT connection attempt and, once CONNACK arrives, the connection.

    begin(now) opens the socket; service(now) moves bytes and keeps the connection
    alive; `connected` turns True at CONNACK. Any fault raises MqttError (or OSError)
    from service()/begin(): the caller closes this client and makes a new one later.
    """

    def __init__(self, client_id, host, port=1883, user=None, password=None, keepalive_s=15,
                 connect_timeout_ms=5000):
        self.client_id = client_id
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.keepalive_us = keepalive_s * 1000000
        self.connect_timeout_us = connect_timeout_ms * 1000
        self.sock = None
        self.poller = None
        self.connected = False
        self.tcp_up = False
        self.callback = None
        self.out = bytearray()
        self.inbuf = bytearray()
        self.will = None
        self.started = 0
        self.last_rx = 0
        self.last_ping = 0
        self.pid = 0
        self.stats_max_out = 0

    # -- set-up --------------------------------------------------------------------------
    def set_callback(self, callback):
        """callback(topic: bytes, payload: bytes) for each message from the broker."""
        self.callback = callback

    def set_last_will(self, topic, msg, retain=False, qos=0):
        self.will = (topic, msg, retain, qos)

    def begin(self, now, clean_session=True):
        """Start connecting (returns at once); CONNECT waits in the output buffer."""
        addr = socket.getaddrinfo(self.host, self.port)[0][-1]  # an IP literal: no DNS wait
        sock = socket.socket()
        self.sock = sock
        sock.setblocking(False)
        nodelay = getattr(socket, "TCP_NODELAY", None)
        tcp = getattr(socket, "IPPROTO_TCP", None)
        if nodelay is not None and tcp is not None:  # lwIP and Linux name it; never guess numbers
            try:
                sock.setsockopt(tcp, nodelay, 1)
            except OSError:
                pass
        try:
            sock.connect(addr)
        except OSError as err:
            if _errno(err) not in _WOULD_BLOCK:
                raise
        self.poller = select.poll()
        self.poller.register(sock, select.POLLOUT | select.POLLIN)
        self.started = self.last_rx = self.last_ping = now
        self.out += self._connect_packet(clean_session)

    def _connect_packet(self, clean):
        flags = 0x02 if clean else 0
        payload = _str(self.client_id)
        if self.will is not None:
            topic, msg, retain, qos = self.will
            flags |= 0x04 | (qos << 3) | (0x20 if retain else 0)
            payload += _str(topic) + _str(msg)
        if self.user is not None:
            flags |= 0x80
            payload += _str(self.user)
            if self.password is not None:
                flags |= 0x40
                payload += _str(self.password)
        ka = self.keepalive_us // 1000000
        body = _str("MQTT") + bytes((4, flags, ka >> 8, ka & 0xFF)) + payload
        return _packet(0x10, body)

    # -- outgoing ------------------------------------------------------------------------
    def publish(self, topic, msg, retain=False, qos=0):
        """Queue a QoS 0 publish; False (nothing queued) while the output is backed up."""
        if len(self.out) > OUT_MAX:
            return False
        if isinstance(msg, str):
            msg = msg.encode()
        self.out += _packet(0x30 | (1 if retain else 0), _str(topic) + msg)
        if len(self.out) > self.stats_max_out:
            self.stats_max_out = len(self.out)
        return True

    def subscribe(self, topic, qos=0):
        self.pid = self.pid % 65535 + 1
        self.out += _packet(0x82, bytes((self.pid >> 8, self.pid & 0xFF)) + _str(topic) + bytes((qos,)))

    def disconnect(self):
        """Best effort: queue DISCONNECT, write what the socket takes now, close."""
        if self.connected:
            self.out += b"\xe0\x00"
            try:
                if self.sock is not None:
                    self._write(self.sock)
            except OSError:
                pass
        self.close()

    def close(self):
        sock, self.sock = self.sock, None
        self.connected = False
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    # -- the pump ------------------------------------------------------------------------
    def service(self, now):
        """Write what the socket takes, read what is there, check the timers."""
        sock = self.sock
        if sock is None:
            raise MqttError("closed")
        if not self.tcp_up:
            if not self._tcp_ready():
                if ticks_diff(now, self.started) > self.connect_timeout_us:
                    raise MqttError("connect timed out")
                return
            self.tcp_up = True
        self._write(sock)
        self._read(sock, now)
        if not self.connected:
            if ticks_diff(now, self.started) > self.connect_timeout_us:
                raise MqttError("no CONNACK")
            return
        if ticks_diff(now, self.last_rx) > self.keepalive_us * 3 // 2:
            raise MqttError("broker silent for 1.5 x keepalive")
        if ticks_diff(now, self.last_ping) >= self.keepalive_us // 2:
            self.last_ping = now
            self.out += b"\xc0\x00"  # PINGREQ: the answer proves the broker is alive

    def _tcp_ready(self):
        if self.poller is None:
            return True
        for item in self.poller.poll(0):
            event = item[1]
            if event & (select.POLLERR | select.POLLHUP):
                raise MqttError("connection refused or reset")
            if event & select.POLLOUT:
                return True
        return False

    def _write(self, sock):
        while self.out:
            try:
                n = sock.send(self.out)
            except OSError as err:
                if _errno(err) in _WOULD_BLOCK:
                    return
                raise
            if not n:
                return
            self.out = self.out[n:]

    def _read(self, sock, now):
        while True:
            try:
                data = sock.recv(256)
            except OSError as err:
                if _errno(err) in _WOULD_BLOCK:
                    break
                raise
            if data is None:  # MicroPython: nothing there on a non-blocking socket
                break
            if not data:
                raise MqttError("closed by the broker")
            self.inbuf += data
            self.last_rx = now
            if len(self.inbuf) > IN_MAX + 8:
                raise MqttError("packet too big")
        while self._packet():
            pass

    def _packet(self):
        """Handle one complete packet from the input buffer; False when none is complete."""
        buf = self.inbuf
        if len(buf) < 2:
            return False
        length = 0
        shift = 0
        i = 1
        while True:
            if i >= len(buf):
                return False
            byte = buf[i]
            length |= (byte & 0x7F) << shift
            i += 1
            if not byte & 0x80:
                break
            shift += 7
            if shift > 21:
                raise MqttError("bad remaining length")
        if length > IN_MAX:
            raise MqttError("packet too big")
        if len(buf) < i + length:
            return False
        head = buf[0]
        body = bytes(buf[i:i + length])
        self.inbuf = buf[i + length:]
        kind = head & 0xF0
        if kind == 0x20:  # CONNACK
            if length < 2 or body[1] != 0:
                raise MqttError("connection refused, code " + str(body[1] if length > 1 else -1))
            self.connected = True
        elif kind == 0x30:  # PUBLISH
            qos = (head >> 1) & 3
            tlen = (body[0] << 8) | body[1]
            topic = body[2:2 + tlen]
            pos = 2 + tlen
            if qos:
                pid = body[pos:pos + 2]
                pos += 2
                if qos == 1:
                    self.out += b"\x40\x02" + pid  # PUBACK
            if self.callback is not None:
                self.callback(topic, body[pos:])
        # SUBACK, PUBACK, PINGRESP: proof of life only (last_rx)
        return True
