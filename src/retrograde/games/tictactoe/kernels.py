"""Numba kernels for tic-tac-toe: expand a chunk of a k-marks tier, over the representatives of
the board's symmetry classes (`games.symmetry`)."""

import numpy as np

from retrograde.games import symmetry
from retrograde.games.ranking_kernels import rank_pair, unrank_pair
from retrograde.games.symmetry_kernels import is_least, least_image
from retrograde.jit import njit
from retrograde.outcome import DRAW, ILLEGAL, LOSS

CELLS = 9
FULL = (1 << CELLS) - 1
LINES = np.array([0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010,
                  0b100100100, 0b100010001, 0b001010100], dtype=np.int64)
#: The board's symmetry tables (a constant of the compiled kernels).
SYMMETRIES = symmetry.tables(3)


@njit
def has_line(mask):
    for line in LINES:
        if mask & line == line:
            return True
    return False


@njit
def expand(k, start, stop, child_offsets, primitive, children):
    nx = (k + 1) // 2
    no = k // 2
    x_to_move = k % 2 == 0
    for row in range(stop - start):
        children[row, 0] = -1
        primitive[row] = 0
        xs, os = unrank_pair(start + row, nx, no, CELLS)
        x_line = has_line(xs)
        o_line = has_line(os)
        if (x_line and o_line) or (x_line and x_to_move) or (o_line and not x_to_move) or \
                not is_least(SYMMETRIES, xs, os):
            primitive[row] = ILLEGAL
            continue
        if x_line or o_line:
            primitive[row] = LOSS
            continue
        if xs | os == FULL:
            primitive[row] = DRAW
            continue
        j = 0
        for cell in range(CELLS):
            bit = 1 << cell
            if (xs | os) & bit:
                continue
            child_xs, child_os = (xs | bit, os) if x_to_move else (xs, os | bit)
            child_xs, child_os, _ = least_image(SYMMETRIES, child_xs, child_os)
            children[row, j] = child_offsets[0] + rank_pair(child_xs, child_os, CELLS)
            j += 1
        if j < CELLS:
            children[row, j] = -1
