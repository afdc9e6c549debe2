"""Connect Four's mirror images folded together: a store keeps the one of a board and its mirror
at the lesser index (`Connect4.mirror`)."""

from __future__ import annotations

from retrograde.games.capabilities import Symmetry


class Connect4Symmetry(Symmetry):
    def representative(self, position):
        return min(position, self.game.mirror(position), key=lambda board: self.game.locate(board)[1])

    def orbit_sizes(self, tier, start, stop, outcome):
        from retrograde.games.connect4 import kernels

        return kernels.orbit_sizes(self.game.kernel_tables, tier.key[0], start, stop, outcome)
