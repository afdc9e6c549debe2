"""Numba kernels for two-colour board and bounded-composition ranking, one at a time (see
`ranking` for the reference and `ranking_arrays` for the tables and the batch version).

The kernels read rank contributions from byte-wise tables and walk consecutive
indices with Gosper's next-combination step instead of unranking each one. Squeezing a
mask by another's cells is one PEXT (spreading back one PDEP) where the host runs BMI2 fast
(`bits`), byte tables otherwise.
"""

from retrograde.games import bits
from retrograde.games.ranking_arrays import (BINOMIAL, MAX_CELLS, PIECES, POPCOUNT8, RANK, RANK16, SPREAD, SQUEEZE,
                                             START16, UNRANK16)
from retrograde.jit import njit


@njit
def popcount(mask):
    return bits.popcount(mask)


@njit
def rank_mask(mask):
    """Colex rank of a mask among masks with the same popcount."""
    low = mask & 0xFFFF
    rank = RANK16[low]
    if mask >> 16:
        seen = bits.popcount(low)
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
def squeeze_by_table(mask, holes, cells):
    """The bits of `mask` outside `holes`, packed (a PEXT by byte tables)."""
    packed = 0
    shift = 0
    for piece in range(2 if cells <= 16 else PIECES):
        h = (holes >> (8 * piece)) & 255
        packed |= SQUEEZE[h, (mask >> (8 * piece)) & 255] << shift
        shift += 8 - POPCOUNT8[h]
    return packed


@njit
def unsqueeze_by_table(packed, holes, cells):
    """`squeeze_by_table`'s inverse (a PDEP by byte tables)."""
    mask = 0
    for piece in range(2 if cells <= 16 else PIECES):
        h = (holes >> (8 * piece)) & 255
        free = 8 - POPCOUNT8[h]
        mask |= SPREAD[h, packed & ((1 << free) - 1)] << (8 * piece)
        packed >>= free
    return mask


@njit
def squeeze_by_bmi2(mask, holes, cells):
    return bits.pext(mask, ~holes & ((1 << cells) - 1))


@njit
def unsqueeze_by_bmi2(packed, holes, cells):
    return bits.pdep(packed, ~holes & ((1 << cells) - 1))


squeeze, unsqueeze = ((squeeze_by_bmi2, unsqueeze_by_bmi2) if bits.HAS_FAST_BMI2
                      else (squeeze_by_table, unsqueeze_by_table))


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


@njit
def rank_composition(parts, ways, total):
    """Index of the composition `parts` (summing to `total`) among those of its total
    (lexicographic; `ranking.composition_ways` gives `ways`)."""
    index = 0
    remaining = total
    for i in range(parts.shape[0]):
        for v in range(parts[i]):
            index += ways[i + 1, remaining - v]
        remaining -= parts[i]
    return index


@njit
def unrank_composition(index, total, ways, parts):
    """Write into `parts` the composition of `total` at `index`."""
    remaining = total
    for i in range(parts.shape[0]):
        v = 0
        while index >= ways[i + 1, remaining - v]:
            index -= ways[i + 1, remaining - v]
            v += 1
        parts[i] = v
        remaining -= v
