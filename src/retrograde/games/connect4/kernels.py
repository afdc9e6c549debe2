"""Numba kernels for Connect Four: lines, ranking, which boards a game reaches, and chunk
expansion over the representatives of mirror-image pairs (see `game` for the layout).

A board is (xs, os) in the column-major layout of `game` (stride H + 1 bits a column), or, for
ranking, its column heights and its pattern: which of its pieces, read column by column from
the bottom, are x's. An index is rank(heights) * C(k, ceil(k/2)) + colex rank(pattern).
"""

from __future__ import annotations

import numpy as np

from retrograde.games.ranking_arrays import BINOMIAL
from retrograde.games.ranking_kernels import popcount, rank_composition, unrank_composition, unrank_mask
from retrograde.jit import njit
from retrograde.outcome import DRAW, ILLEGAL, LOSS

#: Entries of the instance's `dims`: columns, rows, the pieces in a line, bits a column.
WIDTH, HEIGHT, CONNECT, STRIDE = range(4)


def instance_tables(game) -> tuple[np.ndarray, np.ndarray]:
    """(dims, ways) of an instance: `dims` as indexed above, `ways` its `ranking.composition_ways`."""
    dims = np.array([game.width, game.height, game.connect, game.stride], dtype=np.int64)
    return dims, np.ascontiguousarray(game.ways, dtype=np.int64)


@njit
def has_line(mask, dims):
    """Whether `mask` holds a line of CONNECT cells across, up or diagonally (the empty top bit
    of each column stops a shift from carrying a line over)."""
    stride = dims[STRIDE]
    for step in (1, stride, stride - 1, stride + 1):
        pairs = mask & (mask >> step)
        if dims[CONNECT] == 3:
            if pairs & (mask >> (2 * step)):
                return True
        elif pairs & (pairs >> (2 * step)):
            return True
    return False


@njit
def rank_pattern(pattern):
    """Colex rank of `pattern` among masks of its popcount (any width up to 63 bits)."""
    rank = 0
    seen = 0
    while pattern:
        low = pattern & -pattern
        seen += 1
        rank += BINOMIAL[popcount(low - 1), seen]
        pattern ^= low
    return rank


