"""What the web layer needs from the hub: :class:`HubAPI`, a typed protocol, and its
tournament service, :class:`TournamentsAPI` (``hub.tournaments``).

The web holds the hub through this protocol only, so the pages depend on the hub's
published methods (hub/facade.py documents their JSON shapes), never on its insides;
a test or a read-only replica can stand in for it with the same methods. What a page
draws or words comes as data through them too (a place's label, the layout editor's
grid, the hub's clock), never as a helper of the hub's wings (tests/test_layering.py).

Every method may raise a :class:`hub.errors.HubError` (a ``ValueError``) about its
input; the web turns those into 400/404/409 answers (:mod:`web.errors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hub.api import HubError, TableSpec

JSONDict = dict[str, Any]


class Rating(Protocol):
    """A player's rating across events (:class:`hub.tournament.ratings.Rating`)."""

    @property
    def ordinal(self) -> float:
        """The cautious skill estimate the pages show (mean minus three deviations)."""
        ...

    @property
    def matches(self) -> int:
        """Matches rated."""
        ...

    def to_json(self) -> JSONDict:
        ...


class TournamentsAPI(Protocol):
    """The hub's tournaments (:class:`hub.tournament.service.TournamentService`). A refused
    entry raises a :class:`hub.errors.HubError` and stores nothing; an unknown tournament
    or match raises ``UnknownTournamentError`` / ``UnknownMatchError`` (404)."""

    def summaries(self) -> list[JSONDict]:
        """A summary of every tournament, oldest first."""
        ...

    def view(self, tid: str) -> JSONDict:
        """A tournament's view (players, matches, standings, podium...)."""
        ...

    def version(self, tid: str) -> int:
        """How many entries the tournament has (live pages reload when it grows)."""
        ...

    def export(self, tid: str) -> JSONDict:
        """The tournament as a file :meth:`load` reads into another hub."""
        ...

    def ratings(self) -> Mapping[str, Rating]:
        """Every player's rating across events, by player key."""
        ...

    def player_history(self, key: str) -> list[JSONDict]:
        """A player's matches across tournaments."""
        ...

    def stats(self, entries: list[tuple[str, str]]) -> JSONDict:
        """Statistics of a list of entries (tournament id, player id), from their tables' logs."""
        ...

    def create(self, spec: Mapping[str, Any], *, tournament_id: str | None = None,
               by: str | None = None) -> JSONDict:
        """Create a tournament from its spec; its view."""
        ...

    def submit(self, tid: str, body: Mapping[str, Any], *, by: str | None = None) -> JSONDict:
        """Apply one entry (and the director's follow-ups); the new view."""
        ...

    def submit_many(self, tid: str, bodies: list[Any], *,
                    by: str | None = None) -> tuple[int, list[tuple[int, HubError]]]:
        """Entries checked one by one, the accepted stored at once: (taken, [(index, refusal)])."""
        ...

    def load(self, doc: Mapping[str, Any], *, tournament_id: str | None = None) -> JSONDict:
        """A tournament from an export; its view."""
        ...

    def launch_preview(self, tid: str) -> JSONDict:
        """What starting the tournament would build (pools, stations)."""
        ...

    def preview(self, tid: str, body: Mapping[str, Any]) -> JSONDict:
        """What a correction would change, without making it."""
        ...

    # Persons and seasons (issue 34: hub/tournament/people.py, seasons.py, league.py).
    def entries_of(self, person: str) -> list[tuple[str, str]]:
        """A person's tournament entries (tournament id, player id), merged ones included."""
        ...

    def identity(self, tid: str, pid: str) -> str:
        """Who a tournament entry is: a person's id, else ``~<key>``."""
        ...

    def persons(self) -> list[JSONDict]:
        """Every person (``merged_into`` for those merged), with their entry count."""
        ...

    def people_submit(self, body: Mapping[str, Any], *, by: str | None = None) -> JSONDict:
        """Store one person or season entry (person, link, merge, unmerge, season...)."""
        ...

    def register_person(self, tid: str, pid: str, person: str | None = None, *, by: str | None = None) -> str:
        """Link an entry to a person (a new one made from it when None); the person's id."""
        ...

    def unlinked(self, limit: int = 50) -> list[JSONDict]:
        """Entries no person holds yet (the newest ``limit``), with the persons they may be."""
        ...

    def duplicates(self) -> list[JSONDict]:
        """Pairs of persons proposed as one."""
        ...

    def merge_preview(self, keep: str, gone: str) -> JSONDict:
        """What a merge would change (ratings, season ranks), or why it is refused."""
        ...

    def seasons(self) -> list[JSONDict]:
        """Every season's spec."""
        ...

    def season_view(self, sid: str) -> JSONDict:
        """A season's standings per division, re-ranked from the log, with the moves."""
        ...

    def person_view(self, who: str) -> JSONDict:
        """A person's tournaments, ratings per game, form, last matches, season ranks."""
        ...

    def win_chances(self, tid: str, mid: str) -> dict[str, float]:
        """Each player's chance to win a match, by player id."""
        ...

    def game_ratings(self, game: str) -> dict[str, JSONDict]:
        """Every identity's rating in a game, seen now (``provisional``, widened by inactivity)."""
        ...

    def link_candidates(self, tid: str, pid: str) -> list[JSONDict]:
        """The persons an entry may be (same licence, or a similar name), to confirm."""
        ...


