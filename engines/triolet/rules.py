"""Triolet options (docs/rules/triolet.md L2, L13, L15).

Variant switches (options besides ``players``):

- ``lone_token``: ``"zero"`` (default: a token that makes no set — only the first token
  of a game can — scores 0) or ``"face"`` (its value, times its cell's multiplier).
- ``exchange_min_bag``: the bag must hold at least this many tokens for an exchange
  (L13; default 5).
- ``first``: the player who starts (default: drawn by lot with the seed, L2).
- ``stall_rounds`` **[ours]**: L15 "nobody can play" while the bag still allows
  exchanges could last for ever (players swapping tokens on a board that takes none of
  theirs, or one that chooses to exchange for ever). The game ends as blocked (L15
  settlement) once this many rounds in a row went by without a token placed (default 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engines.core import (
    JSON,
    RecordError,
    check_keys,
    choice_option,
    number_option,
    parse_players,
)

OPTION_FIELDS = ("players", "lone_token", "exchange_min_bag", "first", "stall_rounds")


@dataclass(frozen=True)
class Rules:
    """Validated options (see the module docstring for the variant switches).

    >>> Rules.from_options({}).players
    ('P1', 'P2')
    >>> Rules.from_options({"players": ["A"]})
    Traceback (most recent call last):
    ...
    engines.core.RecordError: players: 2 to 4 players, got 1
    """

    players: tuple[str, ...]
    lone_token: str
    exchange_min_bag: int
    first: str | None
    stall_rounds: int

    @classmethod
    def from_options(cls, options: Mapping[str, JSON]) -> Rules:
        opts = check_keys(dict(options), OPTION_FIELDS, "options")
        players = parse_players(opts.get("players", ["P1", "P2"]), 2, 4)
        lone = choice_option(opts.get("lone_token", "zero"), "lone_token", ("zero", "face"))
        least = number_option(opts.get("exchange_min_bag", 5), "exchange_min_bag", 1)
        first = opts.get("first")
        if first is not None and first not in players:
            raise RecordError(f"first: not a player: {first!r}")
        stall = number_option(opts.get("stall_rounds", 2), "stall_rounds", 1)
        return cls(tuple(players), lone, least, first, stall)
