"""What the hub reports is a *kind* with *params*; these are the English words for them.

The web says the same things in the page's language (web/messages/<lang>.json, keys
``event.<kind>``, ``alert.<kind>``); the hub keeps a ``text`` in English beside each
kind only for its own log lines and for readers that know no catalogue (the CLI,
tests). One template per kind, here and nowhere else in the hub.

>>> text("drop", {"hole": "B1.big", "player": "Ana"})
'B1.big: drop (Ana throwing)'
>>> text("unmapped", {"board": "B7", "holes": ["extra", "top"]})
'B7: holes extra, top are not in the layout'
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
    "seq_gap": "seq gap: {seqs} of boot {boot} missing",
    "link_lost": "link lost ({link})",
    "gave_up": "{why} {seqs} of boot {boot}: lost",
    "seq_refused": "seq {seq} of boot {boot} refused: more than {window} past the last stored",
    "crashed": "restarted after a crash: {crash}",
    "boot_reused": "boot {boot} reused (flash erased, or a spare with the same id): its events are "
                   "held and the board is asked for a new boot id",
    "silent": "silent for {seconds} s",
    "unstorable": "{what} could not be stored: {reason}",
    # prompts (the referee's questions)
    "prompt.next_round": "Round over. Palets collected? Start round {round}",
    "prompt.target": "{player}: which hole is the target of the final (T17)?",
    "prompt.fix": "The drops do not make a legal throw: where did {player}'s palet go?",
    "prompt.valid": "Did {player}'s palet bounce on the floor before falling into {hole} (T10)?",
    "prompt.landed": "Where did {player}'s palet come to rest?",
}


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def text(kind: str, params: Mapping[str, Any]) -> str:
    """The English line for ``kind`` with ``params`` (a plain listing for an unknown kind)."""
    shown = {k: _shown(v) for k, v in params.items()}
    template = TEMPLATES.get(kind)
    if template is None:
        return " ".join([kind, *(f"{k}={v}" for k, v in shown.items())])
    return template.format(**shown)


def seqs_text(seqs: list[int]) -> str:
    """``seq 4`` or ``seqs 4-9`` (gaps are ranges).

    >>> seqs_text([4]), seqs_text([4, 5, 6])
    ('seq 4', 'seqs 4-6')
    """
    return f"seq {seqs[0]}" if len(seqs) == 1 else f"seqs {seqs[0]}-{seqs[-1]}"


def ranges_text(ranges: list[tuple[int, int]]) -> str:
    """Seq ranges in words.

    >>> ranges_text([(2, 2)]), ranges_text([(2, 5), (7, 7)])
    ('seq 2', 'seqs 2-5, 7')
    """
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in ranges]
    single = len(ranges) == 1 and ranges[0][0] == ranges[0][1]
    return ("seq " if single else "seqs ") + ", ".join(parts)
