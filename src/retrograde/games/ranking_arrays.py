"""Two-colour board ranking over numpy arrays (no numba), and the lookup tables it
shares with the scalar kernels in `ranking_kernels`.

Colex rank among masks of one popcount equals numeric order, so a rank is a sum of
binomials over set bits; the tables hold those sums per byte (boards of up to 32
cells). Each table has the narrowest signed dtype its values fit: the kernels read them
for every child of every position, and they take 0.86 MB so, 2.9 MB as int64 (signed,
because numba types arithmetic mixing unsigned and signed 64-bit integers as floats).
`rank_pairs` ranks a whole batch of boards in a few array operations: the probe path uses
it, so that checking many positions needs no Python loop over positions and no numba import.
`ranking` is the plain reference both are tested against.
"""

import numpy as np

MAX_CELLS = 32
PIECES = MAX_CELLS // 8

_BYTES = np.arange(256, dtype=np.int64)
_BITS = (_BYTES[:, None] >> np.arange(8)) & 1  # _BITS[byte, bit]
_BELOW = np.cumsum(_BITS, axis=1) - _BITS  # set bits of byte below bit


def _binomials(n: int) -> np.ndarray:
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    table[:, 0] = 1
    for i in range(1, n + 1):
        table[i, 1:] = table[i - 1, :-1] + table[i - 1, 1:]
    return table


BINOMIAL = _binomials(64)
POPCOUNT8 = _BITS.sum(axis=1).astype(np.int8)


def _rank_table() -> np.ndarray:
    """RANK[piece, seen, byte]: rank contribution of `byte` at bits 8*piece.. after `seen` set bits."""
    cell = 8 * np.arange(PIECES)[:, None, None, None] + np.arange(8)
    k = np.arange(MAX_CELLS + 1)[None, :, None, None] + _BELOW[None, None] + 1
    return (BINOMIAL[cell, k] * _BITS[None, None]).sum(axis=-1).astype(np.int32)


def _squeeze_tables() -> tuple[np.ndarray, np.ndarray]:
    """SQUEEZE[holes, bits]: bits outside holes, packed; SPREAD[holes, packed]: the inverse."""
    free = 1 - _BITS  # free[holes, cell]
    slot = np.cumsum(free, axis=1) - free  # where a free cell lands when packed
    squeeze = (free[:, None, :] * _BITS[None, :, :] << slot[:, None, :]).sum(axis=-1)
    spread = (free[:, None, :] * (_BYTES[None, :, None] >> slot[:, None, :] & 1) << np.arange(8)).sum(axis=-1)
    spread[_BYTES[None, :] >= 1 << free.sum(axis=1)[:, None]] = 0
    return squeeze.astype(np.int16), spread.astype(np.int16)


def _sixteen_bit_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Whole-word tables for masks of up to 16 bits: popcount, colex rank, and the inverse
    (UNRANK16[START16[k] + r] is the k-bit mask of rank r)."""
    masks = np.arange(1 << 16, dtype=np.int64)
    popcount = POPCOUNT8[masks & 255] + POPCOUNT8[masks >> 8]
    order = np.lexsort((masks, popcount))  # by popcount, then numerically (= colex)
    start = np.zeros(18, dtype=np.int64)
    start[1:] = np.cumsum(np.bincount(popcount, minlength=17))
    rank = np.empty(1 << 16, dtype=np.int16)  # at most C(16, 8) - 1
    rank[order] = np.arange(1 << 16) - start[popcount[order]]
    return popcount, rank, masks[order].astype(np.int32), start


RANK = _rank_table()
SQUEEZE, SPREAD = _squeeze_tables()
POPCOUNT16, RANK16, UNRANK16, START16 = _sixteen_bit_tables()


def popcounts(masks: np.ndarray) -> np.ndarray:
    return POPCOUNT16[masks & 0xFFFF] + POPCOUNT16[(masks >> 16) & 0xFFFF]


def rank_masks(masks: np.ndarray) -> np.ndarray:
    """Colex ranks of masks among masks with their popcount."""
    low, high = masks & 0xFFFF, (masks >> 16) & 255
    seen = POPCOUNT16[low]
    return (RANK16[low] + RANK[2, seen, high].astype(np.int64)
            + RANK[3, seen + POPCOUNT8[high], (masks >> 24) & 255])


def squeeze_masks(masks: np.ndarray, holes: np.ndarray) -> np.ndarray:
    """Each mask's bits outside its holes, packed (a vectorised pext)."""
    packed = np.zeros_like(masks)
    shift = np.zeros_like(masks)
    for piece in range(PIECES):
        piece_holes = (holes >> (8 * piece)) & 255
        packed |= SQUEEZE[piece_holes, (masks >> (8 * piece)) & 255] << shift
        shift += 8 - POPCOUNT8[piece_holes]
    return packed


def rank_pairs(first: np.ndarray, second: np.ndarray, cells: int) -> np.ndarray:
    """Indices of two-colour boards within their classes (int64 masks in, int64 out)."""
    width = BINOMIAL[cells - popcounts(first), popcounts(second)]
    return rank_masks(first) * width + rank_masks(squeeze_masks(second, first))


def unrank_masks(ranks: np.ndarray, count: int, cells: int) -> np.ndarray:
    """The masks with `count` set bits at colex positions `ranks` (`rank_masks`' inverse): from the
    highest set bit down, each the largest cell c with C(c, k) <= the rank left."""
    ranks = np.array(ranks, dtype=np.int64)
    masks = np.zeros_like(ranks)
    for k in range(count, 0, -1):
        cell = np.searchsorted(BINOMIAL[:cells, k], ranks, side="right") - 1
        ranks -= BINOMIAL[cell, k]
        masks |= np.int64(1) << cell
    return masks


def unsqueeze_masks(packed: np.ndarray, holes: np.ndarray, cells: int) -> np.ndarray:
    """Each packed mask's bits spread over the cells outside its holes (`squeeze_masks`' inverse,
    a vectorised pdep)."""
    masks = np.zeros_like(packed)
    taken = np.zeros_like(packed)  # packed bits used so far
    for cell in range(cells):
        free = ((holes >> cell) & 1) == 0
        masks |= (((packed >> taken) & 1) & free) << cell
        taken += free
    return masks


def unrank_pairs(indices: np.ndarray, a: int, b: int, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The two masks of each board at `indices` of class (a, b) (`rank_pairs`' inverse)."""
    indices = np.asarray(indices, dtype=np.int64)
    width = BINOMIAL[cells - a, b]
    first = unrank_masks(indices // width, a, cells)
    return first, unsqueeze_masks(unrank_masks(indices % width, b, cells - a), first, cells)
