"""Tic-tac-toe on 3x3: x moves first; three in a row wins; a full board is a draw.

Tiers: boards with k marks (`k0` .. `k9`); x holds ceil(k/2) cells, o floor(k/2).
A tier's index space is every board with those counts (combinatorial ranking,
see `ranking`); indices of boards that cannot be reached from the empty board
(both sides have a line, or a line the wrong side made before the last move) are
kept as holes: their stored outcome stays 0 ("no position") and they are not
counted. So are the boards that are not their symmetry class's representative
(`games.symmetry`): a store keeps 765 positions for the 5,478 reachable ones.
Positions are (x mask, o mask) with bit r*3+c for row r, column c.
"""

from __future__ import annotations

from retrograde import outcome
from retrograde.errors import BadPosition
from retrograde.games import ranking
from retrograde.games.base import Expansion, Game, Tier
from retrograde.games.tictactoe.cells import CELLS, cell_name, has_line

class TicTacToe(Game):
    name = "tictactoe"
    summary = "Tic-tac-toe (3x3), every position reachable from the empty board"
    notation = "rows joined by '/', cells x o .; optional side to move: x../.o./... x; moves a1..c3"
    tier_legend = "k{n} holds the boards with n marks (every such board is indexed, the unreachable ones are holes)"
    examples = ({},)
    max_remoteness = CELLS

    @property
    def params(self):
        return {}

    @property
    def max_moves(self):
        return CELLS

    def tiers(self):
        return tuple(
            Tier(name=f"k{k}", size=ranking.pair_size((k + 1) // 2, k // 2, CELLS),
                 children=(f"k{k + 1}",) if k < CELLS else (), key=(k,))
            for k in range(CELLS, -1, -1)
        )

    @property
    def initial_position(self):
        return (0, 0)

    # --- notation -------------------------------------------------------------------
    def parse(self, text):
        raw = text.strip()
        board, _, side = raw.partition(" ")
        rows = board.lower().split("/")
        if len(rows) != 3 or any(len(row) != 3 for row in rows):
            raise BadPosition(f"tictactoe position {raw!r}: expected 3 rows of 3 cells joined by '/'")
        xs = os = 0
        for cell, char in enumerate("".join(rows)):
            if char == "x":
                xs |= 1 << cell
            elif char == "o":
                os |= 1 << cell
            elif char != ".":
                raise BadPosition(f"tictactoe position {raw!r}: bad cell {char!r} (use x, o or .)")
        nx, no = xs.bit_count(), os.bit_count()
        if nx - no not in (0, 1):
            raise BadPosition(f"tictactoe position {raw!r}: {nx} x and {no} o is impossible (x moves first)")
        x_line, o_line = has_line(xs), has_line(os)
        if x_line and o_line:
            raise BadPosition(f"tictactoe position {raw!r}: both sides have a line")
        if x_line and nx == no:
            raise BadPosition(f"tictactoe position {raw!r}: o moved after x already had a line")
        if o_line and nx > no:
            raise BadPosition(f"tictactoe position {raw!r}: x moved after o already had a line")
        side = side.strip().lower()
        mover = "x" if nx == no else "o"
        if side and side != mover:
            if side not in ("x", "o"):
                raise BadPosition(f"tictactoe position {raw!r}: side to move must be x or o")
            raise BadPosition(f"tictactoe position {raw!r}: it is {mover}'s turn, not {side}'s")
        return (xs, os)

    def format(self, position):
        xs, os = position
        cells = ["x" if xs >> c & 1 else "o" if os >> c & 1 else "." for c in range(CELLS)]
        board = "/".join("".join(cells[r * 3:r * 3 + 3]) for r in range(3))
        mover = "x" if xs.bit_count() == os.bit_count() else "o"
        return f"{board} {mover}"

    # --- rules ----------------------------------------------------------------------
    def locate(self, position):
        xs, os = position
        return f"k{xs.bit_count() + os.bit_count()}", ranking.rank_pair(xs, os, CELLS)

    def position_at(self, tier, index):
        (k,) = tier.key
        xs, os = ranking.unrank_pair(index, (k + 1) // 2, k // 2, CELLS)
        x_line, o_line = has_line(xs), has_line(os)
        if (x_line and o_line) or (x_line and k % 2 == 0) or (o_line and k % 2 == 1):
            return None
        return (xs, os)

    def primitive(self, position):
        xs, os = position
        if has_line(xs) or has_line(os):
            return outcome.LOSS  # the side that just moved made the line
        if (xs | os) == (1 << CELLS) - 1:
            return outcome.DRAW
        return 0

    def moves(self, position):
        if self.primitive(position):
            return []
        xs, os = position
        x_to_move = xs.bit_count() == os.bit_count()
        result = []
        for cell in range(CELLS):
            if not (xs | os) >> cell & 1:
                child = (xs | 1 << cell, os) if x_to_move else (xs, os | 1 << cell)
                result.append((cell_name(cell), child))
        return result

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        from retrograde.games.tictactoe import kernels

        result = Expansion.buffers(stop - start, CELLS, out)
        kernels.expand(tier.key[0], start, stop, child_offsets, result.primitive, result.children)
        return result

    # --- capabilities ----------------------------------------------------------------
    @property
    def symmetry(self):
        from retrograde.games.tictactoe.symmetry import TicTacToeSymmetry

        return TicTacToeSymmetry(self)

    @property
    def display(self):
        from retrograde.games.tictactoe.display import TicTacToeDisplay

        return TicTacToeDisplay(self)

    @property
    def costs(self):
        from retrograde.games.tictactoe.costs import COSTS

        return COSTS

    @property
    def search(self):
        from retrograde.games.tictactoe.search import TicTacToeSearch

        return TicTacToeSearch(self)

    @property
    def playouts(self):
        from retrograde.games.tictactoe.playouts import playouts

        return playouts(self)

    @property
    def policies(self):
        from retrograde.games.tictactoe.players import MagicSquare

        return {"expert": MagicSquare}

    @property
    def network_input(self):
        from retrograde.games.tictactoe.network_input import TicTacToeNetworkInput

        return TicTacToeNetworkInput(self)

    @property
    def course(self):
        from retrograde.games.tictactoe.presets import TicTacToeCourse

        return TicTacToeCourse()
