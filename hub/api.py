"""The hub as a program embedding it sees it: the one module the web imports.

Everything the dashboard, console, admin and tournament pages need from the hub is named
here — the facade (:class:`Hub`, its read-only replica), how a hub is assembled from
options, the typed errors its methods raise, the table spec they take, and the JSON
reader with limits. The web imports nothing else of the hub (tests/test_layering.py), so
the hub's wings can be rearranged behind this page without touching a template.
"""

from __future__ import annotations

from hub import errors, jsonlimits
from hub.cli.assemble import (
    HubOptions,
    add_hub_options,
    attach_links,
    open_hub,
    stop_on_signal,
    tune_gc,
    wait,
)
from hub.devices.address import parse_hostport
from hub.errors import (
    BadInputError,
    ConflictError,
    HubError,
    RefusedError,
    StaleViewError,
    UnknownGameError,
    UnknownTableError,
)
from hub.facade import Hub
from hub.log import clock
from hub.log.open import is_postgres_url
from hub.log.ratelog import RateLog
from hub.log.store import HubBusyError, StoreOpenError, StoreWriteError
from hub.replica import ReadOnlyHub, shared_secret
from hub.sim.runner import SimEvent, SimTable, describe
from hub.tables.drawing import layout_editor
from hub.tables.layout import place
from hub.tables.moments import place_label
from hub.tables.spec import TableSpec
from hub.tournament.demo import DemoTournament
from hub.tournament.model import UnknownMatchError, UnknownTournamentError
from hub.tournament.service import TournamentService

__all__ = [
    "BadInputError", "ConflictError", "DemoTournament", "Hub", "HubBusyError", "HubError", "HubOptions",
    "RateLog", "ReadOnlyHub", "RefusedError", "StaleViewError", "SimEvent", "StoreOpenError", "StoreWriteError", "SimTable", "TableSpec", "TournamentService",
    "UnknownGameError", "UnknownMatchError", "UnknownTableError", "UnknownTournamentError",
    "add_hub_options", "attach_links", "clock", "describe", "errors", "is_postgres_url", "jsonlimits",
    "layout_editor",
    "open_hub", "parse_hostport", "place", "place_label", "shared_secret", "stop_on_signal",
    "tune_gc", "wait",
]
