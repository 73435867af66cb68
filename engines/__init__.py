"""Rule engines for the tri games: Trigono, Triominos, Trike and Triolet.

Standard library only, no I/O, deterministic given a seed. Each game lives in its own
package and registers one :class:`engines.core.GameSpec` (its ``SPEC``) under its record
name; :data:`GAMES` is the registry. Game packages import only :mod:`engines.core`,
:mod:`engines.lattice` and their own modules, so this file can import them all. What the
hub and the pages need to know of a game is data on its spec (``SPEC.game_type``,
:class:`engines.core.GameType`), never its name: :func:`register` adds a game that
way (docs/contributing.md, "How to add a game").

>>> sorted(GAMES)
['trigono', 'trike', 'triolet', 'triominos']
>>> game_spec("trike").bot is not None, game_spec("trigono").bot
(True, None)
"""

from __future__ import annotations

from typing import Any

from engines import trigono, trike, triolet, triominos
from engines.core import GameSpec, RecordError

GAMES: dict[str, GameSpec[Any, Any]] = {
    spec.name: spec for spec in (trigono.SPEC, triominos.SPEC, trike.SPEC, triolet.SPEC)
}
"""Record name -> the game's registration."""


def game_spec(name: str) -> GameSpec[Any, Any]:
    """The registration of the game called ``name``; RecordError for an unknown game.

    >>> game_spec("chess")
    Traceback (most recent call last):
    ...
    engines.core.RecordError: unknown game 'chess' (known: trigono, trike, triolet, triominos)
    """
    spec = GAMES.get(name)
    if spec is None:
        raise RecordError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})")
    return spec


def register(spec: GameSpec[Any, Any]) -> None:
    """Add a game to the registry (a game package's ``SPEC``, or a test's own game);
    RecordError if its name is taken. :func:`unregister` takes it back.

    >>> register(game_spec("trike"))
    Traceback (most recent call last):
    ...
    engines.core.RecordError: game 'trike' is already registered
    """
    if spec.name in GAMES:
        raise RecordError(f"game {spec.name!r} is already registered")
    GAMES[spec.name] = spec


def unregister(name: str) -> None:
    """Take a game :func:`register` added out of the registry (tables of it stay in the
    store, unreadable until it comes back)."""
    game_spec(name)
    del GAMES[name]
