"""JSON from outside, with limits: size, nesting depth and integer length.

Python's ``json`` recurses once per nesting level (a few thousand ``[`` end in a
``RecursionError``), converts any length of digits to an ``int`` (5,000 digits take
the 4,300-digit guard's ``ValueError``, a million take seconds), and ``json.load``
reads an endless input (``/dev/zero``) until memory runs out. Every edge that takes
JSON from a person or a network — the web app's request bodies, ``trigono replay`` —
goes through :func:`loads` / :func:`load` and gets a :class:`JSONLimitError` (a
``ValueError``) with one clear line instead (malformed JSON stays a
``json.JSONDecodeError``, a ValueError too).

>>> loads('{"a": [1, 2, {"b": 3}]}')
{'a': [1, 2, {'b': 3}]}
>>> loads("[" * 100 + "]" * 100)
Traceback (most recent call last):
...
hub.jsonlimits.JSONLimitError: JSON nested deeper than 64 levels
>>> loads("1" * 5000)
Traceback (most recent call last):
...
hub.jsonlimits.JSONLimitError: JSON integer longer than 100 digits
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO, Any

MAX_DEPTH = 64  # a game record nests 5 levels; a table spec 4
MAX_INT_DIGITS = 100  # seeds are 64-bit: 20 digits
MAX_RECORD_BYTES = 16 * 1024 * 1024  # `trigono replay`: a long match is under 1 MB


class JSONLimitError(ValueError):
    """Input refused before or while parsing: too big, too deep, an integer too long."""


class UnencodableTextError(JSONLimitError):
    """The JSON text holds a lone surrogate (U+D800-DFFF, only a ``\\u`` escape can carry
    one): text no UTF-8 encoder can write (issue 24.1). The web counts these refusals."""


def _parse_int(text: str, max_digits: int) -> int:
    if len(text.lstrip("-")) > max_digits:
        raise JSONLimitError(f"JSON integer longer than {max_digits} digits")
    return int(text)


def depth_of(value: Any, limit: int) -> int:
    """Nesting depth of a parsed value (scalars 0), counted without recursion; stops
    counting past ``limit``.

    >>> depth_of([1, {"a": []}], 64)
    3
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            level += 1
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            stack.extend((child, level) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH, max_int_digits: int = MAX_INT_DIGITS) -> Any:
    """``json.loads`` with a bound on nesting and on integer length: malformed JSON is
    ``json.JSONDecodeError`` as usual, a limit :class:`JSONLimitError` (both ValueError)."""
    try:
        value = json.loads(text, parse_int=lambda s: _parse_int(s, max_int_digits))
    except RecursionError:
        raise JSONLimitError(f"JSON nested deeper than {max_depth} levels") from None
    if depth_of(value, max_depth) > max_depth:
        raise JSONLimitError(f"JSON nested deeper than {max_depth} levels")
    if _SURROGATE_ESCAPE.search(text if isinstance(text, str) else text.decode("utf-8", "replace")) \
            and not is_encodable(value):
        raise UnencodableTextError("JSON text holds a lone surrogate (\\ud800-\\udfff): not encodable")
    return value


# Only a \u escape can put a surrogate in a parsed string (raw ones are not valid UTF-8);
# a valid pair decodes to one character, so a match is only a suspect.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def is_encodable(value: Any) -> bool:
    """False when a string in ``value`` holds a lone surrogate (U+D800-DFFF): it has no
    UTF-8 form, so every encoding of it fails (orjson, ``str.encode``).

    >>> is_encodable({"fw": "1.0\U0001F600"}), is_encodable({"fw": ["1.0" + chr(0xD800)]})
    (True, False)
    """
    try:
        for text in _strings(value):
            text.encode()
    except UnicodeEncodeError:
        return False
    return True


def encodable(value: Any) -> Any:
    """``value`` with each lone surrogate replaced by U+FFFD (itself when it holds none):
    what the hub shows for text that was stored before the edge refused it.

    >>> encodable({"fw": "1.0" + chr(0xD800), "n": [1, "ok"]})
    {'fw': '1.0\ufffd', 'n': [1, 'ok']}
    """
    if is_encodable(value):
        return value
    return _replaced(value)


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        # Through UTF-16: a split pair joins up again, a lone half becomes U+FFFD.
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replaced(v) for v in value]
    return value


def load(stream: IO[str] | IO[bytes], max_bytes: int = MAX_RECORD_BYTES, **limits: int) -> Any:
    """Read at most ``max_bytes`` (characters for a text stream) and parse them."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise JSONLimitError(f"input larger than {max_bytes} bytes")
    return loads(data, **limits)
