"""Quarto: the game (`game`: rules, notation, tiers, ranking) and its numba kernels (`kernels`),
solved exactly below a given position."""

from retrograde.games.quarto.game import Quarto

__all__ = ["Quarto"]
