"""Readable text for ``trigono replay --pretty`` and ``trigono analyze --pretty``: the
same facts as the JSON, for people.

>>> print("\\n".join(state_lines({"game": "trike", "status": "over", "to_move": None,
...     "winner": "black", "scores": {"black": 2, "white": 1},
...     "log": [{"player": "black", "action": "b1", "points": 0}]})))
game         trike
status       over
to move      -
winner       black
scores       black 2 · white 1
log
    1. black  b1
>>> print("\\n".join(analysis_lines({"to_move": "white", "moves": {"c2": "win", "a3": "loss"}})))
to move      white
  c2  win
  a3  loss
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

HEADLINE = ("game", "status", "round", "phase", "to_move", "winner")


def compact(value: Any) -> str:
    """An action or value in short notation: ``c2``, ``throw Ana → B1.big``.

    >>> compact({"throw": {"player": "Ana", "to": "B1.big", "knocked": [{"from": "B1", "to": "B1.small"}]}})
    'throw Ana → B1.big, knocking B1 → B1.small'
    >>> compact({"play": ["H8:5", "H9:3"]}), compact({"pass": True})
    ('play H8:5 H9:3', 'pass')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("throw"), dict):
        throw = value["throw"]
        text = f"throw {throw.get('player')} → {throw.get('to')}"
        if throw.get("invalid"):
            text += " (invalid)"
        knocked = throw.get("knocked") or []
        if knocked:
            text += ", knocking " + ", ".join(f"{k.get('from')} → {k.get('to')}" for k in knocked)
        return text
    if isinstance(value, list):
        return " ".join(compact(v) for v in value)
    if isinstance(value, dict):
        return " ".join(k if v is True else f"{k} {compact(v)}" for k, v in value.items())
    return json.dumps(value, ensure_ascii=False)


WIDTH = 12  # field names are padded to this


def _flat(value: Any) -> bool:
    """Scalars, and lists or maps of scalars: what one line can show."""
    if isinstance(value, dict):
        return all(not isinstance(v, (dict, list)) for v in value.values())
    if isinstance(value, list):
        return all(not isinstance(v, (dict, list)) for v in value)
    return True


def _field(name: str, value: Any) -> str:
    if isinstance(value, dict):
        value = " · ".join(f"{k} {compact(v)}" for k, v in value.items()) or "-"
    elif isinstance(value, list):
        value = ", ".join(compact(v) for v in value) or "-"
    elif value is None:
        value = "-"
    return f"{name.replace('_', ' '):<{WIDTH}} {value}"


def state_lines(printed: Mapping[str, Any]) -> list[str]:
    """A printed state (docs/records.md): the headline fields, the scores, the game's own
    fields that fit on a line, then the log one action a line."""
    lines = [_field(k, printed[k]) for k in HEADLINE if k in printed and not (k == "winner" and printed[k] is None)]
    rest = [k for k in printed if k not in HEADLINE and k != "log" and _flat(printed[k])]
    lines += [_field(k, printed[k]) for k in rest]
    log = printed.get("log") or []
    if log:
        lines.append("log")
        width = max(len(str(e.get("player", ""))) for e in log)
        for n, e in enumerate(log, start=1):
            points = f"  {e['points']:+}" if isinstance(e.get("points"), (int, float)) and e["points"] else ""
            lines.append(f"  {n:>3}. {str(e.get('player', '')):<{width}}  {compact(e.get('action'))}{points}")
    return lines


def analysis_lines(result: Mapping[str, Any]) -> list[str]:
    """``analyze``'s report: who is to move, then each legal action and its label."""
    lines = [_field("to_move", result.get("to_move"))]
    moves = result.get("moves") or {}
    width = max((len(str(m)) for m in moves), default=0)
    lines += [f"  {m:<{width}}  {label}" for m, label in moves.items()]
    for name, value in result.items():
        if name in ("to_move", "moves"):
            continue
        if isinstance(value, list) and not _flat(value):  # e.g. Triolet's best plays
            lines.append(name.replace("_", " "))
            lines += [f"  {compact(v)}" for v in value]
        else:
            lines.append(_field(name, value))
    return lines
