"""solvers.members: the dense numbering of a range of a loopy group's positions, against numpy's
own counting (np.flatnonzero over the range's mask)."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde.solvers.members import Members, take_codes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dense_numbers_are_ranks_among_the_marked_indices(seed):
    rng = np.random.default_rng(seed)
    lo = int(rng.integers(0, 300))  # a partition's range starts anywhere (at a chunk start)
    hi = lo + int(rng.integers(1, 1400))
    mask = rng.random(hi - lo) < rng.choice([0.02, 0.13, 0.9])
    members = Members(lo, hi)
    start = lo
    while start < hi:  # marked in chunks of odd lengths, as first-pass files come
        stop = min(hi, start + int(rng.integers(1, 200)))
        members.mark(start, mask[start - lo:stop - lo])
        start = stop
    held = lo + np.flatnonzero(mask)  # group indices of the positions, in dense order
    assert members.number() == members.count == held.size
    for index in [lo, hi, *rng.integers(lo, hi, 20).tolist()]:
        assert members.rank(index) == int(np.count_nonzero(held < index)), index
    # Group indices to dense numbers, in rows ending at -1 (as the parents kernel writes them).
    refs = np.full((held.size + 1, 3), -1, dtype=np.int64)
    refs[:held.size, 0] = held[::-1]
    refs[:held.size, 1] = held
    members.to_dense(refs)
    assert refs[:held.size, 0].tolist() == list(range(held.size))[::-1]
    assert refs[:held.size, 1].tolist() == list(range(held.size))
    assert (refs[:, 2] == -1).all() and refs[held.size, 0] == -1
    # Dense numbers back to group indices.
    assert members.to_full(np.arange(held.size, dtype=np.int64)).tolist() == held.tolist()
    shuffled = rng.permutation(held.size)  # in any order, repeats included
    shuffled = np.concatenate([shuffled, shuffled[: held.size // 2]])
    assert members.to_full(shuffled).tolist() == held[shuffled].tolist()
    # Full arrays of a part of the range: the dense values at positions, 0 at holes.
    outcome = np.arange(1, held.size + 1, dtype=np.int64) % 3 + 1
    remoteness = np.arange(held.size, dtype=np.uint16) * 7
    start, stop = lo + (hi - lo) // 3, hi
    got_outcome, got_remoteness = members.scatter(start, stop, outcome, remoteness)
    expected_outcome = np.zeros(hi - lo, dtype=outcome.dtype)
    expected_remoteness = np.zeros(hi - lo, dtype=remoteness.dtype)
    expected_outcome[held - lo] = outcome
    expected_remoteness[held - lo] = remoteness
    assert got_outcome.tolist() == expected_outcome[start - lo:stop - lo].tolist()
    assert got_remoteness.tolist() == expected_remoteness[start - lo:stop - lo].tolist()


def test_a_reference_to_a_hole_or_outside_the_range_is_refused():
    members = Members(1000, 1130)
    mask = np.zeros(130, dtype=bool)
    mask[[0, 63, 64, 129]] = True
    members.mark(1000, mask)
    assert members.number() == 4
    refs = np.array([[1129, 1063, -1]], dtype=np.int64)
    members.to_dense(refs)
    assert refs.tolist() == [[3, 1, -1]]  # bit 63 of a word, and the first bit of the third word
    assert members.to_full(np.array([0, 1, 2, 3, 1, 3], dtype=np.int64)).tolist() == \
        [1000, 1063, 1064, 1129, 1063, 1129]
    for outside in (1005, 999, 1130, 5):
        with pytest.raises(ValueError, match="no position"):
            members.to_dense(np.array([[outside, -1]], dtype=np.int64))


def test_locate_turns_references_above_a_base_into_value_slots():
    """An expansion's references at or above `base` name indices of the solved tiers: each becomes
    base + 1 + its position's dense number, or base (slot 0, no value) at a hole; the others
    (inside a loopy group, or the negative markers) stay, and a row still ends at -1."""
    rng = np.random.default_rng(5)
    mask = rng.random(500) < 0.2
    members = Members(0, 500)
    members.mark(0, mask)
    members.number()
    dense = np.cumsum(mask) - 1  # each position's dense number (numpy's count)
    base = 1000
    refs = np.full((40, 6), -1, dtype=np.int64)
    expected = refs.copy()
    for row in range(40):
        for j in range(int(rng.integers(0, 6))):
            kind = rng.integers(0, 3)
            if kind == 0:  # inside the group, or a marker
                refs[row, j] = expected[row, j] = int(rng.choice([7, 999, -2, -3, -4]))
            else:
                index = int(rng.integers(0, 500))
                refs[row, j] = base + index
                expected[row, j] = base + (1 + int(dense[index]) if mask[index] else 0)
    refs[0, :3] = [base + int(np.flatnonzero(mask)[0]), -1, base + 3]  # after the first -1: left as is
    expected[0, :3] = [base + 1, -1, base + 3]
    members.locate(refs, base)
    assert refs.tolist() == expected.tolist()


@pytest.mark.parametrize("seed", [0, 1])
def test_packed_codes_mark_and_give_their_positions_values(seed):
    """A stored chunk read packed (2-bit codes, 4 a byte, the first in the low bits): `mark_codes`
    marks the indices whose code is not 0, and `take_codes` appends those codes and the values at
    them in index order, against codes packed here by hand."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 900))
    codes = np.where(rng.random(n) < 0.3, rng.integers(1, 4, n), 0).astype(np.uint8)
    packed = np.zeros(-(-n // 4), dtype=np.uint8)
    for i, code in enumerate(codes.tolist()):
        packed[i // 4] |= code << (2 * (i % 4))
    members = Members(500, 500 + 70 + n)
    members.mark_codes(570, packed, n)
    held = np.flatnonzero(codes)
    assert members.number() == held.size
    assert members.to_full(np.arange(held.size, dtype=np.int64)).tolist() == (570 + held).tolist()
    values = rng.integers(0, 1000, n).astype(np.uint16)
    out_codes = np.full(held.size + 3, 9, dtype=np.uint8)
    out_values = np.zeros(held.size + 3, dtype=np.uint16)
    assert take_codes(packed, values, n, out_codes, out_values, 2) == 2 + held.size
    assert out_codes[2:2 + held.size].tolist() == codes[held].tolist()
    assert out_values[2:2 + held.size].tolist() == values[held].tolist()
    assert out_codes[:2].tolist() == [9, 9] and out_codes[-1] == 9
