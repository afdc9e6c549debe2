"""Numba kernels for two-colour board ranking (see `ranking` for the reference)."""

import numpy as np

from retrograde.jit import njit

MAX_CELLS = 64


def _binomials() -> np.ndarray:
    table = np.zeros((MAX_CELLS + 1, MAX_CELLS + 1), dtype=np.int64)
    for n in range(MAX_CELLS + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


BINOMIAL = _binomials()


@njit
def rank_mask(mask):
    rank = 0
    seen = 0
    while mask:
        bit = 0
        low = mask & -mask
        while (low >> bit) != 1:
            bit += 1
        seen += 1
        rank += BINOMIAL[bit, seen]
        mask ^= low
    return rank


@njit
def unrank_mask(rank, count):
    mask = 0
    bit = MAX_CELLS - 1
    for k in range(count, 0, -1):
        while BINOMIAL[bit, k] > rank:
            bit -= 1
        rank -= BINOMIAL[bit, k]
        mask |= 1 << bit
        bit -= 1
    return mask


@njit
def squeeze(mask, holes, cells):
    packed = 0
    out = 0
    for cell in range(cells):
        if not (holes >> cell) & 1:
            packed |= ((mask >> cell) & 1) << out
            out += 1
    return packed


@njit
def unsqueeze(packed, holes, cells):
    mask = 0
    src = 0
    for cell in range(cells):
        if not (holes >> cell) & 1:
            mask |= ((packed >> src) & 1) << cell
            src += 1
    return mask


@njit
def popcount(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit
def rank_pair(first, second, cells):
    a = popcount(first)
    b = popcount(second)
    return rank_mask(first) * BINOMIAL[cells - a, b] + rank_mask(squeeze(second, first, cells))


@njit
def unrank_pair(index, a, b, cells):
    width = BINOMIAL[cells - a, b]
    first = unrank_mask(index // width, a)
    return first, unsqueeze(unrank_mask(index % width, b), first, cells)
