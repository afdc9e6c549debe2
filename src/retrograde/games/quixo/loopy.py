"""Quixo's loopy tiers: taking an own cube leads from m{a}o{b} to the partner tier m{b}o{a}, so
the two are solved together. The first pass's expand kernel gives terminal children inside the
group by value; the parents kernel finds the partner tier's moves into a class."""

from __future__ import annotations

import numpy as np

from retrograde.games import symmetry
from retrograde.games.capabilities import Loopy


class QuixoLoopy(Loopy):
    group_terminals_by_value = True

    def expand_kernel(self, tier, group):
        from retrograde.games.quixo import kernels

        game = self.game
        params = np.array([game.size, *tier.key, tier.children[0] in group], dtype=np.int64)
        table = symmetry.tables(game.size)
        kernel = kernels.expand_in_group if table.ndim == 3 else kernels.expand_in_group_narrow
        return kernel, params, game.move_table, game.line_masks, table.reshape(table.shape[0], -1, 256)

    def parents(self, tier, indices, group_offsets, *, out=None):
        """In-group parents of representatives of `tier`: the representatives in the partner tier
        m{b}o{a} with a move that took an own cube into the position's class, each once (each row
        ending at -1), and the weight of each: how many such moves it has."""
        from retrograde.games.quixo import kernels

        game = self.game
        refs, weights = Loopy.buffers(len(indices), game.max_moves, out)
        a, b = tier.key
        kernels.parents(game.size, game.move_table, symmetry.tables(game.size), a, b,
                        np.asarray(indices, dtype=np.int64), group_offsets[f"m{b}o{a}"], refs, weights)
        return refs, weights
