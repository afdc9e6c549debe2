"""Numba kernels for two-colour board ranking (see `ranking` for the reference).

Colex rank among masks of one popcount equals numeric order, so ranks are sums of
binomials over set bits; these kernels read them from byte-wise tables (boards of
up to 32 cells), and walk consecutive indices with Gosper's next-combination step
instead of unranking each one.
"""

import numpy as np

from retrograde.jit import njit

MAX_CELLS = 32
PIECES = MAX_CELLS // 8


def _binomials(n: int) -> np.ndarray:
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n + 1):
        table[i, 0] = 1
        for k in range(1, i + 1):
            table[i, k] = table[i - 1, k - 1] + table[i - 1, k]
    return table


BINOMIAL = _binomials(64)
POPCOUNT8 = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def _rank_table() -> np.ndarray:
    """RANK[piece, seen, byte]: rank contribution of `byte` at bits 8*piece.. after `seen` set bits."""
    table = np.zeros((PIECES, MAX_CELLS + 1, 256), dtype=np.int64)
    for piece in range(PIECES):
        for seen in range(MAX_CELLS + 1):
            for byte in range(256):
                total, k = 0, seen
                for bit in range(8):
                    if byte >> bit & 1:
                        k += 1
                        total += BINOMIAL[8 * piece + bit, k] if k <= 64 else 0
                table[piece, seen, byte] = total
    return table


def _squeeze_tables() -> tuple[np.ndarray, np.ndarray]:
    """SQUEEZE[holes, bits]: bits outside holes, packed; SPREAD[holes, packed]: the inverse."""
    squeeze = np.zeros((256, 256), dtype=np.int64)
    spread = np.zeros((256, 256), dtype=np.int64)
    for holes in range(256):
        free = [cell for cell in range(8) if not holes >> cell & 1]
        for bits in range(256):
            squeeze[holes, bits] = sum(1 << out for out, cell in enumerate(free) if bits >> cell & 1)
        for packed in range(1 << len(free)):
            spread[holes, packed] = sum(1 << cell for out, cell in enumerate(free) if packed >> out & 1)
    return squeeze, spread


def _sixteen_bit_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Whole-word tables for masks of up to 16 bits: popcount, colex rank, and the inverse
    (UNRANK16[START16[k] + r] is the k-bit mask of rank r)."""
    masks = np.arange(1 << 16, dtype=np.int64)
    popcount = np.array([bin(m).count("1") for m in range(1 << 16)], dtype=np.int64)
    order = np.lexsort((masks, popcount))  # by popcount, then numerically (= colex)
    start = np.zeros(18, dtype=np.int64)
    start[1:] = np.cumsum(np.bincount(popcount, minlength=17))
    rank = np.empty(1 << 16, dtype=np.int64)
    rank[order] = np.arange(1 << 16) - start[popcount[order]]
    return popcount, rank, masks[order], start


RANK = _rank_table()
SQUEEZE, SPREAD = _squeeze_tables()
POPCOUNT16, RANK16, UNRANK16, START16 = _sixteen_bit_tables()


@njit
def popcount(mask):
    return POPCOUNT16[mask & 0xFFFF] + POPCOUNT16[(mask >> 16) & 0xFFFF]


@njit
def rank_mask(mask):
    """Colex rank of a mask among masks with the same popcount."""
    low = mask & 0xFFFF
    rank = RANK16[low]
    if mask >> 16:
        seen = POPCOUNT16[low]
        byte = (mask >> 16) & 255
        rank += RANK[2, seen, byte]
        rank += RANK[3, seen + POPCOUNT8[byte], (mask >> 24) & 255]
    return rank


@njit
def unrank_mask(rank, count, cells=MAX_CELLS):
    """The mask of `count` bits (below bit `cells`) at colex position `rank`."""
    if cells <= 16:
        return UNRANK16[START16[count] + rank]
    mask = 0
    bit = cells - 1
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
    shift = 0
    for piece in range(2 if cells <= 16 else PIECES):
        h = (holes >> (8 * piece)) & 255
        packed |= SQUEEZE[h, (mask >> (8 * piece)) & 255] << shift
        shift += 8 - POPCOUNT8[h]
    return packed


@njit
def unsqueeze(packed, holes, cells):
    mask = 0
    for piece in range(2 if cells <= 16 else PIECES):
        h = (holes >> (8 * piece)) & 255
        free = 8 - POPCOUNT8[h]
        mask |= SPREAD[h, packed & ((1 << free) - 1)] << (8 * piece)
        packed >>= free
    return mask


@njit
def rank_pair(first, second, cells):
    return rank_counted(first, second, popcount(first), popcount(second), cells)


@njit
def rank_counted(first, second, a, b, cells):
    """`rank_pair` when the popcounts a and b are already known."""
    return rank_mask(first) * BINOMIAL[cells - a, b] + rank_mask(squeeze(second, first, cells))


@njit
def unrank_pair(index, a, b, cells):
    width = BINOMIAL[cells - a, b]
    first = unrank_mask(index // width, a, cells)
    return first, unsqueeze(unrank_mask(index % width, b, cells - a), first, cells)


@njit
def next_combination(mask):
    """The next larger mask with the same popcount (Gosper's hack); colex successor."""
    if mask == 0:
        return 0
    low = mask & -mask
    ripple = mask + low
    return ripple | (((mask ^ ripple) >> 2) // low)


@njit
def next_pair(first, second_packed, a, b, cells):
    """Step (first, squeezed second) to the next index of class (a, b)."""
    nxt = next_combination(second_packed)
    if b == 0 or nxt >> (cells - a) != 0:
        return next_combination(first), (1 << b) - 1
    return first, nxt
