"""Tic-tac-toe's eight board symmetries folded together (`games.symmetry`): a store keeps 765
positions for the 5,478 reachable ones."""

from __future__ import annotations

from retrograde.games import symmetry
from retrograde.games.capabilities import Symmetry


class TicTacToeSymmetry(Symmetry):
    def representative(self, position):
        return symmetry.representative(3, *position)

    def orbit_sizes(self, tier, start, stop, outcome):
        (k,) = tier.key
        return symmetry.class_sizes(3, (k + 1) // 2, k // 2, start, stop, outcome)
