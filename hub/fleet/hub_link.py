"""The running hub as :func:`hub.fleet.transfer.update_board`'s link, so a rollout
updates boards without taking their port or their broker session away from the hub
(events of live matches on other boards keep being stored and acknowledged).

- a board on the hub's own link (USB serial, or any transport without MQTT settings):
  :class:`HubUpdateLink` sends through that transport, and reads the board's
  ``update_state`` answers and ``hello`` messages from a tap on the hub's door for device
  messages (:meth:`hub.fleet.service.FleetService.tap`): ``update_state`` goes to the
  transfer only, a ``hello`` to both;
- a board over MQTT: h2's :class:`hub.fleet.transfer.MqttUpdateLink`, a client of its
  own beside the hub's, with the hub's broker settings.

:func:`transfer_updater` is the :data:`hub.fleet.service.Updater` the hub uses by
default: it loads the bundle a rollout names (``{"path", "version"}``), calls
``update_board`` and turns its :class:`hub.fleet.transfer.UpdateResult` into a success
(``updated``, ``already``) or the reason the rollout halts on.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub.fleet import bundle as bundles
from hub.fleet import transfer

if TYPE_CHECKING:
    from hub.fleet.service import FleetService

JSONDict = dict[str, Any]
OK_OUTCOMES = ("updated", "already")


class HubUpdateLink:
    """One board over the hub's own transport (see the module doc)."""

    def __init__(self, fleet: FleetService, transport: Any, board: str) -> None:
        self.fleet, self.transport, self.board = fleet, transport, board
        self.inbox: queue.Queue[JSONDict] = queue.Queue()

    def __enter__(self) -> HubUpdateLink:
        self.fleet.open_tap(self.board, self.inbox)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.fleet.close_tap(self.board)

    def send(self, msg: JSONDict) -> bool:
        return bool(self.transport.send(self.board, msg))

    def receive(self, timeout_s: float) -> JSONDict | None:
        try:
            return self.inbox.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            return None


class BundleCache:
    """Bundles read once per path (sixty boards, one file)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: dict[str, bundles.Bundle] = {}

    def get(self, ref: Any) -> bundles.Bundle:
        path = ref.get("path") if isinstance(ref, dict) else ref
        if not isinstance(path, str):
            raise bundles.BundleError("the rollout names no bundle file")
        with self._lock:
            if path not in self._loaded:
                self._loaded[path] = bundles.load(Path(path).read_bytes())
            return self._loaded[path]


def transfer_updater(fleet: FleetService) -> Callable[[Any, str, Any, Callable[..., None]], JSONDict]:
    """The default updater of a running hub (module doc)."""
    cache = BundleCache()

    def update(link: Any, board: str, ref: Any, progress: Callable[..., None]) -> JSONDict:
        if link is None:
            return {"ok": False, "outcome": "unheard", "reason": ""}
        bundle = cache.get(ref)

        def tell(step: transfer.Progress) -> None:
            progress(step.sent, step.total)

        settings = getattr(link, "settings", None)
        if settings is not None:  # the hub's MQTT link: a client of its own for the transfer
            mqtt_link = transfer.MqttUpdateLink(settings, board)
            try:
                result = transfer.update_board(mqtt_link, board, bundle, tell)
            finally:
                mqtt_link.close()
        else:
            with HubUpdateLink(fleet, link, board) as hub_link:
                result = transfer.update_board(hub_link, board, bundle, tell)
        if result.outcome in OK_OUTCOMES:
            return {"ok": True, "outcome": result.outcome, "fw": result.version_after}
        return {"ok": False, "outcome": result.outcome, "reason": result.reason}

    return update
