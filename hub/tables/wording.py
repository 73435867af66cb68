"""What the hub reports is a *kind* with *params*; these are the English words for them,
for the hub's edges only: its log lines and the command line (hub/cli).

The hub's views carry the kind and its params and no words (issue 31.5): the web says
them in the page's language (web/messages/<lang>.json, keys ``event.<kind>``,
``alert.<kind>``, ``console.prompt.<kind>``). No module that builds a view imports this
one (tests/test_layering.py). One template per kind, here and nowhere else in the hub;
:data:`KINDS` lists every kind the hub emits, and the web's catalogues word each of them
(tests/web/test_wording_kinds.py).

>>> text("drop", {"hole": "B1.big", "player": "Ana"})
'B1.big: drop (Ana throwing)'
>>> text("unmapped", {"board": "B7", "holes": ["extra", "top"]})
'B7: holes extra, top are not in the layout'
>>> text("input", {"by": "device", "device": {"kind": "button", "board": "B1", "button": "floor"},
...                "key": "landed", "value": "floor"})
'button floor on B1: landed floor'
>>> text("never-heard-of", {"x": 1})
'never-heard-of x=1'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TEMPLATES: dict[str, str] = {
    # table events
    "no_sensors": "{type} ignored: this game has no sensors",
    "input": "{by}: {key} {value}",
    "hello": "{board} says hello (fw {fw}, holes {holes})",
    "beam_clear": "{hole}: beam clear again",
    "bounce_out": "{hole}: bounce-out, not scored (T11)",
    "board_kind": "{board}: {kind}",
    "not_in_layout": "{hole}: {kind} in a hole not in the layout, ignored",
    "ignored_between_rounds": "{hole}: {kind} ignored (between rounds)",
    "ignored_match_over": "{hole}: {kind} ignored (match over)",
    "drop": "{hole}: drop ({player} throwing)",
    "drop_while_deciding": "{hole}: another drop while the referee decides",
    "knock_in_settle": "{hole}: knock-in during the settle window (T12)",
    "button": "{board}: button {button}",
    "weight": "{board}: weight says {palets} palet(s) on the board",
    "throw": "{player}: throw into {hole}",
    "throw_invalid": "{player}: throw into {hole} (invalid, T10)",
    "throw_knocking": "{player}: throw into {hole} knocking {n} in (T12)",
    "throw_seen": "{lane}: {player}'s palet crossed the throw line",
    "throw_merged": "{lane}: the same throw seen twice ({player})",
    "throw_ignored": "{lane}: a throw ignored (between rounds or match over)",
    "throw_undecided": "{lane}: {player}'s throw seen, no sensor says where it rests",
    # table alerts
    "unmapped": "{board}: holes {holes} are not in the layout",
    "blocked": "{hole}: beam blocked, counted as a drop (T13)",
    "fault": "{where}: sensor fault: {reason}",
    "input_refused": "{by} refused: {reason}",
    "cannot_referee": "cannot referee the drops ({reasons}): say what happened",
    "recount_mismatch": "recount: {count} palet(s) on {board}, the log says {expected}; "
                        "amend the throw that was misread",
    "throw_out_of_turn": "{lane}: a throw while another is being decided: not scored",
    "throw_wrong_lane": "{lane}: a throw at another board's line ({player} throws at {home}): not scored",
    "misread_drop": "{hole}: beam B failed, so the last passage read as a bounce: tap {hole} if it fell in",
    # board-health alerts
    "seq_gap": "seq gap: {seqs} of boot {boot} missing",  # seqs: [[first, last], ...]
    "link_lost": "link lost ({link})",
    "gave_up": "{why} {seqs} of boot {boot}: lost",
    "seq_refused": "seq {seq} of boot {boot} refused: more than {window} past the last stored",
    "crashed": "restarted after a crash: {crash}",
    "boot_reused": "boot {boot} reused (flash erased, or a spare with the same id): its events are "
                   "held and the board is asked for a new boot id",
    "silent": "silent for {seconds} s",
    "same_id": "two boards claim this id (a copied local.py?): {links}, boots {boots}; their events are "
               "stored but not scored until one of them is silent for {seconds} s",
    "same_id_gone": "one board holds this id again (the other silent for {seconds} s; were {links}, "
                    "boots {boots}): its events are scored again",
    "unstorable": "{what} could not be stored: {reason}",
    # prompts (the referee's questions)
    "prompt.next_round": "Round over. Palets collected? Start round {round}",
    "prompt.target": "{player}: which hole is the target of the final (T17)?",
    "prompt.fix": "The drops do not make a legal throw: where did {player}'s palet go?",
    "prompt.valid": "Did {player}'s palet bounce on the floor before falling into {hole} (T10)?",
    "prompt.landed": "Where did {player}'s palet come to rest?",
}


EVENTS = ("no_sensors", "input", "hello", "beam_clear", "bounce_out", "board_kind", "not_in_layout",
          "ignored_between_rounds", "ignored_match_over", "drop", "drop_while_deciding",
          "knock_in_settle", "button", "weight", "throw", "throw_invalid", "throw_knocking",
          "throw_seen", "throw_merged", "throw_ignored", "throw_undecided")
"""The kinds of a table's events (``note``)."""
TABLE_ALERTS = ("unmapped", "blocked", "fault", "input_refused", "cannot_referee", "recount_mismatch",
                "throw_out_of_turn", "throw_wrong_lane", "misread_drop")
