"""Ring, a loopy game written with the `loopy` capability alone beyond the required part: the
worked example of docs/GAMES.md (section 6).

A ring of N cells, numbered 0..N-1, and one token. The side to move takes the token one or four
cells forward (up the numbers, N-1 wrapping to 0) or two cells back; whoever brings it to cell 0
wins, so a position with the token on 0 is lost by the side to move. Play can go round for ever
(a draw). A position is the token's cell, its index in the one tier `ring`, which lists itself
as its child: the tier is a loopy group of its own. No symmetry, so the first pass's kernel is
given placeholder symmetry arrays.
"""

from __future__ import annotations

import numpy as np

from retrograde import outcome
from retrograde.errors import BadOption, BadPosition
from retrograde.games.base import IN_GROUP, Expansion, Game, Param, Tier
from retrograde.games.capabilities import Loopy
from retrograde.games.expand_kernel import EXPAND
from retrograde.jit import njit

STEPS = (1, 4, -2)


@njit(EXPAND)
def expand_ring(params, table, lines, symmetry, start, stop, child_offsets, primitive, children):
    """params = (cells, count_only): each move's child by reference, or as IN_GROUP when the
    tier is being solved as its loopy group (the first pass counts them, a move each)."""
    cells, count_only = params[0], params[1] != 0
    for row in range(stop - start):
        cell = start + row
        children[row, :] = -1
        primitive[row] = outcome.LOSS if cell == 0 else 0
        if cell == 0:
            continue
        for j, step in enumerate((1, 4, -2)):
            children[row, j] = IN_GROUP if count_only else child_offsets[0] + (cell + step) % cells


class RingLoopy(Loopy):
    def expand_kernel(self, tier, group):
        params = np.array([self.game.cells, tier.name in group], dtype=np.int64)
        no_symmetry = np.zeros((1, 1, 1), dtype=np.int32)
        no_symmetry.flags.writeable = False  # the signature takes read-only symmetry tables
        return expand_ring, params, np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64), no_symmetry

    def parents(self, tier, indices, group_offsets, *, out=None):
        """The cells with a move onto each cell (never 0: the game is over there), each once,
        weighed by its moves onto it (three on a ring of 3, where every step is one forward)."""
        refs, weights = Loopy.buffers(len(indices), len(STEPS), out)
        cells = self.game.cells
        for row, cell in enumerate(np.asarray(indices).tolist()):
            found: dict[int, int] = {}
            for step in STEPS:
                parent = (cell - step) % cells
                if parent != 0:
                    found[parent] = found.get(parent, 0) + 1
            refs[row], weights[row] = -1, 0
            refs[row, :len(found)] = [group_offsets[tier.name] + parent for parent in found]
            weights[row, :len(found)] = list(found.values())
        return refs, weights


class Ring(Game):
    name = "ring"
    summary = "Ring: move the token 1 or 4 cells forward or 2 back; whoever brings it to cell 0 wins"
    notation = "the token's cell, 0 to N-1; moves are +1, +4 and -2"
    tier_legend = "ring holds every cell of the token"
    params_spec = (Param("cells", "cells on the ring (3 to 64)", kind=int, required=True, metavar="N"),)
    examples = ({"cells": 10},)

    def __init__(self, *, cells: int):
        if not 3 <= cells <= 64:
            raise BadOption(f"--cells {cells}: a ring of 3 to 64 cells")
        self.cells = cells

    @property
    def params(self):
        return {"cells": self.cells}

    @property
    def max_moves(self):
        return len(STEPS)

    def tiers(self):
        return (Tier("ring", self.cells, ("ring",), (self.cells,)),)

    @property
    def initial_position(self):
        return self.cells // 2

    def parse(self, text):
        if not text.strip().isdigit() or not 0 <= int(text) < self.cells:
            raise BadPosition(f"ring position {text!r}: give the token's cell, 0 to {self.cells - 1}")
        return int(text)

    def format(self, position):
        return str(position)

    def locate(self, position):
        return "ring", position

    def position_at(self, tier, index):
        return index

    def primitive(self, position):
        return outcome.LOSS if position == 0 else 0

    def moves(self, position):
        if position == 0:
            return []
        return [(f"{step:+d}", (position + step) % self.cells) for step in STEPS]

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        result = Expansion.buffers(stop - start, self.max_moves, out)
        kernel, params, *arrays = self.loopy.expand_kernel(tier, group)
        kernel(params, *arrays, start, stop, child_offsets, result.primitive, result.children)
        return result

    @property
    def loopy(self):
        return RingLoopy(self)
