"""Triominos options and the deal (engines/triominos/rules.py): M2 hands, M3 first player."""

from __future__ import annotations

import random

import pytest

from engines.core import RecordError
from engines.triominos import TriominosGame
from engines.triominos.rules import Rules, deal
from engines.triominos.tiles import SETS


# ---------------------------------------------------------------- M2 hands
@pytest.mark.parametrize(("players", "hand"), [(2, 9), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_M2_hand_sizes(players: int, hand: int) -> None:
    names = [f"P{k}" for k in range(players)]
    state = TriominosGame({"players": names}).new_initial_state(random.Random(players))
    assert [len(r) for r in state.racks] == [hand] * players
    size = 76 if players >= 5 else 56
    assert len(state.pool) == size - hand * players
    assert sorted(state.pool + [t for r in state.racks for t in r]) == list(range(size))


def test_M2_five_players_need_the_excel_set() -> None:
    with pytest.raises(RecordError, match="classic set is for 2 to 4"):
        TriominosGame({"players": list("ABCDE"), "set": "classic"})
    with pytest.raises(RecordError, match="2 to 6"):
        TriominosGame({"players": ["solo"]})


def test_M3_goliath_tie_redraw_happens_for_some_seed() -> None:
    for seed in range(200):
        state = TriominosGame().new_initial_state(random.Random(seed))
        if max(len(v) for v in state.opening_draw.values()) > 1:
            return
    pytest.fail("no tie in 200 deals")


@pytest.mark.parametrize("seed", range(20))
def test_M3_pressman_deal_gives_the_turn_to_the_highest_triple(seed: int) -> None:
    state = TriominosGame({"rules": "pressman"}).new_initial_state(random.Random(seed))
    ts = state.tileset

    def best(seat: int) -> tuple[int, int]:
        triples = [ts.pips[t] for t in state.racks[seat] if len(set(ts.tiles[t])) == 1]
        return (1, max(triples)) if triples else (0, max(ts.pips[t] for t in state.racks[seat]))

    assert best(state.to_move) == max(best(0), best(1))


def test_options_unknown_or_bad_values_are_refused() -> None:
    for options in ({"speed": 1}, {"rules": "house"}, {"target": 0}, {"young": "yes"},
                    {"players": ["A", "A"]}, {"set": "deluxe"}, {"bridge": "x"},
                    {"blocked": "x"}, {"empty_pool_penalty": -1},
                    {"set": ["classic"]}):  # a list is no set name (it used to be a TypeError)
        with pytest.raises(RecordError):
            TriominosGame(options)


@pytest.mark.parametrize("rules", ["goliath", "pressman"])
def test_M2_M3_deal_is_a_function_of_the_seed_and_deals_every_tile_once(rules: str) -> None:
    settings = Rules.from_options({"players": ["A", "B", "C"], "rules": rules})
    dealt = deal(settings, SETS["classic"], seed=9)
    assert dealt == deal(settings, SETS["classic"], seed=9)
    assert dealt != deal(settings, SETS["classic"], seed=10)
    assert sorted(dealt.pool + [t for rack in dealt.racks for t in rack]) == list(range(56))
    assert all(rack == sorted(rack) and len(rack) == 7 for rack in dealt.racks)
    assert bool(dealt.opening_draw) == (rules == "goliath")
