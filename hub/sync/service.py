"""Starting sync beside a hub (issue 35): the composition root (hub/assemble.py) calls
:func:`start_sync` when ``--sync FILE`` is given. Only here is nats imported (through the
publisher's and the consumer's threads)."""

from __future__ import annotations

from hub.facade import Hub
from hub.sync import SyncConfig
from hub.sync.copies import ClubCopies
from hub.sync.federation import FederationSync
from hub.sync.publisher import Publisher


def start_sync(hub: Hub, config: SyncConfig) -> Publisher | FederationSync:
    """A club: its publisher on the hub's store, woken by the hub's writer after each
    commit. The federation: its consumer into the copies file."""
    if config.mode == "club":
        publisher = Publisher(hub.store, config.club, config.nats, probe_s=config.probe_s)
        hub.writer.committed.append(publisher.notify)
        publisher.start()
        hub.attach_sync(publisher)
        return publisher
    federation = FederationSync(ClubCopies(config.copies), config.nats, config.clubs,
                                writer=hub.writer, store=hub.store)
    federation.start()
    hub.attach_sync(federation)
    return federation
