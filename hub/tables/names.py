"""Player names, checked at every door that takes one (a table's seats, a tournament's
registration): one function, :func:`player_name`.

A name is stored in NFC ("é" typed as e + a combining accent is the same "é" as the
precomposed one), trimmed. Characters that show nothing, or change how the text around
them is shown, are refused with a clear message naming the character: control characters,
format characters (zero-width space and joiners, bidi overrides and isolates, the soft
hyphen), line and paragraph separators, private-use and unassigned code points, and the
blank letters (Hangul fillers, the blank Braille pattern). Otherwise "Ana" and "Ana" + a
zero-width space are two players no one can tell apart, and a right-to-left override
turns the rest of a ranking around.

Names that still look the same (compatibility forms such as full-width letters, another
case, runs of spaces) are *look-alikes*: :func:`look_alikes` names them, so a registration
can be flagged; they may be two people, so they are not refused.

>>> player_name("  Zoe\\u0301 ")  # e + combining acute: stored precomposed
'Zoé'
>>> player_name("Ana\\u200b")
Traceback (most recent call last):
...
hub.errors.BadInputError: name: 'Ana\\u200b' holds an invisible or control character (U+200B ZERO WIDTH SPACE); type the name again without it
>>> look_alikes("Ａｎａ", ["Ana", "Ben"])
['Ana']
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from hub.errors import BadInputError

MAX_NAME = 40  # characters, once normalised (a tournament's sheets and the big screen)

# Unicode categories never shown as a glyph: control, format (zero-width, bidi), surrogate,
# private use, unassigned, line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters that draw nothing (categorised as letters or symbols, so named one by one).
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def hidden_character(text: str) -> str | None:
    """The first character of ``text`` that shows nothing or reorders text, else None.

    >>> hidden_character("Ana"), hidden_character("A\\u202ena"), hidden_character("Zoë Ng")
    (None, '\\u202e', None)
    """
    for char in text:
        if char in BLANK_LETTERS or unicodedata.category(char) in HIDDEN_CATEGORIES:
            return char
    return None


def player_name(value: object, what: str = "name", *, max_len: int = MAX_NAME) -> str:
    """The name to store: NFC, trimmed, 1 to ``max_len`` characters, with no hidden
    character. BadInputError otherwise: kind ``name_hidden_char`` (``field``, ``char``: its
    code point as U+XXXX) or ``bad_name`` (``field``, ``max_len``)."""
    if not isinstance(value, str):
        raise BadInputError(f"{what}: expected a text", "bad_name", field=what, max_len=max_len)
    name = unicodedata.normalize("NFC", value).strip()
    hidden = hidden_character(name)
    if hidden is not None:
        code = f"U+{ord(hidden):04X}"
        label = unicodedata.name(hidden, "unnamed")
        raise BadInputError(f"{what}: {value!r} holds an invisible or control character ({code} {label}); "
                            "type the name again without it", "name_hidden_char", field=what, char=code)
    if not name or len(name) > max_len:
        raise BadInputError(f"{what}: expected a name of 1 to {max_len} characters", "bad_name",
                            field=what, max_len=max_len)
    return name


def look_alike_key(name: str) -> str:
    """What two names that look the same share: compatibility forms folded (NFKC), case
    folded, runs of spaces made one.

    >>> look_alike_key("ＡＮＡ  de\\u00a0Silva") == look_alike_key("ana de silva")
    True
    """
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def look_alikes(name: str, others: Iterable[str]) -> list[str]:
    """The names of ``others`` that look like ``name`` (its own spelling aside)."""
    key = look_alike_key(name)
    return [other for other in others if other != name and look_alike_key(other) == key]
