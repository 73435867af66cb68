"""The MQTT receiver process: paho's own per-message work (reading, parsing, PUBACKs) on
another core, so it does not compete with the hub's ingest for one interpreter lock.

Started by :class:`hub.devices.mqtt_link.MqttProcessTransport` as ``python -m hub.devices.mqtt_receiver
FD``; FD is its end of a socket pair wrapped as a ``multiprocessing.connection.Connection``.
The hub first sends ``("settings", MqttSettings JSON)`` (the password never appears on
a command line). To the hub it sends ``("msgs", [Sorted, …])`` batches (decoded and
checked here: :func:`hub.devices.mqtt_link.sort_payload`),
``("up",)``, ``("refused", reason)`` and ``("down", reason)``; from the hub it takes
``("pubs", [(topic, payload, qos), ...])`` and ``("stop",)``. It exits when the hub's end closes.
"""

from __future__ import annotations

import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

import paho.mqtt.client as mqtt

from hub.devices.mqtt_link import (
    SUBSCRIPTIONS,
    MqttSettings,
    Sorted,
    new_client,
    sort_payload,
    stop_client,
)

BATCH_WAIT_S = 0.0005  # gather what arrived meanwhile into one send
DRAIN_WAIT_S = 0.004  # the same while a backlog drains (the last batch was DRAIN_BATCH or more)
DRAIN_BATCH = 8


def serve(settings: MqttSettings, conn: Connection) -> None:
    send_lock = threading.Lock()
    pending: list[Sorted] = []
    pending_lock = threading.Lock()
    wake = threading.Event()
    stopping = threading.Event()

    def send(item: Any) -> None:
        with send_lock:
            try:
                conn.send(item)
            except OSError:  # the hub is gone (killed): the main loop sees EOF and ends
                stopping.set()

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            send(("refused", str(reason)))
            return
        client.subscribe(SUBSCRIPTIONS)

    def on_subscribe(client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        send(("up",))  # subscribed: from now on the broker keeps what boards send

    def on_connect_fail(client: mqtt.Client, userdata: Any) -> None:
        send(("down", "cannot reach the broker"))

    def on_disconnect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        send(("down", str(reason)))

    def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        item = sort_payload(message.topic, message.payload, bool(message.retain))
        if item is None:
            return
        with pending_lock:
            pending.append(item)
            first = len(pending) == 1
        if first:  # the forwarder sleeps until a batch starts (a set per message cost 5 µs)
            wake.set()

    client = new_client(settings)
    client.on_connect, client.on_disconnect, client.on_message = on_connect, on_disconnect, on_message
    client.on_connect_fail = on_connect_fail
    client.on_subscribe = on_subscribe

    def forward() -> None:
        nonlocal pending
        draining = False
        while not stopping.is_set():
            if not wake.wait(0.1):
                continue
            wake.clear()
            # Under a backlog, fewer and bigger batches: each one wakes the hub's link
            # thread, which then competes with its ingest for the interpreter lock.
            stopping.wait(DRAIN_WAIT_S if draining else BATCH_WAIT_S)
            with pending_lock:
                batch, pending = pending, []
            draining = len(batch) >= DRAIN_BATCH
            if batch:
                send(("msgs", batch))

    forwarder = threading.Thread(target=forward, daemon=True)
    forwarder.start()
    client.connect_async(settings.host, settings.port, keepalive=settings.keepalive)
    client.loop_start()
    try:
        while True:
            try:
                cmd = conn.recv()
            except (EOFError, OSError):
                break
            if cmd[0] == "pubs":
                for topic, payload, qos in cmd[1]:
                    client.publish(topic, payload, qos=qos)
            elif cmd[0] == "stop":
                break
    finally:
        stopping.set()
        stop_client(client)
        forwarder.join(1)
        conn.close()


def main(argv: list[str]) -> int:
    (fd,) = argv
    conn = Connection(int(fd))
    kind, settings = conn.recv()
    if kind != "settings":
        raise SystemExit(f"mqtt receiver: expected the settings first, got {kind!r}")
    serve(MqttSettings.from_json(settings), conn)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
