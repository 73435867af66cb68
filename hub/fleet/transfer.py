"""Send one signed bundle to one board over its link, and see it run (issue 33, point 3).

The contract the staged rollout codes against is :func:`update_board`; everything else in
this module is how it is done. Protocol: docs/protocol.md, "Updates".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from hub.fleet.bundle import Bundle

Outcome = Literal["updated", "already", "refused", "rolled_back", "unreachable"]


class UpdateLink(Protocol):
    """One board's link, as :func:`update_board` uses it (serial or MQTT; see
    :class:`SerialUpdateLink`, :class:`MqttUpdateLink`, or wrap the running hub's
    transport: ``send`` = ``Transport.send(board, msg)``, ``receive`` = the next message
    from that board out of a queue fed by the hub's ``device_message``)."""

    def send(self, msg: dict[str, Any]) -> bool:
        """Send one hub message (``upd``) to the board; False when it cannot now."""
        ...

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        """The next decoded message from the board (any type: ``upd`` replies and
        ``hello`` matter here), or None after ``timeout_s`` of nothing."""
        ...


@dataclass(frozen=True)
class Progress:
    """Where a transfer is: ``phase`` is "offer" (asking the board), "send" (chunks),
    "switch" (the board verified everything and reboots into the new slot), "trial" (the
    new version runs and must pass its self-test), "done"."""

    board: str
    phase: str
    sent: int  # bundle bytes the board holds so far
    total: int  # bundle bytes in all


@dataclass(frozen=True)
class UpdateResult:
    """How one board's update ended.

    outcome   "updated"      the board runs ``bundle.version`` and committed it;
              "already"      it ran that version before (nothing sent);
              "refused"      the board refused the bundle (``reason``: bad hash, bad
                             signature, older version, other board type...), unchanged;
              "rolled_back"  the new version did not pass its trial (crash, hang, failed
                             self-test, no hello in time): the board went back to
                             ``version_after`` (the old one) by itself and said so;
              "unreachable"  the board stopped answering (``reason``); call again to
                             resume: what it holds already is not sent again.
    """

    board: str
    outcome: Outcome
    version_before: str | None
    version_after: str | None
    reason: str
    bytes_sent: int
    seconds: float


ProgressFn = Callable[[Progress], None]


def update_board(link: UpdateLink, board_id: str, bundle: Bundle, progress: ProgressFn | None = None,
                 *, answer_timeout_s: float = 5.0, trial_timeout_s: float = 120.0) -> UpdateResult:
    """Update one board with ``bundle`` over ``link`` and wait for the verdict.

    Blocking; call it from a thread of your own, one call per board at a time (several
    boards may be updated at once, one thread each). Never raises for what the board does
    (refusals, silence, rollback are outcomes); raises ValueError only for a bundle that
    is not for this kind of link's board (never partially sent).

    The board pulls: each of its ``upd`` answers names the next (file, offset) it wants,
    so a call after an interruption (hub restart, board reset, link drop) resumes where
    the board's flash is. ``answer_timeout_s``: a silent board is asked again 3 times,
    then the outcome is "unreachable". ``trial_timeout_s``: how long the new version has
    to say hello and commit (the board's own deadline rolls it back before that).
    ``progress`` is called from this thread at each step (at most once per chunk).
    """
    raise NotImplementedError("issue 33: being written (wt-h2)")
