"""Combinatorial ranking of two-colour boards (plain Python reference).

A board with `a` cells of one colour and `b` of the other among `cells` cells is
ranked as in "Quixo Is Solved": the rank of the first mask among masks of the
same popcount (colex order), times C(cells - a, b), plus the rank of the second
mask with the first mask's cells squeezed out. The kernels in
`ranking_kernels` compute the same numbers with bit tricks.
"""

from math import comb


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
