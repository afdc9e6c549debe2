"""Quixo's eight board symmetries folded together (`games.symmetry`): a store keeps one board a
class, from the mover's view; many positions are located on arrays at once (probes)."""

from __future__ import annotations

import numpy as np

from retrograde.games import symmetry
from retrograde.games.capabilities import Symmetry


class QuixoSymmetry(Symmetry):
    def representative(self, position):
        game = self.game
        return game._board(*symmetry.representative(game.size, *game._masks(position)), position[1])

    def orbit_sizes(self, tier, start, stop, outcome):
        return symmetry.class_sizes(self.game.size, *tier.key, start, stop, outcome)

    def locate_stored(self, positions):
        """On arrays (the rules for a few positions, where array set-up costs more)."""
        if len(positions) < 16:
            return super().locate_stored(positions)
        from retrograde.games.ranking_arrays import popcounts, rank_pairs

        game = self.game
        boards = np.frombuffer("".join(cells for cells, _ in positions).encode("ascii"), dtype=np.uint8)
        boards = boards.reshape(len(positions), game.cells)
        weights = np.int64(1) << np.arange(game.cells, dtype=np.int64)
        xs, os = ((boards == ord(symbol)).astype(np.int64) @ weights for symbol in "xo")
        o_to_move = np.fromiter((side == "o" for _, side in positions), dtype=bool, count=len(positions))
        mover, opponent = np.where(o_to_move, os, xs), np.where(o_to_move, xs, os)
        mover, opponent = symmetry.representatives(game.size, mover, opponent)
        return game._tier_names[popcounts(mover), popcounts(opponent)], rank_pairs(mover, opponent, game.cells)
