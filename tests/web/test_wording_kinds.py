"""Every kind the hub emits — a table's events and alerts, a board's health alerts, the
referee's questions, the devices that answer for the referee — has its words in English
at the hub's edge (hub/tables/wording.py) and in both of the web's catalogues (issue 31.5:
the hub's views carry the kind and its params only).

The kinds are read from the hub's source (every ``note``, ``alert`` and ``prompt`` call
with a literal kind), so a new kind without words fails here, not in front of a referee.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.api import Hub
from hub.tables import wording
from hub.tables.referee import BUTTON_INPUTS
from web import create_app
from web.describe import PROMPT_KEYS, alert_text, event_text, prompt_text, unworded, who
from web.i18n import MESSAGES

HUB = Path(__file__).resolve().parents[2] / "hub"
EMITTERS = {"note": wording.EVENTS, "alert": wording.TABLE_ALERTS + wording.BOARD_ALERTS,
            "_alert": wording.BOARD_ALERTS, "prompt": wording.PROMPTS}
LANGS = ("en", "fr")


@pytest.fixture(scope="module")
def app() -> Iterator[Any]:
    """One app for the module (the web's ``app`` fixture opens a hub each test); its hub
    only names places (``Hub.place_label``), the web words them."""
    hub = Hub(":memory:")
    yield create_app({"TESTING": True}, hub=hub)
    hub.close()


def kinds_in_hub_source() -> dict[str, set[str]]:
    """Emitter name -> the literal kinds the hub's code passes it (the first string
    argument of a call to ``note``, ``alert``, ``_alert`` or ``prompt``)."""
    found: dict[str, set[str]] = {name: set() for name in EMITTERS}
    for path in HUB.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            literal = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name in EMITTERS and literal:
                found[name].add(literal[0])
    return found


def test_every_kind_the_hub_source_emits_is_listed_with_its_english_words() -> None:
    found = kinds_in_hub_source()
    assert found["note"] >= {"drop", "input", "hello"} and found["prompt"] >= {"landed"}  # the scan sees them
    for name, kinds in found.items():
        assert kinds <= set(EMITTERS[name]), (name, kinds - set(EMITTERS[name]))
    listed = [*wording.EVENTS, *wording.TABLE_ALERTS, *wording.BOARD_ALERTS]
    assert len(listed) == len(set(listed))
    assert set(wording.TEMPLATES) == set(listed) | {f"prompt.{k}" for k in wording.PROMPTS}


# A plausible value for each parameter the hub's kinds carry (their names: the English
# templates' placeholders).
SAMPLES: dict[str, Any] = {"holes": ["top"], "seqs": [[2, 3]], "n": 2, "palets": 3, "count": 3, "expected": 2,
                           "by": "referee", "hole": "B1.big", "where": "B1.small", "player": "Ana",
                           "board": "B1", "key": "landed", "value": "floor", "round": 2, "boot": 7,
                           "seq": 9, "window": 64, "seconds": 30, "why": "not_held", "home": "B2",
                           "lane": "B1", "kind": "drop", "type": "drop", "button": "mystery"}


UNSAID_IN_ENGLISH = {"cannot_referee": ["player"]}  # params the hub sends that its English line leaves out


def sample_params(kind: str) -> dict[str, Any]:
    names = re.findall(r"\{(\w+)\}", wording.TEMPLATES[kind]) + UNSAID_IN_ENGLISH.get(kind, [])
    return {name: SAMPLES.get(name, f"<{name}>") for name in names}


def worded(kind: str, lang: str, app: Any) -> str:
    params = sample_params(kind)
    with app.test_request_context(headers={"Accept-Language": lang}):
        if kind.startswith("prompt."):
            view = {"state": {"round": 2}, "throw": {"drops": [{"hole": "B1.big"}]}}
            return prompt_text({"kind": kind.removeprefix("prompt."), "player": "Ana", "params": params}, view)
        if kind in wording.EVENTS:
            return event_text({"kind": kind, "params": params})
        return alert_text({"kind": kind, "params": params})


@pytest.mark.parametrize("kind", sorted(wording.TEMPLATES))
def test_each_kind_is_worded_in_french_and_in_english(kind: str, app: Any) -> None:
    english = wording.text(kind, sample_params(kind))
    assert "{" not in english and "=" not in english  # its template, not the listing of an unknown kind
    shown = {lang: worded(kind, lang, app) for lang in LANGS}
    for lang, words in shown.items():
        assert "{" not in words and "}" not in words, (lang, words)  # every placeholder filled
        assert words != unworded(kind.removeprefix("prompt."), sample_params(kind)), (lang, words)
    assert shown["fr"] != shown["en"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_the_catalogues_name_every_prompt_device_and_button(lang: str, app: Any) -> None:
    catalogue = MESSAGES[lang]
    assert set(PROMPT_KEYS) == set(wording.PROMPTS) and all(k in catalogue for k in PROMPT_KEYS.values())
    assert all(f"event.by.{kind}" in catalogue for kind in wording.DEVICES)
    assert all(f"button.{b}" in catalogue for b in BUTTON_INPUTS)
    with app.test_request_context(headers={"Accept-Language": lang}):
        for device in ({"kind": "button", "board": "B1", "button": "floor"}, {"kind": "weight", "board": "B1"}):
            said = who("device", device)
            assert "B1" in said and "{" not in said and said != who("device")


def test_a_device_is_worded_in_english_at_the_edge_as_the_old_sentence() -> None:
    button = {"by": "device", "device": {"kind": "button", "board": "B1", "button": "undo"}, "key": "undo", "value": True}
    assert wording.text("input", button) == "button undo on B1: undo True"
    assert wording.by_text("device", {"kind": "weight", "board": "B3"}) == "weight on B3"
