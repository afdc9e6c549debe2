"""TicTacToe: the game (`game`: rules, notation, tiers, ranking), its numba kernels (`kernels`) and its
alpha-beta search with the seeds' evaluations (`search`, for the minimax and greedy agents)."""

from retrograde.games.tictactoe.game import TicTacToe

__all__ = ["TicTacToe"]
