"""Quixo: the game (`game`: rules, notation, tiers, ranking), its numba kernels (`kernels`) and its
alpha-beta search with the seeds' evaluations (`search`, for the minimax and greedy agents)
and the board features the learning agents weigh (`features`)."""

from retrograde.games.quixo.game import Quixo

__all__ = ["Quixo"]
