"""What the web layer needs from the hub: :class:`HubAPI`, a typed protocol.

The web holds the hub through this protocol only, so the pages depend on the hub's
published methods (hub/facade.py documents their JSON shapes), never on its insides;
a test or a read-only replica can stand in for it with the same methods.

Every method may raise a :class:`hub.errors.HubError` (a ``ValueError``) about its
input; the web turns those into 400/404/409 answers (:mod:`web.errors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hub.api import TableSpec, TournamentService

JSONDict = dict[str, Any]


class HubAPI(Protocol):
    """The hub as the web sees it (:class:`hub.facade.Hub` implements it)."""

    def games(self) -> list[str]:
        """Names of the registered games."""
        ...

    def list_tables(self) -> list[JSONDict]:
        """A summary of every table, oldest first."""
        ...

    def table_view(self, table_id: str) -> JSONDict:
        """The full view of one table (the referee's: hidden information included)."""
        ...

    def public_view(self, table_id: str, player: str | None = None) -> JSONDict:
        """The view ``player`` may see (``None``: the public): the engine's observation."""
        ...

    def legal_actions(self, table_id: str, player: str) -> list[Any]:
        """``player``'s legal actions now, in the record notation ([] when not their turn)."""
        ...

    def create_table(
        self,
        game: str,
        *,
        options: Mapping[str, Any] | None = None,
        seats: list[Any] | None = None,
        boards: list[Any] | None = None,
        seed: int | None = None,
        table_id: str | None = None,
        referee: Mapping[str, Any] | None = None,
    ) -> JSONDict:
        """Create a table and return its view."""
        ...

    def create(self, spec: TableSpec) -> JSONDict:
        """Create the table ``spec`` describes and return its view."""
        ...

    def submit(self, table_id: str, inp: Mapping[str, Any], *, public: bool = False,
               version: int | None = None) -> JSONDict:
        """Apply one console or player input and return the new view (``public``: the
        audience's). ``version``: that of the view the input answers; a stale one raises
        :class:`hub.errors.StaleViewError` (409, with the current view)."""
        ...

    def export(self, table_id: str) -> JSONDict:
        """The table's game record (RECORDS.md)."""
        ...

    def boards(self) -> list[JSONDict]:
        """Health of every board seen or bound."""
        ...

    def links(self) -> list[JSONDict]:
        """The device links (serial ports, MQTT broker) and their state."""
        ...

    def unregistered(self) -> list[JSONDict]:
        """Boards heard that no table binds (admin: bind or ignore)."""
        ...

    def store_alert(self) -> str | None:
        """Why the event store stopped committing for good, else None (admin page)."""
        ...

    def ignore_board(self, board: str) -> None:
        """Only count a board bound to no table from now on."""
        ...

    def last_change_id(self) -> int:
        """The id of the newest change."""
        ...

    def changes_since(self, last_id: int, timeout: float) -> list[JSONDict]:
        """Changes after ``last_id``, waiting up to ``timeout`` s for one."""
        ...

    @property
    def closed(self) -> bool:
        """The hub has been closed (readers of its changes should stop)."""
        ...

    @property
    def tournaments(self) -> TournamentService:
        """The hub's own tournament service (it writes through the hub's one writer)."""
        ...
