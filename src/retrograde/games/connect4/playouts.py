"""Connect Four's compact-state rules for random playouts (`search.playouts`): a state is the
pieces of the side to move and of its opponent (`game`'s layout); `params` are the kernels'
`dims`, `lines` = (the bottom cell of every column, every cell of the board)."""

from __future__ import annotations

import numpy as np

from retrograde.games.connect4.kernels import HEIGHT, STRIDE, WIDTH, has_line
from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS
from retrograde.search.playouts import CHILDREN, RANDOM_CHILD, TERMINAL, Playouts, marks_state

BOTTOM, BOARD = range(2)


@njit(TERMINAL)
def terminal(params, table, lines, a, b):
    if has_line(b, params) or has_line(a, params):
        return LOSS
    return DRAW if a | b == lines[BOARD] else 0


@njit
def _drop(params, lines, filled, column):
    """The cell a piece dropped into `column` takes, or 0 if the column is full."""
    below = (filled + lines[BOTTOM]) & (((np.int64(1) << params[HEIGHT]) - 1) << (column * params[STRIDE]))
    return below & ~filled


@njit(CHILDREN)
def children(params, table, lines, a, b, out_a, out_b):
    j = 0
    for c in range(params[WIDTH]):
        cell = _drop(params, lines, a | b, c)
        if cell:
            out_a[j] = b
            out_b[j] = a | cell
            j += 1
    return j


@njit(RANDOM_CHILD)
def random_child(params, table, lines, a, b):
    open_columns = 0
    for c in range(params[WIDTH]):
        if _drop(params, lines, a | b, c):
            open_columns += 1
    pick = np.random.randint(open_columns)
    for c in range(params[WIDTH]):
        cell = _drop(params, lines, a | b, c)
        if cell:
            if pick == 0:
                return b, a | cell
            pick -= 1
    return a, b  # not reached: a non-terminal board has an open column


def playouts(game) -> Playouts:
    """The playout kernels of a Connect Four instance."""
    dims, _ = game.kernel_tables
    bottom = sum(game.bit(c, 0) for c in range(game.width))
    board = sum(game.bit(c, r) for c in range(game.width) for r in range(game.height))
    return Playouts.of(terminal, children, random_child, marks_state, params=dims, lines=(bottom, board))
