"""Quixo's eight board symmetries folded together (`games.symmetry`): a store keeps one board a
class, from the mover's view; many positions are located on arrays at once (probes)."""

from __future__ import annotations

from retrograde.games import symmetry
from retrograde.games.capabilities import Symmetry


class QuixoSymmetry(Symmetry):
    def representative(self, position):
        game = self.game
        return game._board(*symmetry.representative(game.size, *game._masks(position)), position[1])

    def orbit_sizes(self, tier, start, stop, outcome):
        return symmetry.class_sizes(self.game.size, *tier.key, start, stop, outcome)

    def orbit_sizes_at(self, tier, indices, outcome):
        return symmetry.class_sizes_at(self.game.size, *tier.key, indices, outcome)

    def locate_stored(self, positions):
        """On arrays, as the game's batches are located (the rules for a few positions, where
        array set-up costs more)."""
        if len(positions) < 16:
            return super().locate_stored(positions)
        names, tiers, indices = self.game.locate_stored_many(self.game.batch_of(positions))
        return names[tiers], indices
