"""Device links behind one interface: serial, MQTT, and a fake one for unit tests.

A :class:`Transport` delivers decoded protocol messages (``firmware.protocol``) to a
:class:`DeviceSink` — the hub — and carries the hub's acks and commands back to a board.
Transports never block on storage: the hub queues what they deliver.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import Any, Protocol

from firmware import protocol


class DeviceSink(Protocol):
    """What a transport calls; the hub implements it. Calls may come from any thread."""

    def device_message(self, transport: Transport, msg: dict[str, Any], link: str,
                       raw: str | None = None) -> None:
        """A well-formed device message (any type, health included); ``raw``, when the
        link has it, is the JSON text ``msg`` was decoded from (the store keeps it as is
        instead of encoding ``msg`` again)."""

    def device_messages(self, transport: Transport, messages: list[tuple[dict[str, Any], str | None]],
                        link: str, retained: bool = False) -> None:
        """Several well-formed messages with their raw JSON, in order (one inbox round);
        ``retained``: the MQTT broker kept them (a board's last health), handed over on
        subscribing — not a sign the board is there now."""

    def device_corrupt(self, transport: Transport, link: str, reason: str, board: str | None) -> None:
        """A line or payload that failed to decode; ``board`` when the link knows it."""

    def device_status(self, transport: Transport, board: str, status: str, link: str) -> None:
        """A board's status changed: ``online`` or ``lost`` (MQTT status / last will,
        a serial port that went away)."""


class Transport(ABC):
    """One kind of device link."""

    name: str = "transport"

    @abstractmethod
    def start(self, sink: DeviceSink) -> None:
        """Begin delivering messages to ``sink`` (returns at once; work runs in threads)."""

    @abstractmethod
    def stop(self) -> None:
        """Stop and release the link (idempotent)."""

    @abstractmethod
    def send(self, board: str, msg: dict[str, Any]) -> bool:
        """Send an ack or a command to a board; False when the board cannot be reached now
        (the device resends, so a lost ack only costs a duplicate)."""

    def send_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        """Send several acks or commands (board, message) in order; a link that crosses a
        process boundary overrides it to pay that crossing once per ingest batch."""
        for board, msg in items:
            self.send(board, msg)

    def describe(self) -> dict[str, Any]:
        """What this link is, for the health page."""
        return {"transport": self.name}


class FakeTransport(Transport):
    """In-memory transport for unit tests: :meth:`inject` a message as if a board sent it;
    everything the hub sends is kept in :attr:`sent`.

    >>> fake = FakeTransport()
    >>> fake.send("B1", protocol.ack(1, 3))
    True
    >>> fake.sent
    [('B1', {'type': 'ack', 'boot': 1, 'seq': 3})]
    """

    name = "fake"

    def __init__(self) -> None:
        self.sink: DeviceSink | None = None
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def start(self, sink: DeviceSink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        with self._lock:
            self.sent.append((board, msg))
        return True

    def inject(self, msg: dict[str, Any], link: str = "fake") -> None:
        """Deliver ``msg`` (validated by the codec first, as a real link would)."""
        assert self.sink is not None, "start the transport first"
        reason = protocol.validate(msg)
        if reason is not None:
            self.sink.device_corrupt(self, link, reason, msg.get("board") if isinstance(msg, dict) else None)
        else:
            self.sink.device_message(self, msg, link)

    def acks(self, board: str) -> list[dict[str, Any]]:
        with self._lock:
            return [m for b, m in self.sent if b == board and m.get("type") == "ack"]
