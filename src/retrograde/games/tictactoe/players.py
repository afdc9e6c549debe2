"""Tic-tac-toe's own agent: the expert, the magic-square strategy of seed 001, not a perfect
player. The cells carry the numbers of a 3x3 magic square, so three cells form a line exactly
when their numbers sum to 15. Until it holds two cells the agent plays at random (it does
not block then); afterwards it completes a 15-sum of two of its cells if the third
cell is free, else blocks such a sum of the opponent's, else plays at random. It can
lose to forks, and with one cell it does not stop a line of two.
"""

from __future__ import annotations

from retrograde.games.capabilities import Policy
from retrograde.games.tictactoe.cells import cell_name

#: The magic square (rows of the board): every row, column and diagonal sums to 15,
#: and no other three distinct numbers 1..9 do.
MAGIC = (2, 7, 6,
         9, 5, 1,
         4, 3, 8)
_CELL_OF = {number: cell for cell, number in enumerate(MAGIC)}


def magic_square_cell(own: int, other: int) -> int | None:
    """The cell the magic-square strategy plays for a mover holding the cells of mask `own`
    against `other`, or None where it plays at random (fewer than two own cells, or no sum
    to complete or block). Pairs are tried in cell order, own pairs before the opponent's."""
    if own.bit_count() < 2:
        return None
    free = ~(own | other)
    for mask in (own, other):
        cells = [cell for cell in range(9) if mask >> cell & 1]
        for i, first in enumerate(cells):
            for second in cells[i + 1:]:
                cell = _CELL_OF.get(15 - MAGIC[first] - MAGIC[second])
                if cell is not None and free >> cell & 1:
                    return cell
    return None


class MagicSquare(Policy):
    name = "expert"
    summary = "the seeds' magic-square rules for tic-tac-toe (not a perfect player)"

    def choose(self, position):
        moves = self.game.moves(position)
        xs, os = position
        own, other = (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
        cell = magic_square_cell(own, other)
        if cell is not None:
            return next(move for move in moves if move[0] == cell_name(cell))
        return moves[int(self.rng.integers(len(moves)))]
