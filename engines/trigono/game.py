"""The Trigono rules (trigono.md T1–T21) as an :class:`engines.core.Game`.

The state counts palets: in each hand, on each board, on the shared floor and in each
hole (the *pending* palets of T10, and during a final every palet that fell in). A throw
moves the thrown palet and any knocked palets, then applies the rules of every hole that
received a valid drop, all at once (T12).

>>> game = TrigonoGame({"players": ["Ana", "Ben"], "first": "Ana", "palets_per_player": 2})
>>> state = game.new_initial_state(random.Random(0))
>>> state.apply(Throw("Ana", "board:B1"))
>>> state.apply(Throw("Ben", "B1.big"))   # T6: Ben takes the palet on B1 and his own
>>> state.to_json()["hands"], state.to_json()["log"][-1]["points"]
({'Ana': 1, 'Ben': 3}, 2)
>>> state.apply(Throw("Ana", "floor"))    # T14: Ana is out, Ben holds 3: Ben wins round 1
>>> state.round, state.rounds_won, state.current_player()
(2, {'Ana': 0, 'Ben': 1}, 'Ben')
>>> state.apply(Throw("Ana", "floor"))
Traceback (most recent call last):
...
engines.core.IllegalMoveError: it is Ben's turn to throw, not Ana's
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engines.core import (
    JSON,
    Game,
    GameError,
    GameOverError,
    IllegalMoveError,
    State,
)
from engines.trigono import actions
from engines.trigono.actions import (
    BOARD_PREFIX,
    FLOOR,
    Action,
    Target,
    Throw,
)
from engines.trigono.checks import check_throw
from engines.trigono.events import describe_event
from engines.trigono.options import FINAL, LAST_CHANCE, NORMAL, Options
from engines.trigono.position import checked_dump, copy_json, restore, set_position

PLAYING, MATCH_OVER = "playing", "match_over"

class TrigonoState(State[Action]):
    """One moment of a Trigono match. Build it with :meth:`TrigonoGame.new_initial_state`."""

    game: TrigonoGame

    def __init__(self, game: TrigonoGame, first: str) -> None:
        self.game = game
        opts = game.opts
        self.players = opts.players
        self.first = first
        self.round = 1
        self.rounds_won = {p: 0 for p in opts.players}
        self.round_results: list[dict[str, Any]] = []
        self.winner_name: str | None = None
        self.log: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        # The palets as the last action left them when it ended a round and started the
        # next (hands, boards, holes, floor): what the screens show while they are picked
        # up. Not part of the position (dump, to_json): the hub replays to find it.
        self.round_end: dict[str, Any] | None = None
        self._start_round(first)

    # -- rounds -------------------------------------------------------------------------

    def _start_round(self, starter: str) -> None:
        """T4: every round starts with all palets back in the hands and the line at 3 m."""
        opts = self.game.opts
        self.starter = starter
        self.hands = {p: opts.palets_per_player for p in opts.players}
        self.eliminated: list[str] = []
        self.boards = {b: 0 for b in opts.layout.board_ids}
        self.floor = 0
        self.holes = {h: 0 for h in opts.layout.holes}
        self.phase = NORMAL
        self.target: str | None = None
        self.finalists: list[str] = []
        self.final_throws = 0
        self.steps = 0
        self.to_move: str | None = starter

    def _end_round(self, winner: str | None) -> None:
        """Record the round (T14/T15/T17), then end the match (T18) or start the next round."""
        opts = self.game.opts
        if winner is None:
            self.round_results.append({"draw": True})
            self.events.append({"type": "round_drawn", "round": self.round})
        else:
            self.round_results.append({"winner": winner})
            self.rounds_won[winner] += 1
            self.events.append({"type": "round_won", "round": self.round, "player": winner})
            if self.rounds_won[winner] >= opts.rounds_to_win:
                self.winner_name = winner
                self.to_move = None
                self.events.append({"type": "match_won", "player": winner})
                return
        self.round_end = {"round": self.round, "winner": winner, "hands": dict(self.hands),
                          "boards": dict(self.boards), "holes": dict(self.holes), "floor": self.floor,
                          "eliminated": list(self.eliminated)}
        if winner is not None:
            starter = winner  # T4: the round's winner starts the next one
        elif opts.draw_starter == "same":
            starter = self.starter  # T4 [ours]
        else:
            starter = self._seat_after(self.starter, opts.players)
        self.round += 1
        self._start_round(starter)
        self.events.append({"type": "round_start", "round": self.round, "starter": starter})

    # -- seats --------------------------------------------------------------------------

    @staticmethod
    def _seat_after(player: str, seats: tuple[str, ...] | list[str]) -> str:
        order = list(seats)
        return order[(order.index(player) + 1) % len(order)]

    def _in_round(self) -> list[str]:
        """Players still in the round, in seat order."""
        return [p for p in self.game.opts.players if p not in self.eliminated]

    def _next_thrower(self, player: str) -> str:
        """T4/T15: the next player in seat order who is still in the round."""
        seats = self.game.opts.players
        index = seats.index(player)
        for offset in range(1, len(seats) + 1):
            candidate = seats[(index + offset) % len(seats)]
            if candidate not in self.eliminated:
                return candidate
        return player

    def throw_distance_m(self) -> float:
        """T16: 3 m plus one step back per elimination (more than 4 players)."""
        opts = self.game.opts
        return round(opts.throw_line_m + self.steps * opts.step_back_m, 3)

    # -- the State contract ---------------------------------------------------------------

    def current_player(self) -> str | None:
        return self.to_move

    def is_terminal(self) -> bool:
        return self.winner_name is not None

    def winner(self) -> str | None:
        return self.winner_name

    def scores(self) -> dict[str, float]:
        """Rounds won (T18)."""
        return {p: float(n) for p, n in self.rounds_won.items()}

    def target_choices(self) -> list[str]:
        """T17: the holes a finalist may name: the jackpots when there are any, else every hole."""
        layout = self.game.opts.layout
        if layout.jackpots:
            return [j.hole for j in layout.jackpots]
        return list(layout.holes)

    def legal_actions(self) -> list[Action]:
        """The valid throws the player to move could report (every board, the floor, every
        hole), or the target choices when a final waits for its target.

        Invalid drops and knock-ins are reported too but not listed (too many to spell out).
        """
        player = self.to_move
        if player is None:
            return []
        if self.phase == FINAL and self.target is None:
            return [Target(h) for h in self.target_choices()]
        places = [BOARD_PREFIX + b for b in self.boards] + [FLOOR] + list(self.holes)
        return [Throw(player, place) for place in places]

    def apply(self, action: Action) -> None:
        if self.winner_name is not None:
            raise GameOverError(f"the match is over: {self.winner_name} won it", "trigono.match_over",
                                winner=self.winner_name)
        ended, self.round_end = self.round_end, None
        try:
            if isinstance(action, Target):
                self._apply_target(action)
            elif isinstance(action, Throw):
                self._apply_throw(action)
            else:
                raise IllegalMoveError(f"not a Trigono action: {action!r}", "not_an_action")
        except GameError:
            self.round_end = ended  # a refused action changes nothing
            raise

    # -- target (T17) -------------------------------------------------------------------------

    def _apply_target(self, action: Target) -> None:
        layout = self.game.opts.layout
        if self.phase != FINAL:
            raise IllegalMoveError(
                f"no final is being played: a target hole is only chosen in a final (T17)"
                f" (phase {self.phase})",
                "trigono.no_final",
            )
        if action.hole not in self.holes:
            raise IllegalMoveError(f"unknown hole {action.hole!r} (holes: {', '.join(self.holes)})",
                                   "trigono.unknown_hole", name=action.hole)
        chooser = self.to_move
        assert chooser is not None
        if len(layout.jackpots) == 1:
            if action.hole != self.target:
                raise IllegalMoveError(
                    f"in a hexagon layout the target of the final is the jackpot, not {action.hole} (T17)",
                    "trigono.target_is_jackpot", hole=action.hole,
                )
            if self.final_throws:
                raise IllegalMoveError("the final has started: its target is already the jackpot",
                                       "trigono.target_chosen", target=self.target)
        else:
            if self.target is not None:
                raise IllegalMoveError(f"the target of this final is already {self.target}",
                                       "trigono.target_chosen", target=self.target)
            if action.hole not in self.target_choices():
                raise IllegalMoveError(
                    f"the target must be one of the jackpots ({', '.join(self.target_choices())}), "
                    f"not {action.hole} (T17)",
                    "trigono.target_not_jackpot", hole=action.hole, targets=self.target_choices(),
                )
        self.events = [{"type": "target", "player": chooser, "hole": action.hole}]
        self.target = action.hole
        self.log.append(self._log_entry(chooser, action, 0))

    # -- throw ----------------------------------------------------------------------------------

    def _apply_throw(self, action: Throw) -> None:
        check_throw(self, action)
        opts = self.game.opts
        player = action.player
        self.events = []
        # T5, T11, T13: the palets come to rest first (thrown and knocked, T12).
        self.hands[player] -= 1
        for knock in action.knocked:
            self.boards[knock.source] -= 1
            self.holes[knock.hole] += 1
        to = action.to
        if to == FLOOR:
            self.floor += 1
        elif to.startswith(BOARD_PREFIX):
            self.boards[to[len(BOARD_PREFIX) :]] += 1
        else:
            self.holes[to] += 1
            if action.invalid:
                self.events.append({"type": "pending", "hole": to})  # T10
        triggered: list[str] = []
        if to in self.holes and not action.invalid:
            triggered.append(to)
        for knock in action.knocked:
            if knock.hole not in triggered:
                triggered.append(knock.hole)
        if self.phase == FINAL:
            # T17 [ours]: during a final the holes take nothing (unless the referee says so);
            # the target never takes: only the thrown palet falling validly into it wins.
            scored = to == self.target and not action.invalid
            takers = [h for h in triggered if h != self.target] if opts.final_holes_take else []
            points = self._take(player, takers)
            self.log.append(self._log_entry(player, action, points))
            self.final_throws += 1
            self._after_final_throw(player, scored)
            return
        points = self._take(player, triggered)
        self.log.append(self._log_entry(player, action, points))
        if self.phase == LAST_CHANCE:
            # T14: after the last chance, 2 or more palets win; otherwise the round is drawn.
            self._end_round(player if self.hands[player] >= 2 else None)
            return
        if self.hands[player] > 0:
            self.to_move = self._next_thrower(player)
            return
        self._hand_emptied(player)

    def _take(self, player: str, triggered: list[str]) -> int:
        """T6–T9, T12: the thrower takes the union of what the triggered holes take."""
        if not triggered:
            return 0
        layout = self.game.opts.layout
        boards: set[str] = set()
        floor = False
        for hole in triggered:
            kind, board = layout.hole_kind(hole)
            if kind == "big":  # T6, T21: only that board
                assert board is not None
                boards.add(board)
            elif kind == "small":  # T7: the shared floor
                floor = True
            else:  # T8: every board and the floor
                boards.update(self.boards)
                floor = True
        taken = sum(self.holes[h] for h in triggered) + sum(self.boards[b] for b in boards)
        for hole in triggered:
            self.holes[hole] = 0
        for board in boards:
            self.boards[board] = 0
        if floor:
            taken += self.floor
            self.floor = 0
        self.hands[player] += taken
        self.events.append({"type": "take", "player": player, "palets": taken, "holes": triggered})
        return taken

    def _hand_emptied(self, player: str) -> None:
        """T14 (two players), T15 (elimination), T16 (step back), T17 (final)."""
        opts = self.game.opts
        if len(opts.players) >= 3:
            self.eliminated.append(player)
            self.events.append({"type": "eliminated", "player": player})
            if opts.steps_back and opts.step_back_m > 0:
                self.steps += 1
                self.events.append(
                    {"type": "step_back", "throw_distance_m": self.throw_distance_m()}
                )
            remaining = self._in_round()
        else:
            remaining = [p for p in opts.players if p != player]
        if len(remaining) == 1:
            last = remaining[0]
            if self.hands[last] >= 2:
                self._end_round(last)
            elif self.hands[last] == 1:
                self.phase = LAST_CHANCE
                self.to_move = last
                self.events.append({"type": "last_chance", "player": last})
            else:  # cannot happen: the last player always holds a palet; a draw is safe
                self._end_round(None)
            return
        nxt = self._next_thrower(player)
        if len(remaining) == 2 and opts.has_finals:
            first, second = remaining
            if self.hands[first] != self.hands[second]:
                chooser = first if self.hands[first] > self.hands[second] else second
            else:
                chooser = nxt  # T17 [ours]: tie → the one due to throw next
            self.phase = FINAL
            self.finalists = [chooser, second if chooser == first else first]
            jackpots = opts.layout.jackpots
            self.target = jackpots[0].hole if len(jackpots) == 1 else None
            self.to_move = chooser
            self.events.append(
                {
                    "type": "final",
                    "finalists": list(self.finalists),
                    "chooser": chooser,
                    "target": self.target,
                }
            )
            return
        self.to_move = nxt

    def _after_final_throw(self, player: str, scored: bool) -> None:
        """T17: a valid drop into the target wins; a last palet thrown without scoring loses."""
        other = self.finalists[1] if player == self.finalists[0] else self.finalists[0]
        if scored:
            self._end_round(player)
        elif self.hands[player] == 0:
            self._end_round(other)
        elif self.hands[other] > 0:
            self.to_move = other
        # A finalist with no palet left loses at their own throw, so `other` always has one.

    def _log_entry(self, player: str, action: Action, points: int) -> dict[str, Any]:
        return {"player": player, "action": action.to_json(), "points": points, "round": self.round}

    # -- printing and persistence ----------------------------------------------------------------------

    def to_json(self) -> dict[str, JSON]:
        """The printed state of docs/records.md, plus ``players``, ``homes``, ``layout``,
        ``starter``, ``finalists``, ``last_event`` (English) and ``last_events`` (structured)."""
        opts = self.game.opts
        return {
            "game": "trigono",
            "status": MATCH_OVER if self.winner_name is not None else PLAYING,
            "to_move": self.to_move,
            "scores": dict(self.rounds_won),
            "winner": self.winner_name,
            "log": [copy_json(entry) for entry in self.log],
            "round": self.round,
            **self._match_fields(),
            "throw_distance_m": self.throw_distance_m(),
            "players": list(opts.players),
            "homes": opts.layout.homes(list(opts.players)),
            "palets_per_player": opts.palets_per_player,
            "rounds_to_win": opts.rounds_to_win,
            "starter": self.starter,
            "finalists": list(self.finalists),
            "layout": opts.layout.describe(),
            "last_event": "; ".join(describe_event(e) for e in self.events) or None,
            "last_events": [dict(e) for e in self.events],
        }

    def _match_fields(self) -> dict[str, JSON]:
        """The match and the palets, as both :meth:`to_json` and :meth:`dump` give them
        (copies, in this order)."""
        return {
            "rounds_won": dict(self.rounds_won),
            "round_results": [dict(r) for r in self.round_results],
            "hands": dict(self.hands),
            "eliminated": list(self.eliminated),
            "boards": dict(self.boards),
            "floor": self.floor,
            "holes": dict(self.holes),
            "phase": self.phase,
            "target": self.target,
        }

    def dump(self) -> dict[str, JSON]:
        return {
            "options": self.game.opts.to_json(),
            "first": self.first,
            "round": self.round,
            "starter": self.starter,
            **self._match_fields(),
            "finalists": list(self.finalists),
            "final_throws": self.final_throws,
            "steps": self.steps,
            "to_move": self.to_move,
            "winner": self.winner_name,
            "log": [copy_json(entry) for entry in self.log],
            "events": [copy_json(e) for e in self.events],
        }

    def clone(self) -> TrigonoState:
        """An independent copy. Log entries, round results and events are never changed
        once appended, so the lists are copied and their entries shared."""
        twin = TrigonoState.__new__(TrigonoState)
        twin.__dict__.update(self.__dict__)
        twin.hands, twin.boards, twin.holes = dict(self.hands), dict(self.boards), dict(self.holes)
        twin.rounds_won = dict(self.rounds_won)
        twin.eliminated, twin.finalists = list(self.eliminated), list(self.finalists)
        twin.round_results, twin.log, twin.events = (
            list(self.round_results),
            list(self.log),
            list(self.events),
        )
        return twin


class TrigonoGame(Game[Action]):
    """Trigono: options of docs/records.md (see :mod:`engines.trigono.options`).

    >>> TrigonoGame({"players": ["Ana", "Ana"]})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: players: names must be unique
    """

    name = "trigono"
    notation = actions

    def __init__(self, options: Mapping[str, JSON] | None = None) -> None:
        super().__init__(options)
        self.opts = Options.from_json(self.options)

    def new_initial_state(
        self, rng: random.Random, position: Mapping[str, JSON] | None = None
    ) -> TrigonoState:
        """T4: the first thrower is ``first`` or drawn with the seed; ``position`` (optional)
        sets up a moment of a round, see :func:`engines.trigono.position.set_position`."""
        first = self.opts.first if self.opts.first is not None else rng.choice(self.opts.players)
        state = TrigonoState(self, first)
        if position is not None:
            set_position(state, position)
        return state

    def load(self, data: Mapping[str, JSON]) -> TrigonoState:
        """Rebuild a state from :meth:`TrigonoState.dump` (made with these same options)."""
        raw = checked_dump(self, data)
        state = TrigonoState(self, raw["first"])
        restore(state, raw)
        return state
