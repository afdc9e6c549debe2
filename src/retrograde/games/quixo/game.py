"""Quixo on 3x3, 4x4 or 5x5 ("Quixo Is Solved", Tanaka et al. 2020).

A move takes a blank or own cube from the border and pushes it back in at an end
of its row or column (not where it came from), shifting the cubes between; the
cube shows the mover's symbol. If after a move the board holds a line of the
opponent's symbol, the mover loses (even with a line of its own); a line of its
own alone wins. There is no move limit: endless play is a draw.

Positions are stored from the mover's view (mover cubes vs opponent cubes, 3^(N*N)
boards). Tier `m{a}o{b}` holds boards with a mover cubes and b opponent cubes,
ranked as in the paper (see `ranking`). Taking an own cube leads to the partner
tier m{b}o{a} (the two form a loopy group solved together); taking a blank leads
to m{b}o{a+1}, solved before. The plain-Python rules below use a grid of
characters and are the reference for the bitboard kernels in `games.quixo.kernels`.
"""

from __future__ import annotations

from functools import cached_property
from operator import itemgetter

import numpy as np

from retrograde import outcome
from retrograde.errors import BadOption, BadPosition
from retrograde.games import ranking, symmetry
from retrograde.games.base import Expansion, Game, Param, Tier

SIZES = (3, 4, 5)
_ONLY_X = str.maketrans("xo.", "100")
_ONLY_O = str.maketrans("xo.", "010")


