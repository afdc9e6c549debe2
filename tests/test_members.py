"""solvers.members: the dense numbering of a loopy group's positions, against numpy's own
counting (np.flatnonzero over the group's concatenated masks)."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde.solvers.members import Members


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dense_numbers_are_ranks_among_the_marked_indices(seed):
    rng = np.random.default_rng(seed)
    sizes = [int(rng.integers(1, 700)), int(rng.integers(1, 700))]
    masks = [rng.random(size) < rng.choice([0.02, 0.13, 0.9]) for size in sizes]
    members = Members(sizes)
    for t, mask in enumerate(masks):  # marked in chunks of odd lengths, as first-pass files come
        start = 0
        while start < sizes[t]:
            stop = min(sizes[t], start + int(rng.integers(1, 200)))
            members.mark(t, start, mask[start:stop])
            start = stop
    group = np.concatenate(masks)
    held = np.flatnonzero(group)  # group indices of the positions, in dense order
    assert members.number() == members.count == held.size
    assert members.dense_base.tolist() == [0, int(masks[0].sum()), held.size]
    starts = np.array([0, sizes[0]], dtype=np.int64)
    # Group indices to dense numbers, in rows ending at -1 (as the parents kernel writes them).
    refs = np.full((held.size + 1, 3), -1, dtype=np.int64)
    refs[:held.size, 0] = held[::-1]
    refs[:held.size, 1] = held
    members.to_dense(refs, starts)
    assert refs[:held.size, 0].tolist() == list(range(held.size))[::-1]
    assert refs[:held.size, 1].tolist() == list(range(held.size))
    assert (refs[:, 2] == -1).all() and refs[held.size, 0] == -1
    # Dense numbers back to indices within their tier.
    for t in range(2):
        dense = np.arange(members.dense_base[t], members.dense_base[t + 1], dtype=np.int64)
        assert members.to_full(t, dense).tolist() == np.flatnonzero(masks[t]).tolist()
    # Full arrays of a range of a tier: the dense values at positions, 0 at holes.
    outcome = np.arange(1, held.size + 1, dtype=np.int64) % 3 + 1
    remoteness = np.arange(held.size, dtype=np.uint16) * 7
    for t in range(2):
        start, stop = sizes[t] // 3, sizes[t]
        got_outcome, got_remoteness = members.scatter(t, start, stop, outcome, remoteness)
        expected_outcome = np.zeros(sizes[t], dtype=outcome.dtype)
        expected_remoteness = np.zeros(sizes[t], dtype=remoteness.dtype)
        where = np.flatnonzero(masks[t])
        expected_outcome[where] = outcome[members.dense_base[t]:members.dense_base[t + 1]]
        expected_remoteness[where] = remoteness[members.dense_base[t]:members.dense_base[t + 1]]
        assert got_outcome.tolist() == expected_outcome[start:stop].tolist()
        assert got_remoteness.tolist() == expected_remoteness[start:stop].tolist()


def test_a_reference_to_a_hole_is_refused():
    members = Members([130])
    mask = np.zeros(130, dtype=bool)
    mask[[0, 63, 64, 129]] = True
    members.mark(0, 0, mask)
    assert members.number() == 4
    refs = np.array([[129, 63, -1]], dtype=np.int64)
    members.to_dense(refs, np.array([0], dtype=np.int64))
    assert refs.tolist() == [[3, 1, -1]]  # bit 63 of a word, and the first bit of the third word
    with pytest.raises(ValueError, match="no position"):
        members.to_dense(np.array([[5, -1]], dtype=np.int64), np.array([0], dtype=np.int64))
