"""Issue 35, trust: a club's credentials publish only the club's own subjects. Club a's
user publishing as club b is refused by the federation's nats-server, and a message in
club a's own stream that claims club b's identity is never stored as club b's entry."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import nats
import pytest

from hub.sync.natsconf import deliver_prefix, subject
from tests.sync.conftest import ClubSide, FederationSide, register_some, wait_for

pytestmark = pytest.mark.nats
League = Callable[[list[str]], tuple[FederationSide, dict[str, ClubSide]]]


def test_club_a_cannot_write_club_b_entries(league: League) -> None:
    fed, clubs = league(["a", "b"])
    a, b = clubs["a"], clubs["b"]
    assert a.hub and b.hub
    register_some(a.hub, "a-night", ["Ana"])
    register_some(b.hub, "b-night", ["Ben"])
    wait_for("both synced", lambda: fed.sync.copies.last_seqs() == {"a": 2, "b": 2})

    async def forge() -> list[str]:
        errors: list[str] = []

        async def on_error(err: Exception) -> None:
            errors.append(str(err))

        # club a's credentials, straight to the federation's server, as club b
        nc = await nats.connect(fed.server.user_url("a"), error_cb=on_error)
        await nc.publish(subject("b"), json.dumps({"hub": "b", "seq": 3, "at": 0, "source": "console",
                                                   "table_id": None, "body": {"forged": True}}).encode(),
                         headers={"Nats-Msg-Id": "b:3"})
        # nor feed club b's source at the federation, nor acknowledge its deliveries there
        await nc.publish(deliver_prefix("b") + ".x", b"{}", headers={"Nats-Msg-Id": "b:4"})
        await nc.publish("$JS.ACK.CLUB_b.federation.1.3.3.0.0", b"+ACK")
        await nc.flush()
        for _ in range(100):  # the server's -ERR comes back asynchronously
            if len(errors) >= 3:
                break
            await asyncio.sleep(0.02)
        await nc.close()
        # and a message in club a's own stream that claims to be club b's
        local = await nats.connect(a.server.url)
        js = local.jetstream()
        await js.publish(subject("a"), json.dumps({"hub": "b", "seq": 3, "at": 0, "source": "console",
                                                   "table_id": None, "body": {"forged": True}}).encode(),
                         headers={"Nats-Msg-Id": "b:3"})
        await local.close()
        return errors

    errors = asyncio.run(forge())
    for refused in (subject("b"), deliver_prefix("b") + ".x", "$JS.ACK.CLUB_b.federation"):
        assert any("permissions violation" in e and refused.lower() in e.lower() for e in errors), (refused, errors)
    wait_for("the forged message in club a's stream refused", lambda: fed.sync.refused.get("a") == 1)
    assert fed.sync.copies.last_seqs() == {"a": 2, "b": 2}
    assert not any(e.body.get("forged") for club in ("a", "b") for e in fed.sync.copies.entries(club))
