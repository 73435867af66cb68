"""Signed A/B updates on the MicroPython unix port (issue 33): the real firmware booted
through its slot selector, updated by the hub's own ``update_board`` over the serial
line, with bundles built by ``hub.fleet.bundle`` (mpy-cross, PyNaCl). A reset ends the
board's process and the link powers it on again on the same file system.

What it shows: an update switches and commits; the same bundle again is "already"; a
downgrade, a wrong signature, a tampered file and another board type are refused and leave
the board as it was (same slot, same files, same running version, no reset); the board
trusts two keys (rotation: every good bundle is taken on the second); a power cut
mid-transfer resumes where the flash is; a version that crashes at import, one that hangs
its loop and one that never passes its self-test are each rolled back by the board itself
and told in its next hello; an update over MQTT (the board's own client, a real Mosquitto)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nacl.signing
import pytest

from hub.devices.mqtt_link import MqttSettings
from hub.fleet import bundle as fleet_bundle
from hub.fleet.transfer import (
    CHUNK,
    MqttUpdateLink,
    Progress,
    UpdateLink,
    UpdateResult,
    update_board,
)
from tests.broker import Broker
from tests.firmware.mp import ROOT, micropython
from tests.firmware.update_rig import (
    ProcessLink,
    SlotBoard,
    board_config,
    build,
    hellos,
    patched_tree,
    wait_hello,
)

pytestmark = [pytest.mark.micropython, pytest.mark.timeout(240)]

ANSWER_S = 5.0
TRIAL_S = 40.0


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("key") / "organizer.key"
    return path, fleet_bundle.keygen(path)


@pytest.fixture()
def board(tmp_path: Path, key: tuple[Path, str]) -> Iterator[SlotBoard]:
    b = SlotBoard(tmp_path / "board", board_config(key[1]))
    b.start()
    wait_hello(b)
    yield b
    b.stop()


def update(board: SlotBoard, bundle: fleet_bundle.Bundle, link: UpdateLink | None = None,
           seen: list[Progress] | None = None) -> UpdateResult:
    return update_board(link or ProcessLink(board), "U1", bundle, seen.append if seen is not None else None,
                        answer_timeout_s=ANSWER_S, trial_timeout_s=TRIAL_S)


def status(board: SlotBoard) -> dict[str, Any]:
    """The running version and slot, asked over the line (no reset meanwhile)."""
    link = ProcessLink(board)
    board.cursor = len(board.messages())
    link.send({"type": "update", "boot": 0, "op": "status"})
    while (got := link.receive(ANSWER_S)) is not None:
        if got["type"] == "update_state":
            return got
    raise AssertionError(board.text()[-2000:])


def test_update_commits_then_refuses_downgrade_bad_signature_tamper_and_other_board(
        board: SlotBoard, key: tuple[Path, str], tmp_path: Path) -> None:
    seen: list[Progress] = []
    new = build("1.1.0", key[0])
    result = update(board, new, seen=seen)
    assert result.outcome == "updated", result
    print(f"\n{new.size} bytes in {result.seconds} s (transfer, switch, trial, commit)")
    assert (result.version_before, result.version_after) == ("1.0.0", "1.1.0")
    hello = hellos(board)[-1]
    assert (hello["fw"], hello["slot"], hello.get("trial")) == ("1.1.0", "b", True)  # its first boot
    assert board.state() == {"active": "b"}  # committed: the next boot runs it for good
    assert board.slot_files("b") == {"b/" + p: d for p, d in new.files.items()}
    sent = [p.sent for p in seen if p.phase == "send"]
    assert sent == sorted(sent) and seen[-1].phase == "done" and seen[-1].sent == new.size

    assert update(board, new).outcome == "already"

    before = (board.state(), board.slot_files("b"), board.boots)
    other_key = tmp_path / "other.key"
    fleet_bundle.keygen(other_key)
    files = dict(new.files)
    files["firmware/beams.mpy"] = files["firmware/beams.mpy"][:-1] + b"\x00"  # one byte changed
    tampered = dataclasses.replace(build("1.2.0", key[0], source=ROOT / "firmware"), files=files)
    refusals = {
        "older version 1.0.5": build("1.0.5", key[0]),
        "bad signature": build("1.2.0", other_key),
        "bad hash: beams.mpy": tampered,
        "bundle for rp2, this board is unix": build("1.2.0", key[0], board_type="rp2"),
    }
    for reason, bundle in refusals.items():
        result = update(board, bundle)
        assert (result.outcome, result.reason) == ("refused", reason), result
        assert (board.state(), board.slot_files("b"), board.boots) == before  # unchanged, never reset
        assert board.slot_files("a") == {}  # the inactive slot holds nothing of it
        assert not (board.workdir / "manifest.json").exists()
        assert status(board)["version"] == "1.1.0"


def test_power_cut_mid_transfer_resumes_where_the_flash_is(board: SlotBoard, key: tuple[Path, str]) -> None:
    new = build("1.1.0", key[0])
    link = ProcessLink(board, cut_after=40)
    # the board answers in milliseconds; once the power is gone, 4 silent seconds say so
    cut = update_board(link, "U1", new, answer_timeout_s=1.0, trial_timeout_s=TRIAL_S)
    assert cut.outcome == "unreachable", cut
    board.start()  # power back: the old version, unchanged
    hello = wait_hello(board)
    assert (hello["fw"], hello["slot"], "trial" in hello) == ("1.0.0", "a", False)
    resumed = update(board, new)
    assert resumed.outcome == "updated", resumed
    # what reached the flash before the cut (39 chunks) was not sent again: at most the
    # chunk under way when the power went is sent twice
    assert cut.bytes_sent > 10_000
    assert cut.bytes_sent + resumed.bytes_sent <= new.size + CHUNK, (cut.bytes_sent, resumed.bytes_sent, new.size)
    assert hellos(board)[-1]["fw"] == "1.1.0"


BROKEN = {
    "crash at import": ({"app.py": ("import asyncio\n", "import asyncio\n\nraise ImportError('broken build')\n")},
                        "import: ImportError: broken build"),
    "hung loop": ({"app.py": ("    last = board.ticks_ms()\n", "    last = board.ticks_ms()\n    while True:\n"
                              "        pass\n")}, "watchdog reset"),
    "self-test never passes": ({"node.py": ('        """Every emitter self-test ran since boot and none failed (a trial\'s commit)."""\n',
                                            '        """Every emitter self-test ran since boot and none failed (a trial\'s commit)."""\n'
                                            "        return False\n")}, "no commit within 10 s"),
}


