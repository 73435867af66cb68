"""The hub as the web sees it: the one module of the hub the web's pages import.

A narrow door (issue 31): the facade, the typed errors its methods raise, and the value
types its methods take — nothing else. Each name is here because a page of the web uses
it; what a page draws or words (a place's label, the layout editor's grid, the hub's
clock, the tournaments) comes through the facade's methods, as data. How a hub is put
together from options is not here: that is :mod:`hub.assemble`, the composition root the
programs use (``trigono hub``, ``python -m web``, the demo). tests/test_layering.py
keeps both rules: the web's pages import nothing else of the hub, and this module
imports no CLI, no simulator, no drawing helper.

- :class:`Hub`: the facade (the pages hold it as :class:`web.hub_protocol.HubAPI`; a
  read-only replica, :mod:`hub.replica`, is one too);
- :class:`TableSpec`: the table to create, as the API's body and the admin's form give it;
- :mod:`jsonlimits`: the JSON reader with the limits the hub holds its input to (depth,
  size of numbers, text with a UTF-8 form), so the web reads request bodies as the hub
  would, and its errors (``JSONLimitError``, ``UnencodableTextError``);
- the errors the pages turn into answers: :class:`HubError` and its kinds (400, 404 for
  an unknown table, board, tournament or match, 409 for a clash or a stale view), and those of
  the event store (503 while busy or failing; a program's ``--db`` that cannot be opened).
"""

from __future__ import annotations

from hub import jsonlimits
from hub.errors import (
    BadInputError,
    ConflictError,
    HubError,
    StaleViewError,
    UnknownBoardError,
    UnknownTableError,
)
from hub.facade import Hub
from hub.log.store import HubBusyError, StoreOpenError, StoreWriteError
from hub.tables.spec import TableSpec
from hub.tournament.model import UnknownMatchError, UnknownTournamentError

__all__ = [
    "BadInputError", "ConflictError", "Hub", "HubBusyError", "HubError", "StaleViewError", "StoreOpenError",
    "StoreWriteError", "TableSpec", "UnknownBoardError", "UnknownMatchError", "UnknownTableError", "UnknownTournamentError",
    "jsonlimits",
]
