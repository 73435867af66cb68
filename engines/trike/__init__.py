"""Trike (Alek Erickson, 2020): rules engine, exact solver and MCTS-Solver bot.

>>> GAME.name
'trike'
"""

from engines.trike.game import GAME, SWAP_ACTION, TrikeAction, TrikeGame, TrikeState

__all__ = ["GAME", "SWAP_ACTION", "TrikeAction", "TrikeGame", "TrikeState"]
