"""Numba kernels for Nim: expand a chunk of a total-objects tier (heap vectors ranked as bounded
compositions of the total, `ranking_kernels`)."""

import numpy as np

from retrograde.games.ranking_kernels import rank_composition, unrank_composition
from retrograde.jit import njit


@njit
def expand(ways, limits, take_limit, terminal, total, start, stop, child_offsets, primitive, children):
    """Fill primitive outcomes and child references for indices start..stop-1 of tier `total`."""
    n = limits.shape[0]
    heaps = np.empty(n, dtype=np.int64)
    width = children.shape[1]
    for row in range(stop - start):
        if total == 0:
            primitive[row] = terminal
            children[row, 0] = -1
            continue
        primitive[row] = 0
        unrank_composition(start + row, total, ways, heaps)
        j = 0
        for i in range(n):
            h = heaps[i]
            for take in range(1, min(h, take_limit) + 1):
                heaps[i] = h - take
                children[row, j] = child_offsets[take - 1] + rank_composition(heaps, ways, total - take)
                j += 1
            heaps[i] = h
        if j < width:
            children[row, j] = -1
