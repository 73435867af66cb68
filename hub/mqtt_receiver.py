"""The MQTT receiver process: paho's own per-message work (reading, parsing, PUBACKs) on
another core, so it does not compete with the hub's ingest for one interpreter lock.

Started by :class:`hub.mqtt_link.MqttProcessTransport` as ``python -m hub.mqtt_receiver
HOST PORT CLIENT_ID KEEPALIVE FD``; FD is its end of a socket pair wrapped as a
``multiprocessing.connection.Connection``. To the hub it sends ``("msgs", [(topic,
payload), …])`` batches, ``("up",)`` and ``("down",)``; from the hub it takes ``("pub",
topic, payload, qos)`` and ``("stop",)``. It exits when the hub's end closes.
"""

from __future__ import annotations

import socket
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hub.mqtt_link import SUBSCRIPTIONS

BATCH_WAIT_S = 0.0005  # gather what arrived meanwhile into one send


def serve(host: str, port: int, client_id: str, keepalive: int, conn: Connection) -> None:
    send_lock = threading.Lock()
    pending: list[tuple[str, bytes]] = []
    pending_lock = threading.Lock()
    wake = threading.Event()
    stopping = threading.Event()

    def send(item: Any) -> None:
        with send_lock:
            conn.send(item)

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            return
        sock = client.socket()
        if isinstance(sock, socket.socket):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.subscribe(SUBSCRIPTIONS)
        send(("up",))

    def on_disconnect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        send(("down",))

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with pending_lock:
            pending.append((message.topic, bytes(message.payload)))
        wake.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                         protocol=mqtt.MQTTv311)
    client.max_inflight_messages_set(100)
    client.max_queued_messages_set(0)
    client.reconnect_delay_set(min_delay=1, max_delay=2)
    client.on_connect, client.on_disconnect, client.on_message = on_connect, on_disconnect, on_message

    def forward() -> None:
        nonlocal pending
        while not stopping.is_set():
            if not wake.wait(0.1):
                continue
            wake.clear()
            stopping.wait(BATCH_WAIT_S)
            with pending_lock:
                batch, pending = pending, []
            if batch:
                try:
                    send(("msgs", batch))
                except OSError:
                    return

    forwarder = threading.Thread(target=forward, daemon=True)
    forwarder.start()
    client.connect_async(host, port, keepalive=keepalive)
    client.loop_start()
    try:
        while True:
            try:
                cmd = conn.recv()
            except (EOFError, OSError):
                break
            if cmd[0] == "pub":
                client.publish(cmd[1], cmd[2], qos=cmd[3])
            elif cmd[0] == "stop":
                break
    finally:
        stopping.set()
        client.disconnect()
        client.loop_stop()
        forwarder.join(1)
        conn.close()


def main(argv: list[str]) -> int:
    host, port, client_id, keepalive, fd = argv
    serve(host, int(port), client_id, int(keepalive), Connection(int(fd)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
