"""The web holds the hub through ``web.hub_protocol.HubAPI``: the real hub has every
method of it, with the same parameters (mypy checks the types; this checks at run time
that nobody renamed a method or a parameter on one side only)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from hub.facade import Hub
from web.hub_protocol import HubAPI


def protocol_methods() -> list[str]:
    return [name for name, value in vars(HubAPI).items() if callable(value) and not name.startswith("_")]


def test_the_hub_has_every_method_the_web_uses_with_the_same_parameters() -> None:
    names = protocol_methods()
    assert {"public_view", "legal_actions", "submit", "create"} <= set(names)
    for name in names:
        wanted = list(inspect.signature(getattr(HubAPI, name)).parameters)
        assert hasattr(Hub, name), name
        have = list(inspect.signature(getattr(Hub, name)).parameters)
        assert have[: len(wanted)] == wanted, (name, have, wanted)


def test_the_web_calls_no_hub_method_outside_the_protocol() -> None:
    allowed = set(protocol_methods())
    web = Path(__file__).resolve().parents[2] / "web"
    called: set[str] = set()
    for path in web.glob("*.py"):
        if path.name in ("__main__.py", "demo.py"):
            continue  # they build the hub itself (start, transports, close)
        called |= set(re.findall(r"(?:get_hub\(\)|self\.hub|\bhub)\.(\w+)\(", path.read_text(encoding="utf-8")))
    assert called, "the pattern found no call at all"
    assert called <= allowed, sorted(called - allowed)


def test_the_tournament_service_has_every_method_the_web_uses_with_the_same_parameters() -> None:
    """``hub.tournaments`` is typed for the web by ``TournamentsAPI`` (issue 31: no module
    global, no ``type: ignore``); the hub's service has each method, parameters alike."""
    from hub.tournament.service import TournamentService
    from web.hub_protocol import TournamentsAPI

    names = [name for name, value in vars(TournamentsAPI).items() if callable(value) and not name.startswith("_")]
    assert {"view", "submit", "create", "ratings"} <= set(names)
    for name in names:
        wanted = list(inspect.signature(getattr(TournamentsAPI, name)).parameters)
        have = list(inspect.signature(getattr(TournamentService, name)).parameters)
        assert have[: len(wanted)] == wanted, (name, have, wanted)
    assert isinstance(inspect.getattr_static(Hub, "tournaments"), property)
