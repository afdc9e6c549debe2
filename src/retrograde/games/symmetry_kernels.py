"""Numba kernels for the symmetries of a square board (see `symmetry`): a mask's image, a
pair's least image, whether a pair is its class's representative, and class sizes by index.
`table` is `symmetry.tables(n)`: two-dimensional for a narrow board (16 cells or fewer), which
the kernels tell apart when numba compiles them (an array's `ndim` is part of its type)."""

from retrograde.games.ranking_arrays import BINOMIAL
from retrograde.games.ranking_kernels import next_pair, unrank_mask, unsqueeze
from retrograde.jit import njit


@njit
def image(table, g, mask):
    """The image of `mask` under symmetry g."""
    if table.ndim == 2:  # a narrow board: two pieces side by side (a compile-time branch)
        return table[g, mask & 255] | table[g, 256 | ((mask >> 8) & 255)]
    return table[g, 0, mask & 255] | table[g, 1, (mask >> 8) & 255] | table[g, 2, (mask >> 16) & 255] | \
        table[g, 3, (mask >> 24) & 255]


@njit
def least_image(table, first, second):
    """(first, second) of the pair's least image, and how many symmetries map the pair onto it
    (the order of its stabiliser: its class holds 8 / that many positions).

    On a narrow board both masks make one key, first << 16 | second, ordered as the pairs are,
    and the least key is kept by selects, not branches: which image is less is a coin toss that
    a branch mispredicts (4x4 Quixo's parents kernel: 380 -> 240 ns a position). On a wide board
    the second mask's image is computed only where the first mask's image does not settle the
    order (computing it always cost 5x5 Quixo 12%)."""
    if table.ndim == 2:
        best = (first << 16) | second
        same = 1
        for g in range(1, table.shape[0]):
            key = (image(table, g, first) << 16) | image(table, g, second)
            lower = key < best
            same = 1 if lower else same + (key == best)
            best = key if lower else best
        return best >> 16, best & 0xFFFF, same
    best_first, best_second = first, second
    same = 1
    for g in range(1, table.shape[0]):
        f = image(table, g, first)
        if f > best_first:
            continue
        s = image(table, g, second)
        if f < best_first or s < best_second:
            best_first, best_second = f, s
            same = 1
        elif s == best_second:
            same += 1
    return best_first, best_second, same


@njit
def is_least(table, first, second):
    """Whether the pair is its class's representative (no image is less); stops at the first less."""
    for g in range(1, table.shape[0]):
        f = image(table, g, first)
        if f < first or (f == first and image(table, g, second) < second):
            return False
    return True


@njit
def orbit_sizes(table, a, b, cells, start, stop, outcome, out):
    """out[i] = positions that index start+i of class (a, b) stands for in a solved chunk whose
    outcomes are `outcome`: its class's size at a representative (every one holds a value), 0 at
    a hole (outcome 0: the class is counted at its representative)."""
    width = BINOMIAL[cells - a, b]
    first = unrank_mask(start // width, a, cells)
    packed = unrank_mask(start % width, b, cells - a)
    for row in range(stop - start):
        out[row] = 0
        if outcome[row] != 0:
            out[row] = table.shape[0] // least_image(table, first, unsqueeze(packed, first, cells))[2]
        first, packed = next_pair(first, packed, a, b, cells)


@njit
def orbit_sizes_at(table, a, b, cells, indices, outcome, out):
    """`orbit_sizes` at the given indices of class (a, b), `outcome` theirs (a sample's: each
    index unranked on its own, where the range kernel steps from one to the next)."""
    width = BINOMIAL[cells - a, b]
    for row in range(indices.shape[0]):
        out[row] = 0
        if outcome[row] != 0:
            first = unrank_mask(indices[row] // width, a, cells)
            packed = unrank_mask(indices[row] % width, b, cells - a)
            out[row] = table.shape[0] // least_image(table, first, unsqueeze(packed, first, cells))[2]
