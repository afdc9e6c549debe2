"""Treblecross, written as a new game's author starts: the required part of `Game` alone.

A row of cells, empty at the start; both players put an X on any empty cell, and the player
who completes three X in a row wins. Tier `k{n}` holds the rows with n X; a position is the
mask of its X (bit i: cell i), which is also its index, so a tier's indices are every mask of
its width, and those of another count of X (or a row no game reaches) are holes. A row full of X holds three in a row
(at least three cells), so no game is drawn.

No capability: no symmetry, display, costs, search, playout rules, agents of its own or course
presets. The tests hold that every command works with it (tests/test_minimal_game.py), that
the self-tests pass it, and that every test enumerating games takes it in (it is registered
for the whole suite in conftest.py).
"""

from __future__ import annotations

import numpy as np

from retrograde import outcome
from retrograde.errors import BadOption, BadPosition
from retrograde.games.base import Expansion, Game, Param, Tier


def three_in_a_row(mask: int) -> bool:
    return bool(mask & mask >> 1 & mask >> 2)


def reachable(mask: int) -> bool:
    """A row without a line, or one whose line some last mark made (the game stops at a line)."""
    return not three_in_a_row(mask) or any(mask >> cell & 1 and not three_in_a_row(mask & ~(1 << cell))
                                           for cell in range(mask.bit_length()))


class Treblecross(Game):
    name = "treblecross"
    summary = "Treblecross: both players mark cells of one row; three marks in a row win"
    notation = "the row, x marked and . empty: x..x...; moves are cell numbers from 1"
    tier_legend = "k{n} holds the rows with n marks"
    params_spec = (Param("cells", "cells in the row (3 to 12)", kind=int, required=True, metavar="N"),)
    examples = ({"cells": 7},)

    def __init__(self, *, cells: int):
        if not 3 <= cells <= 12:
            raise BadOption(f"--cells {cells}: a row of 3 to 12 cells")
        self.cells = cells

    @property
    def params(self):
        return {"cells": self.cells}

    @property
    def max_moves(self):
        return self.cells

    def tiers(self):
        return tuple(Tier(f"k{k}", 1 << self.cells, (f"k{k + 1}",) if k < self.cells else (), (k,))
                     for k in range(self.cells, -1, -1))

    @property
    def initial_position(self):
        return 0

    def parse(self, text):
        row = text.strip().lower()
        if len(row) != self.cells or set(row) - {"x", "."}:
            raise BadPosition(f"treblecross position {text!r}: expected {self.cells} cells, each x or .")
        mask = sum(1 << cell for cell, char in enumerate(row) if char == "x")
        if not reachable(mask):
            raise BadPosition(f"treblecross position {text!r}: the game ends at the first line, and no last mark made this one")
        return mask

    def format(self, position):
        return "".join("x" if position >> cell & 1 else "." for cell in range(self.cells))

    def locate(self, position):
        return f"k{position.bit_count()}", position

    def position_at(self, tier, index):
        return index if index.bit_count() == tier.key[0] and reachable(index) else None

    def primitive(self, position):
        return outcome.LOSS if three_in_a_row(position) else 0

    def moves(self, position):
        if self.primitive(position):
            return []
        return [(str(cell + 1), position | 1 << cell) for cell in range(self.cells) if not position >> cell & 1]

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        """The rules position by position: a real game's expand is a numba kernel over the chunk
        (docs/GAMES.md), which a row of at most 4,096 masks a tier does not need."""
        result = Expansion.buffers(stop - start, self.max_moves, out)
        for row, index in enumerate(range(start, stop)):
            position = self.position_at(tier, index)
            result.children[row] = -1
            if position is None:
                result.primitive[row] = outcome.ILLEGAL
                continue
            result.primitive[row] = self.primitive(position)
            children = [child_offsets[0] + child for _, child in self.moves(position)]
            result.children[row, :len(children)] = np.asarray(children, dtype=np.int64)
        return result
