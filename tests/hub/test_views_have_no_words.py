"""The hub's views carry kinds and params, never English (issue 31.5): the web words them
in the page's language, the hub's edges (log lines, the command line) in English with
hub/tables/wording.py. The import side is guarded in tests/test_layering.py; here the
views of a played table and of a board's health are searched for words.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from firmware import protocol
from hub.devices import ingest
from hub.devices.health import SeqTracker
from hub.devices.ingest import Arrival, IngestState
from hub.facade import Hub
from hub.tables import wording

OLD_LOG = Path(__file__).parent / "old_log" / "a91af19.sql"
WORD_KEYS = {"text", "question", "message", "sentence"}
# The fixed words of the hub's English lines (its templates between the placeholders),
# and the sentence an older hub put in a device's ``by``.
FRAGMENTS = sorted({piece.strip() for template in wording.TEMPLATES.values()
                    for piece in re.split(r"\{\w+\}", template) if len(re.sub(r"\W", "", piece)) >= 6})
DEVICE_SENTENCE = re.compile(r"\b(?:button \S+|weight) on \S+")


def words_in(tree: Any, path: str = "") -> Iterator[str]:
    """Where ``tree`` holds words: a key meant for them, or a string with a piece of one
    of the hub's English lines in it."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key in WORD_KEYS:
                yield f"{path}.{key}"
            yield from words_in(value, f"{path}.{key}")
    elif isinstance(tree, list):
        for n, value in enumerate(tree):
            yield from words_in(value, f"{path}[{n}]")
    elif isinstance(tree, str):
        if DEVICE_SENTENCE.search(tree) or any(piece in tree for piece in FRAGMENTS):
            yield f"{path} = {tree!r}"


def test_the_guard_finds_what_the_old_views_carried() -> None:
    assert "throwing)" in FRAGMENTS and ": sensor fault:" in FRAGMENTS  # the pieces it looks for
    old = {"events": [{"kind": "input", "params": {"by": "button floor on B1"}},
                      {"kind": "drop", "params": {}, "text": "B1.big: drop (Ana throwing)"}],
           "alerts": [{"kind": "seq_gap", "params": {"seqs": "seq 4", "boot": 1}}],
           "x": "B1.small: sensor fault: beam B dead"}
    assert list(words_in(old)) == [".events[0].params.by = 'button floor on B1'", ".events[1].text",
                                   ".events[1].text = 'B1.big: drop (Ana throwing)'", ".x = 'B1.small: sensor fault: beam B dead'"]


def test_a_played_tables_views_have_no_words(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:  # a table played with buttons, a scale, drops and a refusal
        conn.executescript(OLD_LOG.read_text())
    conn.close()
    hub = Hub(db)
    try:
        views = {"referee": hub.table_view("t1"), "public": hub.public_view("t1"), "tables": hub.list_tables()}
        assert {e["kind"] for e in views["referee"]["events"]} >= {"input", "drop", "throw", "throw_invalid", "weight"}
        assert views["referee"]["alerts"] and views["referee"]["prompts"]
        assert list(words_in(views)) == []
    finally:
        hub.close()


def test_a_boards_health_alerts_have_no_words() -> None:
    state: IngestState[str] = IngestState(bound={"B1": "t1"}, seqs=SeqTracker(5.0))

    def drop(seq: int) -> dict[str, Any]:
        return {"type": "drop", "board": "B1", "boot": 1, "seq": seq, "hole": "big", "t_us": 1000 * seq}

    def arrive(seq: int, at: float) -> list[Arrival[str]]:
        assert protocol.validate(drop(seq)) is None
        return [Arrival("link", drop(seq), "fake:1", at)]

    ingest.stored(state, (first := ingest.take(state, arrive(1, 0.0), now=0.0)),
                  list(range(1, 1 + len(first.entries))))
    ingest.take(state, arrive(4, 1.0), now=1.0)          # seqs 2-3 missing
    ingest.take(state, arrive(5, 7.0), now=7.0)          # the board talks on, never resends them
    ingest.expire(state, now=7.0, mono=7.0, lost_after_s=30.0)     # so the hub gives them up
    ingest.expire(state, now=100.0, mono=100.0, lost_after_s=30.0)  # and the board falls silent
    health = state.health["B1"].to_json()
    assert {a["kind"] for a in health["alerts"]} >= {"seq_gap", "gave_up", "silent"}
    assert [a["params"]["seqs"] for a in health["alerts"] if a["kind"] == "seq_gap"] == [[[2, 3]]]
    assert list(words_in(health)) == []
    # The English stays at the edge, as the old view's text said it:
    assert wording.line(health["alerts"][0]) == "seq gap: seqs 2-3 of boot 1 missing"
