"""Plain words, in the page's language, for what the hub reports: places, prompts,
table events, alerts and refusals (the hub sends each as a ``kind`` with ``params``; the words
live in the catalogue, web/messages/<lang>.json, under ``where.``, ``console.``,
``event.`` and ``alert.``).

>>> from hub.api import Hub
>>> from web import create_app
>>> with create_app({"TESTING": True}, hub=Hub(":memory:")).test_request_context(headers={"Accept-Language": "en"}):
...     print(where_label("B1.big"), "/", event_text({"kind": "drop", "params": {"hole": "B2.small", "player": "Ana"}}))
B1 big hole / B2 small hole: drop (Ana throwing)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import Flask

from hub.api import HubError
from web.context import get_hub
from web.i18n import MESSAGES, current_language, gettext

# Parameters that name a place, and are shown as one (``B1.big`` → "B1 big hole").
PLACE_PARAMS = ("hole", "where", "to", "target", "choice")
CHOICE_KEYS = {"valid": "console.choice.valid", "invalid": "console.choice.invalid", "start": "console.choice.start"}


def hole_label_parts(hole: str) -> tuple[str, dict[str, Any]]:
    """The catalogue key and parameters naming a hole or a landing place (the hub's
    label of it: :meth:`hub.facade.Hub.place_label`; in a request of an app with a hub).

    >>> from hub.api import Hub
    >>> from web import create_app
    >>> context = create_app({"TESTING": True}, hub=Hub(":memory:")).test_request_context()
    >>> context.push()
    >>> hole_label_parts("B1.big")
    ('where.big', {'board': 'B1'})
    >>> hole_label_parts("board:B2")
    ('where.board', {'board': 'B2'})
    >>> hole_label_parts("jackpot.2")
    ('where.jackpot_n', {'n': '2'})
    >>> context.pop()
    """
    label = dict(get_hub().place_label(hole))  # the hub names places, the web words them
    return f"where.{label.pop('kind')}", label


def where_label(choice: Any) -> str:
    """A prompt choice or a landing place in the page's language."""
    if isinstance(choice, str):
        if choice in CHOICE_KEYS:
            return gettext(CHOICE_KEYS[choice])
        key, params = hole_label_parts(choice)
        return gettext(key, **params)
    return compact(choice)