"""The kinds of a table's alerts."""
BOARD_ALERTS = ("seq_gap", "link_lost", "gave_up", "seq_refused", "crashed", "boot_reused", "silent",
                "unstorable", "same_id", "same_id_gone")
"""The kinds of a board's health alerts."""
PROMPTS = ("next_round", "target", "fix", "valid", "landed")
"""The kinds of the referee's questions (``TEMPLATES`` key ``prompt.<kind>``)."""
DEVICES = ("button", "weight")
"""The kinds of a device that answers for the referee (an input's ``device``)."""


GAVE_UP = {"not_held": "the board no longer holds",
           "not_resent": "gave up waiting: the board kept talking without resending"}
"""Why the hub gave up on a board's missing messages (a ``gave_up`` alert's ``why``)."""


def by_text(by: Any, device: Any = None) -> str:
    """Who sent an input, in English: its ``by``, or the device that answered
    (``{"kind": "button", "board": "B1", "button": "floor"}``, ``{"kind": "weight",
    "board": "B1"}``) as the hub worded it before it had the field.

    >>> by_text("referee"), by_text("device", {"kind": "weight", "board": "B2"})
    ('referee', 'weight on B2')
    """
    if isinstance(device, Mapping) and device.get("kind") == "button":
        return f"button {device.get('button')} on {device.get('board')}"
    if isinstance(device, Mapping) and device.get("kind") == "weight":
        return f"weight on {device.get('board')}"
    return str(by)


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def text(kind: str, params: Mapping[str, Any]) -> str:
    """The English line for ``kind`` with ``params`` (a plain listing for an unknown kind)."""
    shown = {k: _shown(v) for k, v in params.items() if k != "device"}
    if kind in ("seq_gap", "gave_up") and isinstance(params.get("seqs"), list):
        shown["seqs"] = ranges_text([(a, b) for a, b in params["seqs"]])
    if kind == "gave_up":
        shown["why"] = GAVE_UP.get(str(params.get("why")), str(params.get("why")))
    if "by" in params:
        shown["by"] = by_text(params["by"], params.get("device"))
    template = TEMPLATES.get(kind)
    if template is None:
        return " ".join([kind, *(f"{k}={v}" for k, v in shown.items())])
    return template.format(**shown)


def line(item: Mapping[str, Any], shorten: bool = False) -> str:
    """An event, alert or prompt of a view (``kind`` and ``params``) in English: what
    the views carried as ``text`` (``question``) before issue 31.5, for the hub's log
    lines and the command line. ``shorten``: an event's long input value cut to 80
    characters, as those lines had it.

    >>> line({"kind": "drop", "params": {"hole": "B1.big", "player": "Ana"}})
    'B1.big: drop (Ana throwing)'
    >>> line({"id": "p1", "kind": "landed", "player": "Ben", "choices": ["floor"], "params": {}})
    "Where did Ben's palet come to rest?"
    """
    params = dict(item.get("params") or {})
    if "choices" in item:  # a prompt: its player is beside its params
        return text(f"prompt.{item['kind']}", {"player": item.get("player"), **params})
    if shorten and "value" in params:
        params["value"] = _short(params["value"])
    return text(str(item.get("kind")), params)


def _short(value: Any) -> str:
    shown = value if isinstance(value, str) else repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def ranges_text(ranges: list[tuple[int, int]]) -> str:
    """Seq ranges in words.

    >>> ranges_text([(2, 2)]), ranges_text([(2, 5), (7, 7)])
    ('seq 2', 'seqs 2-5, 7')
    """
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in ranges]
    single = len(ranges) == 1 and ranges[0][0] == ranges[0][1]
    return ("seq " if single else "seqs ") + ", ".join(parts)