class Quixo(Game):
    name = "quixo"
    summary = "Quixo on a 3x3, 4x4 or 5x5 board (push cubes in from the border; five/four/three in a row)"
    notation = ("N rows joined by '/', cells x o ., a space, the side to move: ..../..../..../.... x; "
                "moves SOURCE-DEST cells, e.g. a1-d1 (column letter, row number from the top)")
    tier_legend = "m{a}o{b} holds the boards with a cubes of the side to move and b of the opponent"
    tier_group = "cubes on the board"
    examples = ({"size": 3},)
    params_spec = (
        Param("size", "board size: 3, 4 or 5", kind=int, required=True, metavar="N"),
        Param("down_to", "solve only the tiers with at least N cubes on the board (default: all)",
              kind=int, metavar="N", rule=False),
    )

    def __init__(self, *, size: int, down_to: int | None = None):
        if size not in SIZES:
            raise BadOption(f"--size {size}: Quixo is played on 3x3, 4x4 or 5x5 boards")
        cells = size * size
        down_to = 0 if down_to is None else int(down_to)
        if not 0 <= down_to <= cells:
            raise BadOption(f"--down-to {down_to}: must be between 0 and {cells} cubes for size {size}")
        self.size = size
        self.cells = cells
        self.down_to = down_to

    @property
    def params(self):
        return {"size": self.size, "down_to": self.down_to}

    @property
    def max_moves(self):
        return 4 * (self.size - 2) * 3 + 4 * 2

    # --- tiers --------------------------------------------------------------------
    def tiers(self):
        result = []
        for total in range(self.cells, self.down_to - 1, -1):
            for a in range(total + 1):
                b = total - a
                children = (f"m{b}o{a}",) + ((f"m{b}o{a + 1}",) if total < self.cells else ())
                result.append(Tier(f"m{a}o{b}", ranking.pair_size(a, b, self.cells), children, (a, b)))
        return tuple(result)

    @property
    def initial_position(self):
        return ("." * self.cells, "x")

    # --- notation -----------------------------------------------------------------
    def parse(self, text):
        raw = text.strip()
        board, _, side = raw.partition(" ")
        rows = board.lower().split("/")
        n = self.size
        if len(rows) != n or any(len(row) != n for row in rows):
            raise BadPosition(f"quixo position {raw!r}: expected {n} rows of {n} cells joined by '/'")
        cells = "".join(rows)
        bad = set(cells) - set("xo.")
        if bad:
            raise BadPosition(f"quixo position {raw!r}: bad cell {sorted(bad)[0]!r} (use x, o or .)")
        side = side.strip().lower()
        if side not in ("x", "o"):
            raise BadPosition(f"quixo position {raw!r}: give the side to move (x or o) after a space"
                              if not side else f"quixo position {raw!r}: side to move must be x or o, not {side!r}")
        return (cells, side)

    def format(self, position):
        cells, side = position
        return "/".join(self._rows(cells)) + " " + side

    @cached_property
    def _rows(self) -> itemgetter:
        """cells -> the board's rows (a C-level gather: probes format many boards)."""
        return itemgetter(*(slice(r * self.size, (r + 1) * self.size) for r in range(self.size)))

    def cell_name(self, cell: int) -> str:
        return "abcde"[cell % self.size] + str(cell // self.size + 1)

    # --- rules (plain Python reference) --------------------------------------------
    @cached_property
    def lines(self) -> tuple[tuple[int, ...], ...]:
        n = self.size
        rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
        cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
        diagonals = [tuple(i * n + i for i in range(n)), tuple(i * n + n - 1 - i for i in range(n))]
        return tuple(rows + cols + diagonals)

    @cached_property
    def _line_cells(self) -> tuple[itemgetter, ...]:
        return tuple(itemgetter(*line) for line in self.lines)

    def _has_line(self, cells: str, symbol: str) -> bool:
        full = (symbol,) * self.size
        return any(line(cells) == full for line in self._line_cells)

    def primitive(self, position):
        cells, side = position
        if self._has_line(cells, side):
            return outcome.WIN
        if self._has_line(cells, "o" if side == "x" else "x"):
            return outcome.LOSS
        return 0

    def destinations(self, cell: int) -> list[int]:
        """Where a cube taken from a border cell may be pushed back in (empty inside the board)."""
        n = self.size
        r, c = divmod(cell, n)
        if 0 < r < n - 1 and 0 < c < n - 1:
            return []
        ends = [r * n + 0, r * n + n - 1, 0 * n + c, (n - 1) * n + c]
        return [end for end in dict.fromkeys(ends) if end != cell]

    def push(self, cells: str, source: int, dest: int, symbol: str) -> str:
        """The board after taking the cube at `source` and pushing `symbol` in at `dest`."""
        n = self.size
        (sr, sc), (dr, dc) = divmod(source, n), divmod(dest, n)
        if sr == dr:  # along the row: the others close the gap, the cube enters at an end
            row = cells[sr * n:(sr + 1) * n]
            row = row[:sc] + row[sc + 1:]
            row = symbol + row if dc == 0 else row + symbol
            return cells[:sr * n] + row + cells[(sr + 1) * n:]
        column = cells[sc::n]  # along the column
        column = column[:sr] + column[sr + 1:]
        column = symbol + column if dr == 0 else column + symbol
        board = list(cells)
        board[sc::n] = column
        return "".join(board)

    @cached_property
    def _all_moves(self) -> tuple[tuple[int, str, itemgetter], ...]:
        """(source, move text, rearrangement) of every move, in move order. A move only
        rearranges cells, so `push` on a board of distinct marks (the cube pushed in is
        mark number `cells`) tells, cell by cell, where each cell of the child comes from;
        `moves` then builds a child in one C-level gather instead of string surgery."""
        marks = "".join(map(chr, range(self.cells)))
        return tuple((source, f"{self.cell_name(source)}-{self.cell_name(dest)}",
                      itemgetter(*map(ord, self.push(marks, source, dest, chr(self.cells)))))
                     for source in range(self.cells) for dest in self.destinations(source))

    def moves(self, position):
        if self.primitive(position):
            return []
        cells, side = position
        other = "o" if side == "x" else "x"
        board = cells + side  # the pushed-in cube shows the mover's symbol
        return [(text, ("".join(gather(board)), other))
                for source, text, gather in self._all_moves if cells[source] != other]

    def _masks(self, position) -> tuple[int, int]:
        """(mover mask, opponent mask): bit i set where cell i holds that side's cube."""
        cells, side = position
        bits = cells[::-1]  # cell 0 becomes the lowest bit
        xs = int(bits.translate(_ONLY_X), 2)
        os = int(bits.translate(_ONLY_O), 2)
        return (xs, os) if side == "x" else (os, xs)

    def locate(self, position):
        mover, opponent = self._masks(position)
        name = f"m{mover.bit_count()}o{opponent.bit_count()}"
        return name, ranking.rank_pair(mover, opponent, self.cells)

    @cached_property
    def _tier_names(self) -> np.ndarray:
        """_tier_names[a, b] = 'm{a}o{b}'."""
        span = range(self.cells + 1)
        return np.array([[f"m{a}o{b}" for b in span] for a in span])

    def position_at(self, tier, index):
        """The position at an index, shown with x to move (the store holds the mover's view)."""
        a, b = tier.key
        return self._board(*ranking.unrank_pair(index, a, b, self.cells), "x")

    def _board(self, mover: int, opponent: int, side: str):
        """The position with these masks of the side to move (`side`) and of the other side."""
        other = "o" if side == "x" else "x"
        return ("".join(side if mover >> i & 1 else other if opponent >> i & 1 else "." for i in range(self.cells)),
                side)

    # --- kernels ------------------------------------------------------------------
    @cached_property
    def move_table(self) -> np.ndarray:
        """Per (source, dest) move: source bit, dest bit, shifting cells, shift (see games.quixo.kernels)."""
        from retrograde.games.quixo.moves import move_table

        return move_table(self.size)

    @cached_property
    def every_line(self) -> np.ndarray:
        """int64 mask of every row, column and diagonal (`lines`)."""
        return np.array([sum(1 << cell for cell in line) for line in self.lines], dtype=np.int64)

    @cached_property
    def line_masks(self) -> np.ndarray:
        from retrograde.games.quixo.moves import line_masks

        return line_masks(self.size)

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        from retrograde.games.quixo import kernels

        result = Expansion.buffers(stop - start, self.max_moves, out)
        a, b = tier.key
        count_only = tier.children[0] in group
        kernels.expand(self.size, self.move_table, self.line_masks, symmetry.tables(self.size), a, b, start, stop,
                       child_offsets, count_only, result.primitive, result.children)
        return result

    # --- batches: positions as arrays (games.quixo.batch) -----------------------------
    def batch_of(self, positions):
        from retrograde.games.quixo.batch import from_cells

        cells = np.frombuffer("".join(cells for cells, _ in positions).encode("ascii"), dtype=np.uint8)
        x_moves = np.fromiter((side == "x" for _, side in positions), dtype=bool, count=len(positions))
        return from_cells(self.size, cells.reshape(len(positions), self.cells), x_moves)

    def parse_many(self, texts):
        """Texts as `format` writes them on arrays; the others through `parse` (its errors), then
        on arrays as `format` writes them."""
        from retrograde.games.quixo.batch import parse

        boards, odd = parse(self.size, texts)
        if not odd.any():
            return boards, []
        texts, bad = list(texts), []
        for slot in np.flatnonzero(odd).tolist():
            try:
                texts[slot] = self.format(self.parse(texts[slot]))
            except BadPosition as exc:
                texts[slot] = None
                bad.append((slot, exc))
        return parse(self.size, [text for text in texts if text is not None])[0], bad

    def format_many(self, batch):
        from retrograde.games.quixo.batch import format_all

        return format_all(self.size, batch)

    def children_many(self, batch):
        from retrograde.games.quixo.batch import children

        counts, move, child = children(self.move_table, self.every_line, batch)
        return counts, self._move_texts[move], child

    @cached_property
    def _move_texts(self) -> np.ndarray:
        """The text of each row of `move_table` (the same order as `_all_moves`)."""
        return np.array([text.encode() for _, text, _ in self._all_moves], dtype=bytes)

    def locate_stored_many(self, batch):
        from retrograde.games.quixo.batch import locate_stored

        return (self._tier_names.ravel(), *locate_stored(self.size, batch))

    # --- capabilities ----------------------------------------------------------------
    @property
    def loopy(self):
        from retrograde.games.quixo.loopy import QuixoLoopy

        return QuixoLoopy(self)

    @property
    def symmetry(self):
        from retrograde.games.quixo.symmetry import QuixoSymmetry

        return QuixoSymmetry(self)

    @property
    def one_ply(self):
        from retrograde.games.quixo.one_ply import QuixoOnePly

        return QuixoOnePly(self)

    @property
    def display(self):
        from retrograde.games.quixo.display import QuixoDisplay

        return QuixoDisplay(self)

    @property
    def costs(self):
        from retrograde.games.quixo.costs import costs

        return costs(self.size)

    @property
    def search(self):
        from retrograde.games.quixo.search import QuixoSearch

        return QuixoSearch(self)

    @property
    def playouts(self):
        from retrograde.games.quixo.playouts import playouts

        return playouts(self)

    @property
    def features(self):
        from retrograde.games.quixo.features import QuixoFeatures

        return QuixoFeatures(self)

    @property
    def network_input(self):
        from retrograde.games.quixo.network_input import QuixoNetworkInput

        return QuixoNetworkInput(self)

    @property
    def course(self):
        from retrograde.games.quixo.presets import QuixoCourse

        return QuixoCourse()