def compact(value: Any) -> str:
    """A move or other value as short readable notation: ``"c2"``, ``H8:5 H9:3``.

    >>> compact({"play": ["H8:5", "H9:3"]}), compact("c2"), compact({"pass": True})
    ('play H8:5 H9:3', 'c2', 'pass')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, list):
        return " ".join(compact(v) for v in value)
    if isinstance(value, dict):
        return " ".join(k if v is True else f"{k} {compact(v)}".strip() for k, v in value.items())
    return json.dumps(value, ensure_ascii=False)


SOURCES = ("referee", "sensors", "bot", "console", "hub", "device")  # a ``by`` that is no player's name


def who(by: Any, device: Any = None) -> str:
    """Who sent an input: the referee, the sensors, a bot, a player's name, or the device
    that answered — the hub says which as data (``device``: ``{"kind": "button", "board":
    "B1", "button": "floor"}`` or ``{"kind": "weight", "board": "B1"}``), worded by
    ``event.by.<kind>``.

    >>> from web import create_app
    >>> with create_app({"TESTING": True}).test_request_context(headers={"Accept-Language": "fr"}):
    ...     print(who("device", {"kind": "button", "board": "B1", "button": "floor"}), "/", who("Ana"))
    Bouton « sol » du plateau B1 / Ana
    """
    if isinstance(device, Mapping) and isinstance(device.get("kind"), str) and known(f"event.by.{device['kind']}"):
        fields = {k: v for k, v in device.items() if k != "kind"}
        button = fields.get("button")
        if isinstance(button, str) and known(f"button.{button}"):
            fields["button"] = gettext(f"button.{button}")
        return gettext(f"event.by.{device['kind']}", **fields)
    if by in SOURCES:
        return gettext(f"event.by.{by}")
    return str(by)


def action_number(index: Any) -> Any:
    """An action's place in the game record as a referee counts it: from 1 (the hub and
    its API number them from 0). One numbering on the console's correction form, in the
    log lines and in the refusals that name an action.

    >>> action_number(37), action_number(None)
    (38, None)
    """
    return index + 1 if isinstance(index, int) and not isinstance(index, bool) else index


def engine_text(why: Any, params: Any, fallback: Any) -> str:
    """An engine's reason (``why`` with its params: engines.core.GameError) in the page's
    language; ``fallback`` (the engine's English line) for a reason it does not name.

    >>> from web import create_app
    >>> with create_app({"TESTING": True}).test_request_context(headers={"Accept-Language": "fr"}):
    ...     print(engine_text("triolet.not_touching", {}, "the play does not touch ..."))
    le coup ne touche pas les jetons déjà posés (L4)
    """
    if isinstance(why, str) and known(f"engine.{why}"):
        return gettext(f"engine.{why}", **shown_params(params if isinstance(params, dict) else {}))
    return str(fallback or "")


def reading_refusal(refusal: Mapping[str, Any]) -> str:
    """Why one reading of a drop was refused: the engine's reason alone when it names one."""
    params = refusal.get("params")
    if isinstance(params, dict) and "why" in params:
        return engine_text(params["why"], params.get("why_params"), params.get("reason"))
    return refusal_words(refusal)


FIELD_LABELS = {"key": "licence"}  # a setting's name -> its label's key where they differ


def shown_params(params: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in params.items():
        if name == "reason" and "why" in params:
            out[name] = engine_text(params["why"], params.get("why_params"), value)
        elif name == "reasons" and isinstance(params.get("refusals"), list):
            # the referee's refusals of each reading of a drop (hub.tables.referee)
            out[name] = "; ".join(reading_refusal(r) for r in params["refusals"] if isinstance(r, dict))
        elif name == "match_status" and isinstance(value, str) and known(f"tour.match.{value}"):
            out[name] = gettext(f"tour.match.{value}")
        elif name in PLACE_PARAMS and isinstance(value, str):
            out[name] = where_label(value)
        elif name == "index":
            out[name] = action_number(value)
        elif name == "by":
            out[name] = who(value, params.get("device"))
        elif name == "seqs" and isinstance(value, list):
            out[name] = seq_ranges(value)
        elif name == "field" and isinstance(value, str) and known(label := f"tour.{FIELD_LABELS.get(value, value)}"):
            out[name] = gettext(label).rstrip(" :")  # a tournament setting by its form's label
        elif name == "game" and isinstance(value, str) and known(f"game.{value}"):
            out[name] = gettext(f"game.{value}")
        elif isinstance(value, list):
            out[name] = ", ".join(compact(v) for v in value)
        elif isinstance(value, dict):
            out[name] = compact(value)
        else:
            out[name] = value
    return out


def seq_ranges(ranges: list[Any]) -> str:
    """A board's message numbers, given as ``[[first, last], ...]``: ``4``, ``4-6, 9``.

    >>> seq_ranges([[4, 4]]), seq_ranges([[4, 6], [9, 9]])
    ('4', '4-6, 9')
    """
    parts = []
    for seqs in ranges:
        first, last = (seqs[0], seqs[-1]) if isinstance(seqs, list) and seqs else (seqs, seqs)
        parts.append(str(first) if first == last else f"{first}-{last}")
    return ", ".join(parts)


def unworded(kind: Any, params: Any) -> str:
    """What a page shows for a kind its catalogue does not word (a newer hub's): the kind
    and its params as they are. Every kind this hub emits is worded
    (tests/web/test_wording_kinds.py).

    >>> unworded("brand_new", {"board": "B1", "n": 2})
    'brand_new board=B1 n=2'
    """
    shown = params.items() if isinstance(params, Mapping) else []
    return " ".join([str(kind or ""), *(f"{k}={compact(v)}" for k, v in shown)]).strip()


def known(key: str) -> bool:
    catalogue = MESSAGES[current_language()]
    return key in catalogue or f"{key}.one" in catalogue


def action_text(action: Any) -> str:
    """A Trigono action in words ("lancer d’Hugo : plateau B1"); other games' actions in
    their notation ("c2", "play H8:5"), which is the same in every language.

    >>> from hub.api import Hub
    >>> from web import create_app
    >>> with create_app({"TESTING": True}, hub=Hub(":memory:")).test_request_context(headers={"Accept-Language": "fr"}):
    ...     print(action_text({"throw": {"player": "Hugo", "to": "floor"}}))
    lancer d’Hugo : sol
    """
    if isinstance(action, dict) and isinstance(action.get("throw"), dict):
        thrown = action["throw"]
        key = "event.action.throw_invalid" if thrown.get("invalid") else "event.action.throw"
        return gettext(key, player=thrown.get("player", ""), where=where_label(str(thrown.get("to", ""))))
    if isinstance(action, dict) and isinstance(action.get("target"), str):
        return gettext("event.action.target", where=where_label(action["target"]))
    return compact(action)


def input_text(params: Mapping[str, Any]) -> str:
    """An input the table took: "Referee: Ana's palet landed on the floor"."""
    key, value = str(params.get("key")), params.get("value")
    fields: dict[str, Any] = {"by": who(params.get("by"), params.get("device")), "player": params.get("player") or ""}
    if isinstance(value, dict) and key == "answer":
        fields["choice"] = where_label(value.get("choice"))
    elif isinstance(value, dict) and key == "recount":
        fields.update(board=value.get("board"), n=value.get("count"))
    elif isinstance(value, dict) and key == "rebind":
        fields.update(board=value.get("board"), position=value.get("position"))
    elif isinstance(value, dict) and key == "amend":
        fields.update(index=action_number(value.get("index")), action=action_text(value.get("action")))
    elif isinstance(value, str) and key in ("landed", "target"):
        fields["where"] = where_label(value)
    else:
        fields["value"] = compact(value)
    if key == "archive" and value is False:
        key = "unarchive"
    name = f"event.input.{key}"
    return gettext(name, **fields) if known(name) else gettext("event.input", key=key, **fields)


def event_text(event: Mapping[str, Any]) -> str:
    """One line of a table's event log in plain words."""
    kind, params = event.get("kind"), event.get("params") or {}
    if kind == "input" and isinstance(params, dict):
        return input_text(params)
    if isinstance(kind, str) and known(f"event.{kind}") and isinstance(params, dict):
        return gettext(f"event.{kind}", **shown_params(params))
    return unworded(kind, params)


def alert_text(alert: Mapping[str, Any]) -> str:
    """An alert (of a table or of a board) in plain words."""
    kind, params = alert.get("kind"), alert.get("params") or {}
    refusal = params.get("refusal") if isinstance(params, dict) else None
    if kind == "input_refused" and isinstance(refusal, str) and known(f"refusal.{refusal}"):
        # A sensor's answer was refused: the reason in words too, not the hub's English line.
        reason = gettext(f"refusal.{refusal}", **shown_params(params.get("refusal_params") or {}))
        params = {**params, "reason": reason}
    if isinstance(kind, str) and known(f"alert.{kind}") and isinstance(params, dict):
        return gettext(f"alert.{kind}", **shown_params(params))
    return unworded(kind, params)


def refusal_text(err: HubError) -> str:
    """A refusal of the hub in the page's language (its English message for a refusal
    that has no ``kind``, or a kind the catalogue does not word yet)."""
    return refusal_words({"kind": err.kind, "params": err.params}, str(err))


def refusal_words(refusal: Mapping[str, Any], fallback: str = "") -> str:
    """A refusal given as ``{"kind", "params"}`` in the page's language (the engine's
    reason in it worded too: ``why``)."""
    kind, params = refusal.get("kind"), refusal.get("params") or {}
    if not isinstance(params, dict):
        params = {}
    if isinstance(kind, str) and known(f"refusal.{kind}"):
        return gettext(f"refusal.{kind}", **shown_params(params))
    return str(params.get("reason") or fallback)


def hint_words(game: Any, hint: Any) -> Any:
    """A bot's hint with its ``why`` in the page's language: the engine gives it in English
    and as a ``reason`` (``{"kind", **params}``), worded by ``hint.<game>.<kind>``; a
    ``bonus`` (Triominos) is added in words too. Anything else is returned as it is.

    >>> from web import create_app
    >>> with create_app({"TESTING": True}).test_request_context(headers={"Accept-Language": "fr"}):
    ...     print(hint_words("trike", {"action": "c3", "why": "wins 54% of 169 simulations",
    ...                                "reason": {"kind": "simulations", "rate": 54, "visits": 169}})["why"])
    gagne 54 % de 169 simulations
    """
    if not isinstance(hint, dict) or not isinstance(hint.get("reason"), dict):
        return hint
    reason = hint["reason"]
    key = f"hint.{game}.{reason.get('kind')}"
    if not known(key):
        return hint
    why = gettext(key, **{k: v for k, v in reason.items() if k != "kind"})
    bonus = reason.get("bonus")
    if isinstance(bonus, str) and known(f"{game}.bonus.{bonus}"):
        why += " · " + gettext(f"{game}.bonus.{bonus}")
    return {**hint, "why": why}


PROMPT_KEYS = {"landed": "console.landed", "valid": "console.valid", "target": "console.target",
               "next_round": "console.next_round_q", "fix": "console.fix"}
"""Each kind of the hub's questions (hub.tables.wording.PROMPTS) -> its words."""


def prompt_text(prompt: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """The hub's question to the referee, in the page's language."""
    kind, name = prompt.get("kind"), prompt.get("player") or ""
    params = prompt.get("params") or {}
    if not isinstance(kind, str) or kind not in PROMPT_KEYS:
        return unworded(kind, params)
    fields: dict[str, Any] = {"name": name}
    if kind == "valid":
        drops = (view.get("throw") or {}).get("drops") or [{}]
        fields["hole"] = where_label(str(params.get("hole") or drops[0].get("hole", "?")))
    if kind == "next_round":
        fields["n"] = params.get("round", (view.get("state") or {}).get("round", ""))
    return gettext(PROMPT_KEYS[kind], **fields)


def init_app(app: Flask) -> None:
    """The templates' helpers: ``where_label``, ``prompt_text``, ``event_text``, ``alert_text``,
    ``action_number``."""
    for helper in (where_label, prompt_text, event_text, alert_text, action_number):
        app.jinja_env.globals[helper.__name__] = helper
