"""French and English (web/i18n.py, web/messages/*.json): the browser's language, the
switch, the catalogue, plurals, and no text hard-coded in a template."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from web.i18n import MESSAGES, translate

WEB = Path(__file__).resolve().parents[2] / "web"


def test_browser_language_chooses(client: FlaskClient, trigono_table: Any) -> None:
    french = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).get_data(as_text=True)
    english = client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9"}).get_data(as_text=True)
    assert '<html lang="fr"' in french and MESSAGES["fr"]["nav.big"] in french
    assert '<html lang="en"' in english and MESSAGES["en"]["nav.big"] in english


def test_language_defaults_to_french(client: FlaskClient) -> None:
    assert '<html lang="fr"' in client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)


def test_switch_overrides_the_browser(client: FlaskClient) -> None:
    response = client.get("/lang/en?next=/big", headers={"Accept-Language": "fr"})
    assert response.status_code == 302 and response.headers["Location"] == "/big"
    page = client.get("/big", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="en"' in page


def test_switch_never_redirects_off_site(client: FlaskClient) -> None:
    for target in ["https://evil.example/", "//evil.example/x", "/\\evil"]:
        assert client.get(f"/lang/fr?next={target}").headers["Location"] == "/", target


def test_unknown_language_is_ignored(client: FlaskClient) -> None:
    client.get("/lang/xx")
    assert '<html lang="fr"' in client.get("/").get_data(as_text=True)


# -- the catalogue and the templates -------------------------------------------------------
def test_catalogue_has_the_same_keys_in_both_languages() -> None:
    assert set(MESSAGES["fr"]) == set(MESSAGES["en"])


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    used: set[str] = set()
    pattern = re.compile(r"""(?:\b_|\bt|gettext|flash_key)\(\s*['"]([a-z_]+\.[a-z_.]+)['"]""")
    for path in list(WEB.rglob("*.html")) + list(WEB.rglob("*.js")) + list(WEB.rglob("*.py")):
        if "games" in path.relative_to(WEB).parts and path.name != "fallback.js":
            continue  # a game's renderer brings its own messages (web/GAMES.md)
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    used = {k for k in used if not k.endswith(".")}  # prefixes completed at run time
    for module in pkgutil.iter_modules([str(WEB)]):  # modules that bring their own texts merge them
        if not module.name.startswith("__"):
            importlib.import_module(f"web.{module.name}")
    missing = sorted(k for k in used if k not in MESSAGES["en"] and f"{k}.one" not in MESSAGES["en"])
    assert not missing, missing
    assert len(used) > 80


def visible_text(template: str) -> str:
    """What a template would show apart from what Jinja fills in."""
    text = re.sub(r"\{#.*?#\}", " ", template, flags=re.S)
    text = re.sub(r"\{%.*?%\}", " ", text, flags=re.S)
    text = re.sub(r"\{\{.*?\}\}", " ", text, flags=re.S)
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"<[^>]*>", " ", text, flags=re.S)
    return text


@pytest.mark.parametrize("template", sorted(p.relative_to(WEB).as_posix() for p in WEB.rglob("templates/**/*.html")))
def test_no_text_is_hard_coded_in_templates(template: str) -> None:
    words = re.findall(r"[^\W\d_]{2,}", visible_text((WEB / template).read_text(encoding="utf-8")))
    assert not words, f"{template} shows {words}: put them in web/i18n.py"


def test_counts_agree_in_both_languages() -> None:
    assert translate("fr", "table.prompts", n=1) == "1 question pour l’arbitre"
    assert translate("fr", "table.prompts", n=0) == "0 question pour l’arbitre"
    assert translate("fr", "table.prompts", n=3) == "3 questions pour l’arbitre"
    assert translate("en", "table.prompts", n=1) == "1 question for the referee"
    assert translate("en", "table.prompts", n=0) == "0 questions for the referee"
    assert not any("(s)" in text for lang in MESSAGES.values() for text in lang.values())


def test_plural_pairs_are_complete() -> None:
    for lang, catalogue in MESSAGES.items():
        for key in catalogue:
            if key.endswith(".one"):
                assert key[:-4] + ".other" in catalogue, (lang, key)
