"""Rule engines for the tri games: Trigono, Triominos, Trike and Triolet.

Standard library only, no I/O, deterministic given a seed. Each game lives in its own
package and registers one :class:`engines.core.Game` subclass under its record name.

>>> sorted(GAMES)
['trigono', 'trike', 'triolet', 'triominos']
"""

from __future__ import annotations

import importlib
from typing import Any

from engines.core import Game, RecordError

# Record name -> module that defines ``GAME`` (the Game subclass). Imported lazily so a
# game being worked on never breaks the others.
GAMES: dict[str, str] = {
    "trigono": "engines.trigono",
    "triominos": "engines.triominos",
    "trike": "engines.trike",
    "triolet": "engines.triolet",
}


def game_class(name: str) -> type[Game[Any]]:
    """The Game subclass registered under ``name``; RecordError for an unknown game."""
    if name not in GAMES:
        raise RecordError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})")
    module = importlib.import_module(GAMES[name])
    cls: type[Game[Any]] = module.GAME
    return cls
