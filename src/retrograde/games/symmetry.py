"""The 8 symmetries of a square board, for two-colour boards ranked as in `ranking`.

A store keeps one position per symmetry class: the class's *representative*, the image
with the least index. Colex rank is numeric order, and squeezing by the same first mask
keeps order, so the least index is the image whose (first mask, second mask) pair is
least, compared as integers: the representative needs no ranking to find. Every other
index of the class is a hole (outcome 0).

Symmetry g maps cell (r, c) to its image after g % 4 quarter turns, then a mirror of the
columns if g >= 4 (g = 0 is the identity). A mask's image is read from byte tables,
`tables(n)[g, piece, byte]` = the image of the cells of `byte` at bits 8*piece..8*piece+7,
for masks of up to 32 cells; on a narrow board (16 cells or fewer) its two pieces lie side by
side, `tables(n)[g, 256 * piece + byte]`, and the kernels work on a pair's masks as one key.
Plain Python (`representative`) and numpy (`representatives`) versions serve probes and batch
probes without numba; `symmetry_kernels` holds the numba ones for the solver. Tests check all
three against a board-string reference of their own.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from retrograde.games.ranking_arrays import PIECES

#: Symmetries of the square: 4 rotations, each with and without a mirror.
COUNT = 8


def cell_maps(n: int) -> list[list[int]]:
    """maps[g][cell] = where symmetry g sends `cell` of an n x n board."""
    maps = []
    for g in range(COUNT):
        image = []
        for cell in range(n * n):
            r, c = divmod(cell, n)
            for _ in range(g % 4):
                r, c = c, n - 1 - r  # a quarter turn clockwise
            if g >= 4:
                c = n - 1 - c
            image.append(r * n + c)
        maps.append(image)
    return maps


@lru_cache(maxsize=None)
def tables(n: int) -> np.ndarray:
    """int32[8, PIECES, 256], or int32[8, 512] on a narrow board: the image under each symmetry
    of each byte of a mask (see module; at most 32 KB, a core's first-level cache, where int64
    would not fit)."""
    pieces = 2 if n * n <= 16 else PIECES
    result = np.zeros((COUNT, pieces, 256), dtype=np.int32)
    for g, image in enumerate(cell_maps(n)):
        for cell, target in enumerate(image):
            piece, bit = divmod(cell, 8)
            has_bit = (np.arange(256) >> bit) & 1
            result[g, piece] |= has_bit << target
    if pieces == 2:
        result = result.reshape(COUNT, 2 * 256)
    result.setflags(write=False)
    return result


def _by_piece(n: int) -> np.ndarray:
    """`tables(n)` as [8, pieces, 256] whatever the board."""
    return tables(n).reshape(COUNT, -1, 256)


@lru_cache(maxsize=None)
def _table_lists(n: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(tuple(tuple(row) for row in by_piece) for by_piece in _by_piece(n).tolist())


def _image(by_piece, mask: int) -> int:
    image = 0
    for piece, table in enumerate(by_piece):
        image |= table[mask >> (8 * piece) & 255]
    return image


def representative(n: int, first: int, second: int) -> tuple[int, int]:
    """The least (first, second) image of a pair of masks of an n x n board (plain Python)."""
    return min((_image(by_piece, first), _image(by_piece, second)) for by_piece in _table_lists(n))


def representatives(n: int, first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`representative` of many pairs (int64 arrays in and out), in a few array operations."""
    table = _by_piece(n)
    images = [sum(table[:, piece, (masks >> (8 * piece)) & 255].astype(np.int64)
                  for piece in range(table.shape[1])) for masks in (first, second)]
    best = (images[0] << 32 | images[1]).min(axis=0)
    return best >> 32, best & 0xFFFFFFFF


def class_sizes(n: int, a: int, b: int, start: int, stop: int, outcome: np.ndarray) -> np.ndarray:
    """How many boards each index start..stop-1 of the class of boards with a first-mask and b
    second-mask cells stands for, given the chunk's solved `outcome`s (`Game.orbit_sizes`)."""
    from retrograde.games.symmetry_kernels import orbit_sizes

    out = np.empty(stop - start, dtype=np.uint8)
    orbit_sizes(tables(n), a, b, n * n, start, stop, outcome, out)
    return out


def class_sizes_at(n: int, a: int, b: int, indices: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """`class_sizes` at the given indices, `outcome` theirs (`Game.orbit_sizes_at`)."""
    from retrograde.games.symmetry_kernels import orbit_sizes_at

    out = np.empty(indices.size, dtype=np.uint8)
    orbit_sizes_at(tables(n), a, b, n * n, np.ascontiguousarray(indices, dtype=np.int64), outcome, out)
    return out
