"""Combinatorial ranking (plain Python reference): two-colour boards and bounded compositions.

A board with `a` cells of one colour and `b` of the other among `cells` cells is
ranked as in "Quixo Is Solved": the rank of the first mask among masks of the
same popcount (colex order), times C(cells - a, b), plus the rank of the second
mask with the first mask's cells squeezed out. The kernels in
`ranking_kernels` compute the same numbers with bit tricks.

A composition of a total into parts 0 <= part i <= bound i (Nim's heaps, a board's column
heights) is ranked lexicographically among those of the same total, from a counting table
`ways[i, t]`: the number of ways parts i.. sum to t (`composition_ways`).
"""

from math import comb

import numpy as np


def rank_mask(mask: int) -> int:
    """Colex rank of a bit mask among masks with the same number of set bits:
    the sum of C(cell, j) over its j-th set bit (j = 1, 2, ...) at `cell`."""
    rank, seen = 0, 0
    while mask:
        low = mask & -mask
        seen += 1
        rank += comb(low.bit_length() - 1, seen)
        mask ^= low
    return rank


def unrank_mask(rank: int, count: int) -> int:
    """The mask with `count` set bits at colex position `rank`."""
    mask = 0
    for k in range(count, 0, -1):
        bit = k - 1
        while comb(bit + 1, k) <= rank:
            bit += 1
        rank -= comb(bit, k)
        mask |= 1 << bit
    return mask


def squeeze(mask: int, holes: int, cells: int) -> int:
    """Pack the bits of `mask` that lie outside `holes` (like the pext instruction):
    a bit at `cell` moves down by the number of holes below it."""
    packed = 0
    mask &= ~holes
    while mask:
        low = mask & -mask
        cell = low.bit_length() - 1
        packed |= 1 << (cell - (holes & (low - 1)).bit_count())
        mask ^= low
    return packed


def unsqueeze(packed: int, holes: int, cells: int) -> int:
    """Inverse of `squeeze`: spread packed bits over the cells outside `holes`."""
    mask, src = 0, 0
    for cell in range(cells):
        if not holes >> cell & 1:
            mask |= (packed >> src & 1) << cell
            src += 1
    return mask


def pair_size(a: int, b: int, cells: int) -> int:
    """Number of boards with `a` cells of one colour and `b` of the other."""
    return comb(cells, a) * comb(cells - a, b)


def rank_pair(first: int, second: int, cells: int) -> int:
    """Index of a two-colour board within its class."""
    a, b = first.bit_count(), second.bit_count()
    return rank_mask(first) * comb(cells - a, b) + rank_mask(squeeze(second, first, cells))


def unrank_pair(index: int, a: int, b: int, cells: int) -> tuple[int, int]:
    """The two masks of the board at `index` of class (a, b)."""
    high, low = divmod(index, comb(cells - a, b))
    first = unrank_mask(high, a)
    return first, unsqueeze(unrank_mask(low, b), first, cells)


def composition_ways(bounds) -> np.ndarray:
    """ways[i, t]: the number of ways parts i.. (each 0..bounds[i]) sum to exactly t."""
    n, total = len(bounds), sum(bounds)
    ways = np.zeros((n + 1, total + 1), dtype=np.int64)
    ways[n, 0] = 1
    for i in range(n - 1, -1, -1):
        for t in range(total + 1):
            ways[i, t] = ways[i + 1, max(0, t - bounds[i]):t + 1].sum()
    return ways


def rank_composition(parts, ways: np.ndarray) -> int:
    """Index of `parts` among the compositions of their total (lexicographic)."""
    index, remaining = 0, sum(parts)
    for i, part in enumerate(parts):
        for v in range(part):
            index += int(ways[i + 1, remaining - v])
        remaining -= part
    return index


def unrank_composition(index: int, total: int, ways: np.ndarray) -> tuple[int, ...]:
    """The composition of `total` at `index` (inverse of `rank_composition`)."""
    parts = []
    for i in range(ways.shape[0] - 1):
        v = 0
        while index >= ways[i + 1, total - v]:
            index -= int(ways[i + 1, total - v])
            v += 1
        parts.append(v)
        total -= v
    return tuple(parts)