def test_broken_versions_roll_back_by_themselves(board: SlotBoard, key: tuple[Path, str], tmp_path: Path) -> None:
    for n, (what, (edits, why)) in enumerate(BROKEN.items()):
        broken = build(f"1.{n + 2}.0", key[0], source=patched_tree(tmp_path / str(n), edits))
        result = update(board, broken)
        assert (result.outcome, result.version_after) == ("rolled_back", "1.0.0"), (what, result)
        assert result.reason == f"1.{n + 2}.0: {why}", what
        hello = hellos(board)[-1]
        assert (hello["fw"], hello["slot"], hello["rollback"]) == ("1.0.0", "a", result.reason)
        assert board.state() == {"active": "a", "rollback": result.reason}
    good = update(board, build("1.9.0", key[0]))  # and the board still takes a good one
    assert good.outcome == "updated", good
    assert "rollback" not in hellos(board)[-1]


class MqttBoardLink:
    """The hub's MQTT update link to a board on MQTT only; powers the board on again
    when it reset (its process ended), as ProcessLink does."""

    def __init__(self, board: SlotBoard, broker: Broker) -> None:
        self.board = board
        self.mqtt = MqttUpdateLink(MqttSettings(broker.host, broker.port), "U1")

    def send(self, msg: dict[str, Any]) -> bool:
        return self.mqtt.send(msg)

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        proc = self.board.proc
        if proc is not None and proc.poll() is not None:
            self.board.stop()
            self.board.start()
        return self.mqtt.receive(min(timeout_s, 0.5))


@pytest.mark.mqtt
def test_an_update_over_mqtt_in_acknowledged_chunks(own_mosquitto: Broker, key: tuple[Path, str],
                                                    tmp_path: Path) -> None:
    cfg = board_config(key[1])
    cfg["links"] = ["mqtt"]
    cfg["mqtt"] = {"broker": own_mosquitto.host, "port": own_mosquitto.port, "keepalive_s": 5}
    cfg["thresholds"]["mqtt_retry_ms"] = 200
    board = SlotBoard(tmp_path / "board", cfg)
    board.start()
    link = MqttBoardLink(board, own_mosquitto)
    try:
        result = update(board, build("1.1.0", key[0]), link)
        assert result.outcome == "updated", (result, board.text()[-2000:])
        assert board.state() == {"active": "b"}
    finally:
        link.mqtt.close()
        board.stop()


def test_ed25519_verify_on_the_unix_port_agrees_with_pynacl(tmp_path: Path) -> None:
    cases = []
    for i in range(4):
        signer = nacl.signing.SigningKey(bytes([i + 1]) * 32)
        message = bytes([i]) * 32
        sig = signer.sign(message).signature
        pub = bytes(signer.verify_key)
        bad_s = sig[:32] + (int.from_bytes(sig[32:], "little") + 2**252 + 27742317777372353535851937790883648493
                            ).to_bytes(32, "little")  # S + L: the same point, refused (malleability)
        cases += [(pub, message, sig, True), (pub, message[:-1] + bytes([message[-1] ^ 1]), sig, False),
                  (pub, message, sig[:5] + bytes([sig[5] ^ 1]) + sig[6:], False),
                  (bytes(nacl.signing.SigningKey(bytes([9]) * 32).verify_key), message, sig, False),
                  (pub, message, bad_s, False), (b"\xff" * 32, message, sig, False), (pub, message, sig[:63], False)]
    data = tmp_path / "cases.json"
    data.write_text(json.dumps([[p.hex(), m.hex(), s.hex(), ok] for p, m, s, ok in cases]))
    script = tmp_path / "run.py"
    script.write_text("import json, sys\nsys.path.insert(0, '')\nfrom firmware import ed25519\n"
                      f"for p, m, s, ok in json.load(open({str(data)!r})):\n"
                      "    got = ed25519.verify(bytes.fromhex(p), bytes.fromhex(m), bytes.fromhex(s))\n"
                      "    print('OK' if got == ok else 'WRONG', p[:8], ok)\n")
    proc: subprocess.CompletedProcess[str] = micropython(str(script))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    lines = proc.stdout.split("\n")
    assert sum(1 for line in lines if line.startswith("OK")) == len(cases), proc.stdout
