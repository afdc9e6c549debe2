"""Tic-tac-toe's compact-state rules for random playouts (`search.playouts`): a state is the
cells of the side to move and of its opponent (bit r*3 + c); no arrays are read."""

from __future__ import annotations

import numpy as np

from retrograde.games.tictactoe.kernels import CELLS, FULL, has_line
from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS
from retrograde.search.playouts import CHILDREN, RANDOM_CHILD, TERMINAL, Playouts, marks_state


@njit(TERMINAL)
def terminal(params, table, lines, a, b):
    if has_line(b):
        return LOSS
    return DRAW if a | b == FULL else 0


@njit(CHILDREN)
def children(params, table, lines, a, b, out_a, out_b):
    j = 0
    for cell in range(CELLS):
        if not (a | b) >> cell & 1:
            out_a[j] = b
            out_b[j] = a | (1 << cell)
            j += 1
    return j


@njit(RANDOM_CHILD)
def random_child(params, table, lines, a, b):
    free = 0
    for cell in range(CELLS):
        if not (a | b) >> cell & 1:
            free += 1
    pick = np.random.randint(free)
    for cell in range(CELLS):
        if not (a | b) >> cell & 1:
            if pick == 0:
                return b, a | (1 << cell)
            pick -= 1
    return a, b  # not reached: a non-terminal board has a free cell


def playouts(game) -> Playouts:
    """The playout kernels of tic-tac-toe."""
    return Playouts.of(terminal, children, random_child, marks_state)
