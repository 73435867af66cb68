"""French and English for every page (docs/design.md §7).

One catalogue per language (web/messages/<lang>.json, loaded into :data:`MESSAGES`)
holds every text the pages show; templates and scripts only name keys. A count ``n``
chooses between ``key.one`` and ``key.other`` when the catalogue has them. The language
is the ``lang`` cookie when the visitor chose one with the switch, else the best match
of the browser's ``Accept-Language``, else French (the players are French-speaking).

>>> translate("en", "table.round", n=2)
'Round 2'
>>> translate("fr", "table.round", n=2)
'Manche 2'
>>> translate("fr", "table.prompts", n=2)
'2 questions pour l’arbitre'
>>> translate("fr", "no.such.key")
'no.such.key'
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from flask import Flask, g, request

LANGUAGES = ("fr", "en")
DEFAULT_LANGUAGE = "fr"
LANG_COOKIE = "lang"

MESSAGES_DIR = Path(__file__).resolve().parent / "messages"


def load_catalogue(lang: str) -> dict[str, str]:
    with open(MESSAGES_DIR / f"{lang}.json", encoding="utf-8") as f:
        catalogue: dict[str, str] = json.load(f)
    return catalogue


# Keys are grouped by page (web/messages/<lang>.json); "{name}" placeholders are filled
# by translate() and by the browser's t() (web/static/js/common.js) with the same rule.
MESSAGES: dict[str, dict[str, str]] = {lang: load_catalogue(lang) for lang in LANGUAGES}


def plural_key(lang: str, key: str, n: Any) -> str:
    """``key.one`` or ``key.other`` when the catalogue has them and ``n`` is a count:
    French says "0 question, 1 question, 2 questions"; English "1 question, 0 questions".

    >>> plural_key("fr", "table.prompts", 0), plural_key("en", "table.prompts", 0)
    ('table.prompts.one', 'table.prompts.other')
    """
    if not isinstance(n, int) or f"{key}.one" not in MESSAGES.get(lang, {}):
        return key
    one = n in (0, 1) if lang == "fr" else n == 1
    return f"{key}.one" if one else f"{key}.other"


def translate(lang: str, key: str, /, **params: Any) -> str:
    """The text for ``key`` in ``lang`` with ``{name}`` placeholders filled; the key
    itself when it is missing (visible in the page, and caught by the catalogue test)."""
    if "n" in params:
        key = plural_key(lang, key, params["n"])
    text = MESSAGES.get(lang, {}).get(key)
    if text is None:
        return key
    for name, value in params.items():
        shown = str(value)
        if lang == "fr":
            text = elide(text, name, shown)
            shown = DECIMAL.sub(r"\1,\2", shown)
        text = text.replace("{" + name + "}", shown)
    return text


DECIMAL = re.compile(r"^(-?\d+)\.(\d+)$")
"""The point of a decimal number given whole as a parameter ("3.00", "2.5"): French
writes a comma there ("3,00 m"; issue 32.20), the browser's t() too.

>>> translate("fr", "table.throw_line", m="3.00"), translate("en", "table.throw_line", m="3.00")
('Ligne de lancer 3,00\xa0m', 'Throw line 3.00 m')
>>> translate("fr", "tour.pool", name="v1.2.3")
'Poule v1.2.3'
"""


VOWEL = re.compile(r"[aeiouyàâäéèêëîïôöûüœæh]", re.IGNORECASE)


def elide(text: str, name: str, value: str) -> str:
    """French elision before a name that starts with a vowel (or h): the catalogue writes
    "de {name}", "que {name}"; Ana makes them "d’Ana", "qu’Ana" (the same rule as the
    browser's, web/static/js/common.js).

    >>> elide("Où est le palet de {name} ?", "name", "Elodie"), elide("Lancer de {name}", "name", "Hugo")
    ('Où est le palet d’{name} ?', 'Lancer d’{name}')
    >>> elide("palet de {name}", "name", "Ben")
    'palet de {name}'
    """
    if not VOWEL.match(value):
        return text
    return re.sub(r"\b(d|qu)e \{" + re.escape(name) + r"\}", lambda m: m.group(1) + "’{" + name + "}", text,
                  flags=re.IGNORECASE)


def choose_language() -> str:
    """The visitor's language: the switch's cookie, else Accept-Language, else French."""
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or DEFAULT_LANGUAGE


def current_language() -> str:
    if "lang" not in g:
        g.lang = choose_language()
    lang: str = g.lang
    return lang


def gettext(key: str, /, **params: Any) -> str:
    """Translate ``key`` into the current request's language (the templates' ``_``)."""
    return translate(current_language(), key, **params)


def init_app(app: Flask) -> None:
    @app.context_processor
    def inject_i18n() -> dict[str, Any]:
        lang = current_language()
        return {"_": gettext, "lang": lang, "messages": MESSAGES[lang]}
