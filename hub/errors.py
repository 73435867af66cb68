"""Typed errors the hub raises about its input. All subclass :class:`ValueError`.

The web layer maps them to HTTP answers: :class:`UnknownTableError` → 404, every other
:class:`HubError` → 400 (or 409 for :class:`ConflictError`). The message says what was
wrong, in one line, and nothing was changed or stored.

>>> issubclass(UnknownTableError, HubError) and issubclass(HubError, ValueError)
True
"""

from __future__ import annotations


class HubError(ValueError):
    """Base of every error the hub raises about a request."""


class UnknownTableError(HubError):
    """No table has this id."""


class UnknownGameError(HubError):
    """The game is not registered in ``engines.GAMES`` (or its engine is not there yet)."""


class BadInputError(HubError):
    """An input, a table definition or a layout is malformed (bad shape, unknown field)."""


class RefusedError(HubError):
    """A well-formed input that is not allowed now: an illegal move, a move by the wrong
    player, an undo with nothing to undo, an answer to a prompt that is not open."""


class ConflictError(HubError):
    """The request clashes with another table: a board already bound, a table id in use."""