@njit
def board_index(heights, pattern, ways, pieces):
    """The index of the board with these column heights and pattern in tier p{pieces}."""
    return rank_composition(heights, ways, pieces) * BINOMIAL[pieces, (pieces + 1) // 2] + rank_pattern(pattern)


@njit
def mirror_index(heights, pattern, ways, pieces, mirrored):
    """The index of the board's mirror image (its columns reversed; `mirrored` a buffer)."""
    width = heights.shape[0]
    flipped = 0
    placed = 0
    start = pieces
    for c in range(width):
        height = heights[c]
        start -= height
        mirrored[width - 1 - c] = height
        flipped |= ((pattern >> placed) & ((np.int64(1) << height) - 1)) << start
        placed += height
    return board_index(mirrored, flipped, ways, pieces)


@njit
def board_at(dims, ways, pieces, index, heights):
    """(xs, os) of the board at `index` of tier p{pieces}; its heights written into `heights`."""
    patterns = BINOMIAL[pieces, (pieces + 1) // 2]
    unrank_composition(index // patterns, pieces, ways, heights)
    pattern = unrank_mask(index % patterns, (pieces + 1) // 2, max(pieces, 1))
    return masks_of(dims, heights, pattern)


@njit
def masks_of(dims, heights, pattern):
    """(xs, os) of the board with these heights and pattern."""
    xs = np.int64(0)
    os = np.int64(0)
    placed = 0
    for c in range(heights.shape[0]):
        for r in range(heights[c]):
            bit = np.int64(1) << (c * dims[STRIDE] + r)
            if (pattern >> placed) & 1:
                xs |= bit
            else:
                os |= bit
            placed += 1
    return xs, os


@njit
def pattern_of(dims, heights, xs):
    """The pattern of the board with these heights whose x's are `xs`."""
    pattern = np.int64(0)
    placed = 0
    for c in range(heights.shape[0]):
        for r in range(heights[c]):
            pattern |= ((xs >> (c * dims[STRIDE] + r)) & 1) << placed
            placed += 1
    return pattern


@njit
def search_buffers(dims):
    """The buffers of `built`: a stamp a state (states numbered in radix H + 1 by each column's
    placed pieces), the last stamp, the placed pieces a column, the next column to try and the
    column placed at each depth, and the state's step a column."""
    width, radix = dims[WIDTH], dims[HEIGHT] + 1
    powers = np.empty(width, dtype=np.int64)
    for c in range(width):
        powers[c] = radix ** c
    return (np.zeros(radix ** width, dtype=np.int64), np.zeros(1, dtype=np.int64), np.empty(width, dtype=np.int64),
            np.empty(width * dims[HEIGHT] + 1, dtype=np.int64), np.empty(width * dims[HEIGHT] + 1, dtype=np.int64),
            powers)


@njit
def built(dims, heights, xs, os, search):
    """Whether moves x, o, x, ... build the board's columns (every board a game passes through
    without a line): `game.Connect4.unreachable`'s search over how many pieces of each column
    are placed, the next piece's colour fixed by how many are placed in all, depth first and
    stopping at the first way found. `search` holds its buffers (`search_buffers`): a state is
    marked seen by this board's stamp, so that no state is searched twice."""
    seen, stamps, placed, tried, column, powers = search
    stamps[0] += 1
    stamp = stamps[0]
    width, stride = heights.shape[0], dims[STRIDE]
    pieces = 0
    for c in range(width):
        placed[c] = 0
        pieces += heights[c]
    state, depth = 0, 0
    tried[0] = 0
    while True:
        if depth == pieces:
            return True
        mover = xs if depth % 2 == 0 else os
        c = tried[depth]
        while c < width:
            if placed[c] < heights[c] and (mover >> (c * stride + placed[c])) & 1:
                following = state + powers[c]
                if seen[following] != stamp:
                    seen[following] = stamp
                    break
            c += 1
        if c < width:  # go down: place the next piece of column c
            tried[depth] = c + 1
            placed[c] += 1
            state += powers[c]
            column[depth] = c
            depth += 1
            tried[depth] = 0
        elif depth == 0:
            return False
        else:  # every way from here is tried: take the last piece back
            depth -= 1
            c = column[depth]
            placed[c] -= 1
            state -= powers[c]


@njit
def reached(dims, heights, xs, os, search):
    """Whether a game from the empty board reaches the board (`game.Connect4.unreachable`):
    no line of the side to move; lines of the last mover only if one top piece of its lies on
    all of them and the board without it is built; else the board built."""
    last, other = (xs, os) if popcount(xs) > popcount(os) else (os, xs)
    if has_line(other, dims):
        return False
    if not has_line(last, dims):
        return built(dims, heights, xs, os, search)
    for c in range(heights.shape[0]):
        if heights[c] == 0:
            continue
        top = np.int64(1) << (c * dims[STRIDE] + heights[c] - 1)
        if last & top and not has_line(last & ~top, dims):
            heights[c] -= 1
            fine = built(dims, heights, xs & ~top, os & ~top, search)
            heights[c] += 1
            if fine:
                return True
    return False


@njit
def flip(pattern, heights, pieces):
    """The pattern of the board's mirror image: its columns' runs of the pattern in reverse order."""
    flipped = np.int64(0)
    placed = 0
    start = pieces
    for c in range(heights.shape[0]):
        height = heights[c]
        start -= height
        flipped |= ((pattern >> placed) & ((np.int64(1) << height) - 1)) << start
        placed += height
    return flipped


@njit
def spread(pattern, filled):
    """The cells of `filled` (ascending) where `pattern` has a bit set: the x's of the board."""
    xs = np.int64(0)
    placed = 0
    while filled:
        low = filled & -filled
        if (pattern >> placed) & 1:
            xs |= low
        placed += 1
        filled ^= low
    return xs


@njit
def next_pattern(pattern):
    """The next larger pattern with as many bits set (colex successor, Gosper's step)."""
    low = pattern & -pattern
    ripple = pattern + low
    return ripple | (((pattern ^ ripple) >> 2) // low)


@njit
def expand(dims, ways, pieces, start, stop, child_offsets, primitive, children):
    """Primitive outcomes and child references of indices start..stop-1 of tier p{pieces}: a
    hole (ILLEGAL) where the board is unreached or its mirror image is kept at a smaller index;
    children by their representatives' indices in tier p{pieces + 1}.

    Indices with the same column heights are consecutive (a run of C(k, ceil(k/2)) patterns in
    colex order), so a run's heights, its mirror's rank and its children's heights are worked out
    once: a run whose mirrored heights rank lower is all holes, one whose mirrored heights rank
    higher needs no mirror test, and the patterns follow one another by Gosper's step."""
    width, height, stride = dims[WIDTH], dims[HEIGHT], dims[STRIDE]
    heights = np.empty(width, dtype=np.int64)
    mirrored = np.empty(width, dtype=np.int64)
    grown = np.empty(width, dtype=np.int64)
    child_rank = np.empty(width, dtype=np.int64)  # the child heights' rank, by the column played
    child_mirror = np.empty(width, dtype=np.int64)  # the child heights' mirror's rank
    below = np.empty(width, dtype=np.int64)  # pieces left of each column
    search = search_buffers(dims)
    patterns = BINOMIAL[pieces, (pieces + 1) // 2]
    child_patterns = BINOMIAL[pieces + 1, (pieces + 2) // 2]
    x_to_move = np.int64(pieces % 2 == 0)
    full = pieces == width * height
    for run in range(start // patterns, (stop - 1) // patterns + 1):
        first, last = max(start, run * patterns), min(stop, (run + 1) * patterns)
        unrank_composition(run, pieces, ways, heights)
        for c in range(width):
            mirrored[width - 1 - c] = heights[c]
        mirror_run = rank_composition(mirrored, ways, pieces)
        if mirror_run < run:  # every board's mirror image is kept at a lower index
            for index in range(first, last):
                primitive[index - start] = ILLEGAL
                children[index - start, 0] = -1
            continue
        filled = np.int64(0)
        placed = 0
        for c in range(width):
            below[c] = placed
            placed += heights[c]
            filled |= ((np.int64(1) << heights[c]) - 1) << (c * stride)
            if heights[c] < height:
                grown[:] = heights
                grown[c] += 1
                child_rank[c] = rank_composition(grown, ways, pieces + 1)
                for m in range(width):
                    mirrored[width - 1 - m] = grown[m]
                child_mirror[c] = rank_composition(mirrored, ways, pieces + 1)
        pattern = unrank_mask(first - run * patterns, (pieces + 1) // 2, max(pieces, 1))
        for index in range(first, last):
            row = index - start
            children[row, 0] = -1
            current = pattern
            pattern = next_pattern(pattern) if pattern else pattern
            if mirror_run == run and rank_pattern(flip(current, heights, pieces)) < index - run * patterns:
                primitive[row] = ILLEGAL
                continue
            xs = spread(current, filled)
            os = filled ^ xs
            if not reached(dims, heights, xs, os, search):
                primitive[row] = ILLEGAL
                continue
            if has_line(xs, dims) or has_line(os, dims):
                primitive[row] = LOSS
                continue
            if full:
                primitive[row] = DRAW
                continue
            primitive[row] = 0
            j = 0
            for c in range(width):
                if heights[c] == height:
                    continue
                at = below[c] + heights[c]  # where the new piece enters the pattern
                child = (current & ((np.int64(1) << at) - 1)) | (x_to_move << at) | ((current >> at) << (at + 1))
                found = child_rank[c] * child_patterns + rank_pattern(child)
                if child_mirror[c] <= child_rank[c]:
                    grown[:] = heights
                    grown[c] += 1
                    found = min(found, child_mirror[c] * child_patterns + rank_pattern(flip(child, grown, pieces + 1)))
                children[row, j] = child_offsets[0] + found
                j += 1
            if j < width:
                children[row, j] = -1


@njit
def _orbit_sizes(dims, ways, pieces, start, stop, outcome, out):
    width = dims[WIDTH]
    heights = np.empty(width, dtype=np.int64)
    mirrored = np.empty(width, dtype=np.int64)
    for row in range(stop - start):
        if outcome[row] == 0:
            out[row] = 0
            continue
        xs, _ = board_at(dims, ways, pieces, start + row, heights)
        symmetric = mirror_index(heights, pattern_of(dims, heights, xs), ways, pieces, mirrored) == start + row
        out[row] = 1 if symmetric else 2


def orbit_sizes(tables, pieces: int, start: int, stop: int, outcome: np.ndarray) -> np.ndarray:
    """How many boards each index start..stop-1 of tier p{pieces} stands for, given the chunk's
    solved outcomes: 2 for a representative whose mirror image differs, 1 for a symmetric one,
    0 at a hole."""
    out = np.empty(stop - start, dtype=np.uint8)
    _orbit_sizes(*tables, pieces, start, stop, outcome, out)
    return out
