"""A fifth game touches nothing but the registry (issue 31.3): a tiny Nim, defined here
with the engine contract every game follows (engines/core.py; docs/contributing.md "How
to add a game"), is registered, then played through the hub's facade and through the
JSON API, and taken out of the registry again. No module of the hub or the web names it:
they read its capabilities (``GameType``) from its spec and from the views.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from flask.testing import FlaskClient

from engines import GAMES, register, unregister
from engines.core import (
    JSON,
    Game,
    GameOverError,
    GameSpec,
    GameType,
    IllegalMoveError,
    RecordError,
    State,
    build_spec,
    check_keys,
    parse_players,
)
from hub.facade import Hub
from hub.tables.spec import TableSpec
from tests.web.conftest import api_post, csrf_token

TAKES = (1, 2)  # stones one may take in a turn; who takes the last one wins


class NimNotation:
    """The record notation of an action: the number of stones taken (``2``)."""

    @staticmethod
    def parse_action(obj: JSON) -> int:
        if isinstance(obj, bool) or obj not in TAKES:
            raise RecordError(f"nim: an action takes 1 or 2 stones, got {obj!r}")
        return int(obj)

    @staticmethod
    def action_to_json(action: int) -> JSON:
        return action


class NimState(State[int]):
    def __init__(self, game: NimGame, stones: int, to_move: int = 0,
                 log: list[dict[str, JSON]] | None = None) -> None:
        self.game = game
        self.players = game.players
        self.stones, self.to_move = stones, to_move
        self.log = list(log or [])

    def current_player(self) -> str | None:
        return None if self.is_terminal() else self.players[self.to_move]

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [n for n in TAKES if n <= self.stones]

    def apply(self, action: int) -> None:
        if self.is_terminal():
            raise GameOverError("the game is over", "game_over")
        if action not in self.legal_actions():
            raise IllegalMoveError(f"only {self.stones} left", "nim.too_many", left=self.stones)
        self.stones -= action
        self.log.append({"player": self.players[self.to_move], "action": action, "points": 0})
        if not self.is_terminal():
            self.to_move = 1 - self.to_move

    def is_terminal(self) -> bool:
        return self.stones == 0

    def winner(self) -> str | None:
        return self.players[self.to_move] if self.is_terminal() else None

    def scores(self) -> dict[str, float]:
        return {p: 1.0 if p == self.winner() else 0.0 for p in self.players}

    def to_json(self) -> dict[str, JSON]:
        return {"game": "nim", "status": "over" if self.is_terminal() else "playing",
                "to_move": self.current_player(), "scores": self.scores(), "winner": self.winner(),
                "stones": self.stones, "log": [dict(e) for e in self.log]}

    def dump(self) -> dict[str, JSON]:
        return {"options": self.game.options, "stones": self.stones, "to_move": self.to_move,
                "log": [dict(e) for e in self.log]}

    def clone(self) -> NimState:
        return NimState(self.game, self.stones, self.to_move, self.log)


class NimGame(Game[int]):
    name = "nim"
    notation = NimNotation()

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        super().__init__(options)
        opts = check_keys(self.options, ("players", "stones"), "options")
        self.players = parse_players(opts.get("players", ["P1", "P2"]), 2, 2)
        self.start = int(opts.get("stones", 5))

    def new_initial_state(self, rng: random.Random, position: Mapping[str, JSON] | None = None) -> NimState:
        return NimState(self, self.start)

    def load(self, data: Mapping[str, JSON]) -> NimState:
        return NimState(self, int(data["stones"]), int(data["to_move"]), list(data["log"]))


NIM: GameSpec[NimState, int] = build_spec("nim", NimGame, NimState, NimNotation(),
                                          game_type=GameType("nim", max_players=2))


@pytest.fixture
def nim() -> Iterator[GameSpec[NimState, int]]:
    register(NIM)
    try:
        yield NIM
    finally:
        unregister("nim")
    assert "nim" not in GAMES


def test_a_registered_game_is_played_through_the_hub(nim: Any, hub: Hub) -> None:
    assert "nim" in hub.games() and hub.game_types()["nim"]["renderer"] == "nim"
    view = hub.create(TableSpec.build("nim", seats=["Ana", "Ben"], options={"stones": 4}, table_id="n1"))
    assert view["capabilities"] == NIM.capabilities() and view["drawing"] is None and view["places"] == {}
    assert hub.legal_actions("n1", "Ana") == [1, 2]
    for player, take in (("Ana", 1), ("Ben", 2)):
        hub.submit("n1", {"move": take, "player": player, "by": player})
    with pytest.raises(ValueError):  # one stone left: the engine's refusal, the table unchanged
        hub.submit("n1", {"move": 2, "player": "Ana", "by": "Ana"})
    assert hub.table_view("n1")["state"]["stones"] == 1
    hub.submit("n1", {"move": 1, "player": "Ana", "by": "Ana"})
    done = hub.table_view("n1")
    assert (done["state"]["status"], done["winner"]) == ("over", "Ana")
    assert hub.export("n1")["actions"] == [1, 2, 1]
    assert [m["kind"] for m in done["moments"]] == ["move", "move", "move"]


def test_a_registered_game_is_played_through_the_json_api(nim: Any, referee: FlaskClient) -> None:
    token = csrf_token(referee)
    made = api_post(referee, "/api/tables", {"id": "n2", "game": "nim", "seats": ["Ana", "Ben"],
                                             "options": {"stones": 3}}, token)
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["capabilities"]["sensor_boards"] is False
    for player, take in (("Ana", 2), ("Ben", 1)):
        answer = api_post(referee, "/api/tables/n2/play", {"action": take, "player": player}, token)
        assert answer.status_code == 200, answer.get_json()
    refused = api_post(referee, "/api/tables/n2/play", {"action": 1, "player": "Ana"}, token)
    assert refused.status_code in (400, 409)  # over: nothing changes
    table = referee.get("/api/tables/n2").get_json()
    assert (table["state"]["stones"], table["winner"]) == (0, "Ben")
    assert referee.get("/api/tables/n2/record").get_json()["actions"] == [2, 1]
    played = referee.get("/api/tables/n2/play").get_json()
    assert played["game"] == "nim" and played["view"]["capabilities"]["renderer"] == "nim"
    # Its pages work too, drawn by the fallback renderer until games/nim.js exists.
    for page in ("/play/n2", "/tables/n2", "/", "/console/n2"):
        assert referee.get(page).status_code == 200, page


def test_a_name_already_registered_is_refused_and_changes_nothing(nim: Any) -> None:
    with pytest.raises(RecordError):
        register(NIM)
    assert GAMES["nim"] is NIM
