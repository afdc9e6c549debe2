"""Quixo's compact-state rules for random playouts (`search.playouts`): a state is the cubes of
the side to move and of its opponent; `params` = (board size), `table` the move table and
`lines` the line masks of `games.quixo.kernels`."""

from __future__ import annotations

import numpy as np

from retrograde.games.quixo.kernels import SOURCE, has_line, play
from retrograde.jit import njit
from retrograde.outcome import LOSS, WIN
from retrograde.search.playouts import CHILDREN, RANDOM_CHILD, TERMINAL, Playouts


@njit(TERMINAL)
def terminal(params, table, lines, a, b):
    if has_line(a, params[0], lines):
        return WIN
    if has_line(b, params[0], lines):
        return LOSS
    return 0


@njit(CHILDREN)
def children(params, table, lines, a, b, out_a, out_b):
    j = 0
    for k in range(table.shape[0]):
        if not b & table[k, SOURCE]:
            mover, opponent = play(table, k, a, b)
            out_a[j], out_b[j] = opponent, mover
            j += 1
    return j


@njit(RANDOM_CHILD)
def random_child(params, table, lines, a, b):
    """A random row of the move table until its source is not the opponent's (a non-terminal
    board always has one: a border all the opponent's holds its line)."""
    while True:
        k = np.random.randint(table.shape[0])
        if not b & table[k, SOURCE]:
            mover, opponent = play(table, k, a, b)
            return opponent, mover


def playouts(game) -> Playouts:
    """The playout kernels of a Quixo instance."""
    return Playouts.of(terminal, children, random_child, game._masks, params=(game.size,),
                       table=game.move_table, lines=game.line_masks)
