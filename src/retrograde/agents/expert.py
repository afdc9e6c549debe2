"""The expert agent: the strategy theory gives, where it gives one (SPEC §6).

* Nim (seed 000/003 task 3.1, the nim-sum expert): every heap h has the Grundy value
  g(h) = h mod (k+1) under a bound k on objects taken (g(h) = h unbounded). The mover
  is lost exactly when
    - normal play: the XOR of the g's is 0;
    - misère play: the XOR is 0 and some g >= 2, or the XOR is 1 and every g <= 1.
  The misère rule with a bound is the misère-Nim rule applied to the g's. Why it holds: a
  move changes one g (a take of 1..k cannot keep h mod (k+1)); from a heap it reaches
  every smaller g, and every g but its own once h >= k. Then no move leads from one
  lost class to another, and from any other non-empty position one does (the nim move on
  the g's while two g's are >= 2; with one, set it to make the XOR 1; with none, flip one
  g between 0 and 1: take 1, or take k from a heap of a multiple of k+1). The tests
  check it on every position of solved normal, misère, bounded and misère-bounded stores.
  The expert moves to a lost position for the opponent (one such move at random); from
  a lost position it plays a random legal move, as the seeds' expert did.
* Tic-tac-toe: the magic-square strategy of seed 001, not a perfect player. The cells
  carry the numbers of a 3x3 magic square, so three cells form a line exactly when
  their numbers sum to 15. Until it holds two cells the agent plays at random (it does
  not block then); afterwards it completes a 15-sum of two of its cells if the third
  cell is free, else blocks such a sum of the opponent's, else plays at random. It can
  lose to forks, and with one cell it does not stop a line of two.
* Quixo: there is no theory strategy (`cannot_play`).
"""

from __future__ import annotations

from functools import reduce
from operator import xor

from retrograde.agents.base import Agent
from retrograde.games.base import Game
from retrograde.games.tictactoe.game import cell_name

#: The magic square (rows of the board): every row, column and diagonal sums to 15,
#: and no other three distinct numbers 1..9 do.
MAGIC = (2, 7, 6,
         9, 5, 1,
         4, 3, 8)
_CELL_OF = {number: cell for cell, number in enumerate(MAGIC)}


def grundy(heap: int, max_take: int | None) -> int:
    """The normal-play Grundy value of one heap when at most `max_take` may be taken."""
    return heap if max_take is None else heap % (max_take + 1)


def nim_lost(heaps: tuple[int, ...], max_take: int | None, misere: bool) -> bool:
    """Whether the side to move loses `heaps` under perfect play (see the module docstring);
    the empty position is lost under normal play and won under misère play."""
    values = [grundy(h, max_take) for h in heaps]
    total = reduce(xor, values, 0)
    if not misere:
        return total == 0
    if any(v >= 2 for v in values):
        return total == 0
    return total == 1


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


class ExpertAgent(Agent):
    name = "expert"
    summary = ("the theory's strategy: nim-sum (Grundy values h mod k+1, normal and misère) for Nim, "
               "the seeds' magic-square rules for tic-tac-toe")

    @classmethod
    def cannot_play(cls, game: Game) -> str | None:
        if game.name not in ("nim", "tictactoe"):
            return "no theory strategy is known for it (try lookup or minimax)"
        return None

    def choose(self, position):
        moves = self.game.moves(position)
        if self.game.name == "nim":
            winning = [move for move in moves
                       if nim_lost(move[1], self.game.max_take, self.game.misere)]
            if winning:
                moves = winning
        else:
            xs, os = position
            own, other = (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
            cell = magic_square_cell(own, other)
            if cell is not None:
                return next(move for move in moves if move[0] == cell_name(cell))
        return moves[int(self.rng.integers(len(moves)))]
