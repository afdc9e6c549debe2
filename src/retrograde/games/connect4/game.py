"""Connect Four on W columns by H rows (W, H from 4 to 7), a line of K in a row (3 or 4) wins.

x moves first; a move drops the mover's piece into a column that is not full, where it rests on
the bottom row or on the piece below. A position holding a line of K (across, up or diagonal) is
over and lost by the side to move (the side that just moved made it); a full board without a
line is a draw.

Positions are (x mask, o mask) bitboards with H + 1 bits a column (bit c*(H+1) + r for column
c, row r from the bottom; the top bit of each column stays empty, so that shifting a mask never
carries a line from one column into the next). Tier `p{k}` holds the boards with k pieces (x
holds ceil(k/2) of them, o floor(k/2)); a move leads from tier p{k} to p{k+1}, so the tiers are
loop-free and solved from the full board down. Within a tier, an index is the rank of the
column heights among the compositions of k into W parts of at most H (`ranking`), times
C(k, ceil(k/2)), plus the colex rank of which of the k pieces are x's, the pieces read column by
column from the bottom. Indices that hold no position are holes: boards no game reaches (a line
of the side to move, lines no single move made, or columns that no alternation of x and o
builds) and boards whose mirror image (columns reversed) is kept at a smaller index. The
plain-Python rules here are the reference for `kernels`.
"""

from __future__ import annotations

from functools import cached_property
from math import comb

from retrograde import outcome
from retrograde.errors import BadOption, BadPosition
from retrograde.games import ranking
from retrograde.games.base import Expansion, Game, Param, Tier
from retrograde.games.connect4.columns import COLUMNS

SIZES = range(4, 8)
CONNECTS = (3, 4)


