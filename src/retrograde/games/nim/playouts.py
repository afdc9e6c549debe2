"""Nim's compact-state rules for random playouts (`search.playouts`).

A state is a = the heap vector in mixed radix (heap i times stride i, the product of H_j + 1
over the heaps j < i of the start position H; below 2**40 as Nim refuses larger instances),
b = 0. `params` = (take limit k, misère flag); `table` row i = (stride, radix) of heap i.
"""

from __future__ import annotations

import numpy as np

from retrograde.jit import njit
from retrograde.outcome import LOSS, WIN
from retrograde.search.playouts import CHILDREN, RANDOM_CHILD, TERMINAL, Playouts

TAKE, MISERE = range(2)


@njit(TERMINAL)
def terminal(params, table, lines, a, b):
    if a == 0:
        return WIN if params[MISERE] else LOSS
    return 0


@njit(CHILDREN)
def children(params, table, lines, a, b, out_a, out_b):
    j = 0
    for i in range(table.shape[0]):
        stride = table[i, 0]
        heap = (a // stride) % table[i, 1]
        for take in range(1, min(heap, params[TAKE]) + 1):
            out_a[j] = a - take * stride
            out_b[j] = 0
            j += 1
    return j


@njit(RANDOM_CHILD)
def random_child(params, table, lines, a, b):
    count = 0
    for i in range(table.shape[0]):
        count += min((a // table[i, 0]) % table[i, 1], params[TAKE])
    pick = np.random.randint(count)
    for i in range(table.shape[0]):
        takes = min((a // table[i, 0]) % table[i, 1], params[TAKE])
        if pick < takes:
            return a - (pick + 1) * table[i, 0], np.int64(0)
        pick -= takes
    return a, np.int64(0)  # not reached: a non-terminal state has a move


def playouts(game) -> Playouts:
    """The playout kernels of a Nim instance."""
    radix = np.array(game.heaps, dtype=np.int64) + 1
    strides = np.concatenate(([1], np.cumprod(radix[:-1])))
    take = max(game.heaps) if game.max_take is None else game.max_take
    return Playouts.of(terminal, children, random_child,
                       lambda heaps: (int(np.dot(np.asarray(heaps, dtype=np.int64), strides)), 0),
                       params=(take, int(game.misere)), table=np.stack([strides, radix], axis=1))