class AssistAPI(Protocol):
    """The calls for a referee (:class:`hub.tables.assist.AssistDesk`)."""

    def open_requests(self) -> list[JSONDict]:
        """The requests no referee has taken, oldest first."""
        ...

    def request(self, table: str, who: str, *, tournament: str | None = None,
                place: str | None = None) -> JSONDict:
        """Ask for a referee at a table (refused: one open per table, a cooldown)."""
        ...

    def take(self, table: str, by: str) -> JSONDict:
        """A referee takes the table's open request."""
        ...


class HubAPI(Protocol):
    """The hub as the web sees it (:class:`hub.facade.Hub` implements it)."""

    def games(self) -> list[str]:
        """Names of the registered games."""
        ...

    def game_types(self) -> dict[str, JSONDict]:
        """Each registered game's capabilities by name (a view's ``capabilities``): the
        web branches on these, never on a game's name."""
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
        """The table's game record (docs/records.md)."""
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

    def sync_status(self) -> JSONDict | None:
        """Where sync with the federation stands, None when the hub does not sync (issue 35)."""
        ...

    def settle_person(self, licence: str, club: str, by: str = "organizer") -> None:
        """The federation: settle a person two clubs disagree on with ``club``'s version."""
        ...

    def store_alert(self) -> str | None:
        """Why the event store stopped committing for good, else None (admin page)."""
        ...

    def ignore_board(self, board: str) -> None:
        """Only count a board bound to no table from now on."""
        ...

    def fleet_view(self, which: str = "all", day_start: float | None = None) -> JSONDict:
        """The fleet page: rows by trouble, summary, target, rollout (issue 33)."""
        ...

    def board_action(self, board: str, action: str, *, force: bool = False) -> JSONDict:
        """identify, selftest, rearm or reboot a board (409 on a live match unless forced)."""
        ...

    def fleet_target(self, fw: str | None, config: str | None = None) -> None:
        """The firmware version and config hash the fleet should run (logged)."""
        ...

    def assign_board(self, board: str, table_id: str, position: str, *, force: bool = False) -> JSONDict:
        """Put a board at a table's position in place of the board there (409 on a live table unless forced)."""
        ...

    def start_rollout(self, version: str, bundle: Any, boards: list[str] | None = None,
                      canary: str | None = None, wave: int = 5) -> JSONDict:
        """Start a staged firmware rollout."""
        ...

    def cancel_rollout(self) -> None:
        """Stop the current rollout (the boards under way finish)."""
        ...

    def last_change_id(self) -> int:
        """The id of the newest change."""
        ...

    def changes_since(self, last_id: int, timeout: float) -> list[JSONDict]:
        """Changes after ``last_id``, waiting up to ``timeout`` s for one."""
        ...

    def now(self) -> float:
        """The time on the hub's clock, that of the times its views carry (``last_seen``)."""
        ...

    def place_label(self, where: str) -> JSONDict:
        """A place id (``"B1.big"``) as ``{"kind", **params}``, worded by ``where.<kind>``."""
        ...

    def layout_editor(self) -> JSONDict:
        """The admin's layout editor: the cells a board may go on, the jackpots, the box."""
        ...

    @property
    def tournaments(self) -> TournamentsAPI:
        """The hub's tournament service."""
        ...

    @property
    def assist(self) -> AssistAPI:
        """The calls for a referee."""
        ...

    @property
    def closed(self) -> bool:
        """The hub has been closed (readers of its changes should stop)."""
        ...
