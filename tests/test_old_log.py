"""An older hub's log and records read by today's code print exactly what that hub printed
(issue 31.5: the views lost their English ``text`` and ``question``, a device's ``by``
became data, and nothing a reader sees may change).

tests/hub/old_log/ holds what a91af19 — the hub before the change — wrote and printed:
a Trigono table's log with a snapshot of format 1 (English ``text`` beside each event,
``by`` sentences such as "button floor on B1"), made by make_a91af19.py; the English
lines its views carried; its web pages' words in en and fr; and its ``trigono replay``
(plain and ``--pretty``) of every record in tests/records/ and ``trigono export`` of the
log. Each is compared byte for byte.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.cli.main import main
from hub.facade import Hub
from hub.tables.wording import line
from web import create_app
from web.describe import alert_text, event_text, prompt_text

OLD = Path(__file__).parent / "hub" / "old_log"
RECORDS = Path(__file__).parent / "records"
PRINTS: dict[str, dict[str, Any]] = json.loads((OLD / "main-prints.json").read_text())


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript((OLD / "a91af19.sql").read_text())
    conn.close()
    return db


@pytest.fixture
def old_view(old_db: Path) -> Iterator[dict[str, Any]]:
    hub = Hub(old_db)
    try:
        yield hub.table_view("t1")
    finally:
        hub.close()


def hub_lines(view: dict[str, Any], record: dict[str, Any]) -> str:
    """What the old views' ``text`` and ``question`` said, as make_a91af19.py printed them."""
    out = ["events:", *(f"  {e['source']} {line(e, shorten=True)}" for e in view["events"])]
    out += ["alerts:", *(f"  {line(a)}" for a in view["alerts"])]
    out += ["prompts:", *(f"  {line(p)}" for p in view["prompts"])]
    return "\n".join(out) + "\nexport: " + json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


def test_an_old_snapshot_is_folded_again_and_its_device_inputs_say_who_as_data(old_view: dict[str, Any]) -> None:
    inputs = [e["params"] for e in old_view["events"] if e["kind"] == "input"]
    assert inputs[0]["by"] == "device" and inputs[0]["device"] == {"kind": "weight", "board": "B1"}
    assert inputs[1]["device"] == {"kind": "button", "board": "B1", "button": "floor"}
    assert inputs[-1]["by"] == "referee" and "device" not in inputs[-1]
    assert all("text" not in item for item in [*old_view["events"], *old_view["alerts"]])


def test_an_old_log_reads_in_english_as_the_old_hub_wrote_it(old_db: Path, old_view: dict[str, Any]) -> None:
    hub = Hub(old_db)
    try:
        record = hub.export("t1")
    finally:
        hub.close()
    assert hub_lines(old_view, record) == (OLD / "hub-lines.txt").read_text()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_old_log_reads_on_the_web_as_it_did(old_view: dict[str, Any], lang: str) -> None:
    hub = Hub(":memory:")  # it only names places (Hub.place_label): the web words them
    try:
        app = create_app({"TESTING": True}, hub=hub)
        with app.test_request_context(headers={"Accept-Language": lang}):
            shown = [*(event_text(e) for e in old_view["events"]), *(alert_text(a) for a in old_view["alerts"]),
                     *(prompt_text(p, old_view) for p in old_view["prompts"])]
    finally:
        hub.close()
    assert "\n".join(shown) + "\n" == (OLD / f"web-{lang}.txt").read_text()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return {"rc": rc, "stdout": out, "stderr": err}


def test_trigono_export_of_an_old_log_prints_as_before(old_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["export", "t1", "--db", str(old_db)], capsys) == PRINTS["export t1 --db old.db"]


@pytest.mark.parametrize("name", sorted({key.rpartition(" ")[2] for key in PRINTS if key.startswith("replay")}))
def test_trigono_replay_of_every_record_prints_as_before(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["replay"], ["replay", "--pretty"]):
        assert run([*args, str(RECORDS / name)], capsys) == PRINTS[" ".join([*args, name])], args


def test_an_old_snapshot_is_replaced_by_one_of_this_format(old_db: Path) -> None:
    hub = Hub(old_db)
    try:
        assert hub.tables.snapshot_due() == 1  # taken when the hub is idle
    finally:
        hub.close()
    with sqlite3.connect(old_db) as conn:
        (data,) = conn.execute("SELECT data FROM snapshot WHERE table_id = 't1'").fetchone()
    conn.close()
    assert json.loads(data)["table"]["format"] == 2
