"""The symmetries of the square board (games.symmetry and its kernels) against the tests' own
board-string reference (quixo_reference.images: quarter turns and mirrors of the cell string)."""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest

import quixo_reference as qref
from retrograde.games import ranking, symmetry
from retrograde.games.symmetry_kernels import is_least, least_image, orbit_sizes


def _boards(n: int, count: int, seed: int) -> list[str]:
    """Seeded boards of every density, and some symmetric ones (fewer distinct images)."""
    rng = random.Random(seed)
    boards = ["." * n * n, "x" + "." * (n * n - 1)]
    for _ in range(count):
        blanks = rng.random()
        boards.append("".join("." if rng.random() < blanks else rng.choice("xo") for _ in range(n * n)))
    boards += [qref.representative(board)[::-1] for board in boards[:20]]  # a half turn of a representative
    for board in boards[:30]:  # a board symmetric under the half turn: each cell as its opposite
        half = board[: (n * n + 1) // 2]
        boards.append(half + half[: n * n // 2][::-1])
    return boards


@pytest.mark.parametrize("n", [3, 4, 5])
def test_representative_and_class_size_match_the_reference(n):
    table = symmetry.tables(n)
    boards = _boards(n, 300, seed=n)
    xs = np.array([qref.masks(board)[0] for board in boards], dtype=np.int64)
    os = np.array([qref.masks(board)[1] for board in boards], dtype=np.int64)
    first, second = symmetry.representatives(n, xs, os)
    sizes = set()
    for board, x, o, f, s in zip(boards, xs.tolist(), os.tolist(), first.tolist(), second.tolist()):
        expected = qref.masks(qref.representative(board))
        assert symmetry.representative(n, x, o) == expected == (f, s), board
        kept_x, kept_o, same = least_image(table, x, o)
        assert (kept_x, kept_o) == expected
        images = len(set(qref.images(board)))
        assert 8 // same == images, board  # the class holds 8 / |stabiliser| boards
        assert is_least(table, x, o) == (qref.representative(board) == board)
        sizes.add(images)
    assert 8 in sizes and len(sizes) >= 3, sizes  # boards with symmetries are covered too


def test_every_image_of_a_board_has_the_same_representative():
    for n in (3, 4, 5):
        for board in _boards(n, 50, seed=10 + n):
            kept = qref.representative(board)
            for image in qref.images(board):
                assert symmetry.representative(n, *qref.masks(image)) == qref.masks(kept)


@pytest.mark.parametrize(("n", "a", "b"), [(3, 3, 2), (3, 0, 0), (4, 2, 1), (5, 2, 1)])
def test_orbit_sizes_count_each_class_once_at_its_least_index(n, a, b):
    """A solved tier holds values at its classes' least indices (by the reference): there each index
    counts its class's boards, 0 elsewhere, and the counts add up to the tier's size."""
    cells = n * n
    size = comb(cells, a) * comb(cells - a, b)
    expected = np.zeros(size, dtype=np.uint8)
    for index in range(size):
        x, o = ranking.unrank_pair(index, a, b, cells)
        board = "".join("x" if x >> i & 1 else "o" if o >> i & 1 else "." for i in range(cells))
        images = {qref.masks(image) for image in qref.images(board)}
        if min(ranking.rank_pair(ix, io, cells) for ix, io in images) == index:
            expected[index] = len(images)
    assert int(expected.sum()) == size
    out = np.empty(size, dtype=np.uint8)
    orbit_sizes(symmetry.tables(n), a, b, cells, 0, size, (expected > 0).astype(np.uint8), out)
    assert np.array_equal(out, expected)
    # A chunk starting inside the tier agrees with the whole.
    start = size // 3
    part = np.empty(size - start, dtype=np.uint8)
    orbit_sizes(symmetry.tables(n), a, b, cells, start, size, (expected[start:] > 0).astype(np.uint8), part)
    assert np.array_equal(part, expected[start:])
    # At a sample's indices (in any order, each unranked alone) as at the whole tier's.
    sample = np.random.default_rng(size).permutation(size)[:max(size // 2, 1)]
    at = symmetry.class_sizes_at(n, a, b, sample, (expected[sample] > 0).astype(np.uint8))
    assert np.array_equal(at, expected[sample])
