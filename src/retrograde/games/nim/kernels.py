"""Numba kernels for Nim: rank/unrank within a total-objects tier, expand a chunk."""

import numpy as np

from retrograde.jit import njit


@njit
def rank(heaps, ways, total):
    """Index of a heap vector among those with the same total (lexicographic)."""
    index = 0
    remaining = total
    for i in range(heaps.shape[0]):
        for v in range(heaps[i]):
            index += ways[i + 1, remaining - v]
        remaining -= heaps[i]
    return index


@njit
def unrank(index, total, ways, heaps):
    """Write into `heaps` the heap vector at `index` of tier `total`."""
    remaining = total
    for i in range(heaps.shape[0]):
        v = 0
        while index >= ways[i + 1, remaining - v]:
            index -= ways[i + 1, remaining - v]
            v += 1
        heaps[i] = v
        remaining -= v


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
        unrank(start + row, total, ways, heaps)
        j = 0
        for i in range(n):
            h = heaps[i]
            for take in range(1, min(h, take_limit) + 1):
                heaps[i] = h - take
                children[row, j] = child_offsets[take - 1] + rank(heaps, ways, total - take)
                j += 1
            heaps[i] = h
        if j < width:
            children[row, j] = -1