class Connect4(Game):
    name = "connect4"
    summary = "Connect Four on small boards (W x H from 4 to 7, K in a row from 3 to 4), mirror images folded"
    notation = ("H rows from top to bottom joined by '/', cells x o ., then optionally a space and the side to "
                "move: ..../..../..../x... o; moves are column letters a, b, ...")
    tier_legend = ("p{n} holds the boards with n pieces (every board gravity allows with those pieces is indexed; "
                   "those no game reaches and mirror images are holes)")
    examples = ({"width": 4, "height": 4, "connect": 3},)
    params_spec = (
        Param("width", "columns: 4 to 7", kind=int, required=True, metavar="W"),
        Param("height", "rows: 4 to 7", kind=int, required=True, metavar="H"),
        Param("connect", "pieces in a row that win: 3 or 4 (default 4)", kind=int, metavar="K"),
    )

    def __init__(self, *, width: int, height: int, connect: int | None = None):
        connect = 4 if connect is None else connect
        if width not in SIZES:
            raise BadOption(f"--width {width}: Connect Four is played here on 4 to 7 columns")
        if height not in SIZES:
            raise BadOption(f"--height {height}: Connect Four is played here on 4 to 7 rows")
        if connect not in CONNECTS:
            raise BadOption(f"--connect {connect}: a line is 3 or 4 in a row")
        self.width, self.height, self.connect = int(width), int(height), int(connect)
        self.cells = self.width * self.height
        #: Bits a column takes in a mask: its cells and an empty top bit.
        self.stride = self.height + 1

    @property
    def params(self):
        return {"width": self.width, "height": self.height, "connect": self.connect}

    @property
    def max_moves(self):
        return self.width

    @property
    def max_remoteness(self):
        return self.cells

    # --- tiers ------------------------------------------------------------------------
    @cached_property
    def ways(self):
        """Compositions of a piece count into the column heights (`ranking.composition_ways`)."""
        return ranking.composition_ways((self.height,) * self.width)

    def tiers(self):
        return tuple(Tier(f"p{k}", int(self.ways[0, k]) * comb(k, (k + 1) // 2),
                          (f"p{k + 1}",) if k < self.cells else (), (k,))
                     for k in range(self.cells, -1, -1))

    @property
    def initial_position(self):
        return (0, 0)

    # --- cells and columns --------------------------------------------------------------
    def bit(self, column: int, row: int) -> int:
        """The mask bit of a cell (row 0 is the bottom)."""
        return 1 << (column * self.stride + row)

    def heights(self, position) -> tuple[int, ...]:
        """The number of pieces in each column."""
        filled = position[0] | position[1]
        column = (1 << self.height) - 1
        return tuple(((filled >> (c * self.stride)) & column).bit_count() for c in range(self.width))

    def _to_move(self, position) -> str:
        xs, os = position
        return "x" if xs.bit_count() == os.bit_count() else "o"

    # --- notation ---------------------------------------------------------------------
    def parse(self, text):
        raw = text.strip()
        where = f"connect4 position {raw!r}"
        board, _, side = raw.partition(" ")
        rows = board.lower().split("/")
        if len(rows) != self.height or any(len(row) != self.width for row in rows):
            raise BadPosition(f"{where}: expected {self.height} rows of {self.width} cells joined by '/'")
        xs = os = 0
        for r, row in enumerate(reversed(rows)):
            for c, char in enumerate(row):
                if char == "x":
                    xs |= self.bit(c, r)
                elif char == "o":
                    os |= self.bit(c, r)
                elif char != ".":
                    raise BadPosition(f"{where}: bad cell {char!r} (use x, o or .)")
        for c in range(self.width):
            stack = [rows[self.height - 1 - r][c] for r in range(self.height)]
            if "." in stack and any(cell != "." for cell in stack[stack.index("."):]):
                raise BadPosition(f"{where}: column {COLUMNS[c]} has a piece above an empty cell")
        nx, no = xs.bit_count(), os.bit_count()
        if nx - no not in (0, 1):
            raise BadPosition(f"{where}: {nx} x and {no} o is impossible (x moves first)")
        side = side.strip().lower()
        mover = self._to_move((xs, os))
        if side and side != mover:
            if side not in ("x", "o"):
                raise BadPosition(f"{where}: side to move must be x or o")
            raise BadPosition(f"{where}: it is {mover}'s turn, not {side}'s")
        why = self.unreachable((xs, os))
        if why:
            raise BadPosition(f"{where}: {why}")
        return (xs, os)

    def format(self, position):
        xs, os = position
        rows = ["".join("x" if xs & self.bit(c, r) else "o" if os & self.bit(c, r) else "."
                        for c in range(self.width)) for r in range(self.height - 1, -1, -1)]
        return "/".join(rows) + " " + self._to_move(position)

    # --- rules (plain Python reference) ---------------------------------------------------
    @cached_property
    def lines(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Every line of K cells, as (column, row) pairs."""
        found = []
        for c in range(self.width):
            for r in range(self.height):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = tuple((c + i * dc, r + i * dr) for i in range(self.connect))
                    if all(0 <= cc < self.width and 0 <= rr < self.height for cc, rr in cells):
                        found.append(cells)
        return tuple(found)

    @cached_property
    def line_masks(self) -> tuple[int, ...]:
        return tuple(sum(self.bit(c, r) for c, r in line) for line in self.lines)

    def has_line(self, mask: int) -> bool:
        return any(mask & line == line for line in self.line_masks)

    def primitive(self, position):
        xs, os = position
        if self.has_line(xs) or self.has_line(os):
            return outcome.LOSS  # the side that just moved made the line
        if (xs | os).bit_count() == self.cells:
            return outcome.DRAW
        return 0

    def moves(self, position):
        if self.primitive(position):
            return []
        xs, os = position
        x_to_move = xs.bit_count() == os.bit_count()
        result = []
        for c, height in enumerate(self.heights(position)):
            if height < self.height:
                bit = self.bit(c, height)
                result.append((COLUMNS[c], (xs | bit, os) if x_to_move else (xs, os | bit)))
        return result

    def unreachable(self, position) -> str | None:
        """Why no game from the empty board reaches `position` (in words), or None if one does.

        The last mover L (x if x has more pieces, else o) made its move on top of a column; the
        board before it held no line and was reached in turn. So a line of the side to move, or
        lines of L that no single top piece of L lies on, cannot be reached, and neither can a
        board whose columns no alternation of x and o moves builds (searched here over the
        columns' filled heights)."""
        xs, os = position
        last, other = (xs, os) if xs.bit_count() > os.bit_count() else (os, xs)
        if self.has_line(other):
            return ("both sides have a line" if self.has_line(last)
                    else "the side to move already has a line, so the game ended before")
        heights = self.heights(position)
        tops = [c for c in range(self.width) if heights[c] and last & self.bit(c, heights[c] - 1)]
        lines = [line for line in self.line_masks if last & line == line]
        if lines:
            tops = [c for c in tops if all(line & self.bit(c, heights[c] - 1) for line in lines)]
            if not tops:
                return "no single move made all of its lines"
            if not any(self._built((xs & ~self.bit(c, heights[c] - 1), os & ~self.bit(c, heights[c] - 1)))
                       for c in tops):
                return "no sequence of moves builds its columns"
            return None
        return None if self._built(position) else "no sequence of moves builds its columns"

    def _built(self, position) -> bool:
        """Whether moves x, o, x, ... build the board's columns: a search over how many pieces of
        each column are placed, the next piece's colour fixed by how many are placed in all."""
        xs, os = position
        heights = self.heights(position)
        states, seen = [(0,) * self.width], set()
        while states:
            placed = states.pop()
            if placed == heights:
                return True
            mover = xs if sum(placed) % 2 == 0 else os
            for c in range(self.width):
                if placed[c] < heights[c] and mover & self.bit(c, placed[c]):
                    following = placed[:c] + (placed[c] + 1,) + placed[c + 1:]
                    if following not in seen:
                        seen.add(following)
                        states.append(following)
        return False

    # --- ranking ------------------------------------------------------------------------
    def _pattern(self, position) -> int:
        """Which of the pieces, read column by column from the bottom, are x's (a bit a piece)."""
        xs, _ = position
        pattern, placed = 0, 0
        for c, height in enumerate(self.heights(position)):
            for r in range(height):
                pattern |= (xs >> (c * self.stride + r) & 1) << placed
                placed += 1
        return pattern

    def locate(self, position):
        heights = self.heights(position)
        k = sum(heights)
        index = ranking.rank_composition(heights, self.ways) * comb(k, (k + 1) // 2) + \
            ranking.rank_mask(self._pattern(position))
        return f"p{k}", index

    def position_at(self, tier, index):
        (k,) = tier.key
        rest, pattern_rank = divmod(index, comb(k, (k + 1) // 2))
        heights = ranking.unrank_composition(rest, k, self.ways)
        pattern = ranking.unrank_mask(pattern_rank, (k + 1) // 2)
        xs = os = placed = 0
        for c, height in enumerate(heights):
            for r in range(height):
                if pattern >> placed & 1:
                    xs |= self.bit(c, r)
                else:
                    os |= self.bit(c, r)
                placed += 1
        return None if self.unreachable((xs, os)) else (xs, os)

    def mirror(self, position):
        """The position with its columns in reverse order."""
        column = (1 << self.stride) - 1
        return tuple(sum(((mask >> (c * self.stride)) & column) << ((self.width - 1 - c) * self.stride)
                         for c in range(self.width)) for mask in position)

    # --- kernels ------------------------------------------------------------------------
    @cached_property
    def kernel_tables(self):
        """The instance as the kernels take it (`kernels.instance_tables`)."""
        from retrograde.games.connect4 import kernels

        return kernels.instance_tables(self)

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        from retrograde.games.connect4 import kernels

        result = Expansion.buffers(stop - start, self.width, out)
        kernels.expand(*self.kernel_tables, tier.key[0], start, stop, child_offsets, result.primitive,
                       result.children)
        return result

    # --- capabilities ----------------------------------------------------------------
    @property
    def symmetry(self):
        from retrograde.games.connect4.symmetry import Connect4Symmetry

        return Connect4Symmetry(self)

    @property
    def display(self):
        from retrograde.games.connect4.display import Connect4Display

        return Connect4Display(self)

    @property
    def costs(self):
        from retrograde.games.connect4.costs import costs

        return costs(self)

    @property
    def search(self):
        from retrograde.games.connect4.search import Connect4Search

        return Connect4Search(self)

    @property
    def playouts(self):
        from retrograde.games.connect4.playouts import playouts

        return playouts(self)

    @property
    def features(self):
        from retrograde.games.connect4.features import Connect4Features

        return Connect4Features(self)

    @property
    def course(self):
        from retrograde.games.connect4.presets import Connect4Course

        return Connect4Course()
