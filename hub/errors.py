"""Typed errors the hub raises about its input. All subclass :class:`ValueError`.

The web layer maps them to HTTP answers: :class:`UnknownTableError` → 404, every other
:class:`HubError` → 400 (or 409 for :class:`ConflictError`). The message says what was
wrong, in one line (English), and nothing was changed or stored.

The refusals people meet on the console and play pages also carry a ``kind`` and its
``params``, so a page can say them in the reader's language (the web's catalogue key
``refusal.<kind>``), the message staying the fallback. The kinds (docs/hub.md, Refusals):
not_your_turn{player,to_move} illegal_move{reason} game_over{} would_be_illegal{index,reason}
would_be_out_of_turn{index,player,to_move,reason}
nothing_to_undo{} no_such_action{index} table_abandoned{input} prompt_closed{prompt}
bad_choice{choice,choices} drop_settling{} nobody_to_throw{} nothing_to_mark{}
not_voidable{entry} round_under_way{} no_bot{game} unknown_table{table} unknown_game{game}
table_id_taken{table} board_bound{board,table} duplicate_seat{} duplicate_board{}
no_sensor_boards{game} bad_table_id{} bad_board_id{board} stale_view{version,current}
name_hidden_char{field,char} bad_name{field,max_len} (hub/tables/names.py); the tournament's tour_*
(hub/tournament). An engine's reason inside illegal_move, game_over and would_be_* is
``why`` (engines.core.GameError.kind) with ``why_params``.

>>> issubclass(UnknownTableError, HubError) and issubclass(HubError, ValueError)
True
>>> err = RefusedError("it is not Ben's turn (to move: Ana)", "not_your_turn", player="Ben", to_move="Ana")
>>> str(err), err.kind, err.params
("it is not Ben's turn (to move: Ana)", 'not_your_turn', {'player': 'Ben', 'to_move': 'Ana'})
>>> BadInputError("seed: expected an integer").kind is None
True
"""

from __future__ import annotations

from typing import Any


class HubError(ValueError):
    """Base of every error the hub raises about a request.

    ``kind`` (None when the message is all there is) and ``params`` (JSON values) name
    the refusal for wording in other languages; ``str(err)`` is the English message."""

    def __init__(self, message: str, kind: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.params = params


class UnknownTableError(HubError):
    """No table has this id."""


class UnknownBoardError(HubError):
    """No board of the fleet has this id (neither heard nor bound)."""


class UnknownGameError(HubError):
    """The game is not registered in ``engines.GAMES`` (or its engine is not there yet)."""


class BadInputError(HubError):
    """An input, a table definition or a layout is malformed (bad shape, unknown field)."""


class RefusedError(HubError):
    """A well-formed input that is not allowed now: an illegal move, a move by the wrong
    player, an undo with nothing to undo, an answer to a prompt that is not open."""


class ConflictError(HubError):
    """The request clashes with another table: a board already bound, a table id in use."""


class StaleViewError(ConflictError):
    """A console input answered a view of the table older than the table now is: another
    referee (or a palet) got there first. Nothing was stored; ``view`` is the table now,
    for the page to show instead of the question that was answered."""

    def __init__(self, version: int, view: dict[str, Any]) -> None:
        super().__init__(f"the table has changed since version {version} (now {view.get('version')}):"
                         " look again and answer the question it asks now", "stale_view",
                         version=version, current=view.get("version"))
        self.view = view
