"""Plain words for what the hub reports (web/describe.py): places, prompts, events and
alerts, in the page's language, never a raw dict."""

from __future__ import annotations

from typing import Any

from web.describe import alert_text, event_text, prompt_text, where_label


def test_T17_target_and_other_prompts_read_in_the_page_language(app: Any) -> None:
    view = {"state": {"round": 3}, "throw": None}
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert prompt_text({"kind": "target", "player": "Ana"}, view) == "Final: choose the target"
        assert prompt_text({"kind": "next_round"}, view) == "Round over. Palets collected? Start round 3"
        assert prompt_text({"kind": "fix", "player": "Ben"}, view).startswith("The drops do not make")
        assert prompt_text({"kind": "new", "params": {"n": 2}}, view) == "new n=2"  # a newer hub's kind
        assert [where_label(c) for c in ("jackpot", "jackpot.2", "H3.small", "start")] == [
            "jackpot", "jackpot 2", "H3 small hole", "Start"]
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert prompt_text({"kind": "target", "player": "Ana"}, view) == "Finale\u00a0: choisir le trou cible"
        assert where_label("H3.big") == "grand trou H3"


def test_events_read_as_plain_words_in_both_languages(app: Any) -> None:
    drop = {"id": 4, "source": "device", "kind": "drop", "params": {"hole": "B1.big", "player": "Ana"}}
    answer = {"id": 5, "source": "console", "kind": "input",
              "params": {"by": "referee", "key": "answer", "value": {"prompt": "landed-3", "choice": "floor"}}}
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert event_text(drop) == "B1 big hole: drop (Ana throwing)"
        assert event_text(answer) == "Referee answered: floor"
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert event_text(drop) == "grand trou B1\u00a0: chute (lancer d’Ana)"
        assert event_text(answer) == "Arbitre a répondu\u00a0: sol"
        assert "{" not in event_text(answer) and "prompt" not in event_text(answer)


def test_alerts_read_as_plain_words_and_unknown_kinds_show_as_kind_and_params(app: Any) -> None:
    mismatch = {"kind": "recount_mismatch", "params": {"board": "B1", "count": 3, "expected": 2}}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert alert_text(mismatch).startswith("Plateau B1\u00a0: 3 palets comptés, le journal en attend 2.")
        assert alert_text({"kind": "brand_new", "params": {"board": "B1"}}) == "brand_new board=B1"
        assert event_text({"kind": "brand_new", "params": {}}) == "brand_new"


def test_every_input_kind_has_words(app: Any) -> None:
    from web.api import CONSOLE_INPUTS
    from web.i18n import MESSAGES

    for lang in ("en", "fr"):
        missing = [k for k in CONSOLE_INPUTS if k != "hint" and f"event.input.{k}" not in MESSAGES[lang]]
        assert not missing, (lang, missing)


def test_a_boards_button_and_scale_say_who_in_the_page_language(app: Any) -> None:
    # The hub says which device answered as data (issue 31.5), never as a sentence to parse.
    pressed = {"kind": "input", "params": {"by": "device", "device": {"kind": "button", "board": "B1", "button": "floor"},
                                           "key": "landed", "value": "floor"}}
    weighed = {"kind": "input", "params": {"by": "device", "device": {"kind": "weight", "board": "B2"},
                                           "key": "landed", "value": "board:B2"}}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert event_text(pressed) == "Bouton « sol » du plateau B1\u00a0: palet → sol"
        assert event_text(weighed) == "Balance du plateau B2\u00a0: palet → plateau B2"
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert event_text(pressed) == "Button “floor” on B1: palet → floor"


def test_a_refused_sensor_answer_gives_its_reason_in_words(app: Any) -> None:
    alert = {"kind": "input_refused", "params": {"by": "device", "device": {"kind": "button", "board": "B1", "button": "floor"},
                                                 "key": "landed",
                                                 "reason": "landed: nobody is to throw",
                                                 "refusal": "nobody_to_throw", "refusal_params": {}}}
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        assert alert_text(alert) == "Bouton « sol » du plateau B1\u00a0: refusé (Personne n’est au lancer.)"
