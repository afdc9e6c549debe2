"""Which indices of a range of a loopy group hold positions, numbered densely, so that the
propagation's working state holds positions only (a game that keeps one position per symmetry
class leaves about 7 of 8 indices as holes).

A range lo..hi-1 of group indices (the group's tiers concatenated in order): the whole group,
or the part one partition of a split propagation owns. One bit an index, set where the first
pass found a position (a value, or children inside the group still to wait for), in 64-index
words from lo; `before[w]` counts the range's positions before word w. A position's dense
number is `before[word]` plus the set bits below it in its word; the other way is a binary
search over `before`. 2 bits an index in all. No I/O.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.bits import popcount as _popcount
from retrograde.jit import njit


class Members:
    """The positions among group indices lo..hi-1, marked chunk by chunk with `mark`, then
    numbered with `number`."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self.words = np.zeros(-(-(hi - lo) // 64), dtype=np.int64)
        self.before = np.zeros_like(self.words)
        self.count = 0

    @property
    def nbytes(self) -> int:
        return self.words.nbytes + self.before.nbytes

    def mark(self, start: int, held: np.ndarray) -> None:
        """Mark group indices start.. where `held` is True."""
        _mark(self.words, start - self.lo, held)

    def mark_codes(self, start: int, packed: np.ndarray, n: int) -> None:
        """Mark group indices start..start+n-1 where the 2-bit codes `packed` holds (4 a byte, as
        `data.packing` packs outcomes) are not 0: a stored chunk's positions, read packed."""
        _mark_codes(self.words, start - self.lo, packed, n)

    def number(self) -> int:
        """Number the marked positions in index order; returns how many there are."""
        self.count = int(_count_before(self.words, self.before))
        return self.count

    def rank(self, index: int) -> int:
        """The dense number of the first position at group index `index` (lo..hi) or after."""
        if index >= self.hi:
            return self.count
        local = index - self.lo
        word = int(self.words[local >> 6])
        return int(self.before[local >> 6]) + int(_below(np.int64(word), local & 63))

    def to_dense(self, refs: np.ndarray) -> None:
        """Turn rows of group indices in the range (each row ending at its first -1) into
        dense numbers, in place.

        :raises ValueError: a reference to an index outside the range or holding no position
            (a game's bug)."""
        if _to_dense(self.words, self.before, self.lo, self.hi, refs):
            raise ValueError("a parent reference names an index the first pass found no position at")

    def locate(self, refs: np.ndarray, base: int) -> None:
        """In rows of references (each ending at its first -1), turn each reference at or above
        `base`, naming group index ref - base, into base + 1 + its position's dense number, or
        base where no position is (slot 0 of a caller's arrays: no value); in place."""
        locate_refs(self.words, self.before, self.lo, self.hi, refs, base)

    def to_full(self, dense: np.ndarray) -> np.ndarray:
        """The group indices of the positions numbered `dense`."""
        out = np.empty(dense.size, dtype=np.int64)
        _to_full(self.words, self.before, self.lo, dense, out)
        return out

    def scatter(self, start: int, stop: int, outcome: np.ndarray,
                remoteness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Group indices start..stop-1 as full arrays: the dense values at their positions,
        0 (no position) at the other indices."""
        out_outcome = np.zeros(stop - start, dtype=outcome.dtype)
        out_remoteness = np.zeros(stop - start, dtype=remoteness.dtype)
        _scatter(self.words, self.before, start - self.lo, outcome, remoteness, out_outcome, out_remoteness)
        return out_outcome, out_remoteness


@njit
def _below(word, bit):
    """Set bits of `word` below `bit` (0..63)."""
    return _popcount(word & ((np.int64(1) << bit) - 1))  # bit 63: the shift wraps, the mask is right


@njit
def _mark(words, start, held):
    for i in range(held.shape[0]):
        if held[i]:
            j = start + i
            words[j >> 6] |= np.int64(1) << (j & 63)


@njit
def _mark_codes(words, start, packed, n):
    for i in range(n):
        if (packed[i >> 2] >> (2 * (i & 3))) & 3:
            j = start + i
            words[j >> 6] |= np.int64(1) << (j & 63)


@njit
def take_codes(packed, values, n, out_codes, out_values, slot):
    """Append the codes of `packed` (as `Members.mark_codes` reads them) that are not 0, of its
    first n, to out_codes from `slot` on, and `values` at the same indices to out_values, in
    index order (the order `Members` numbers them in); returns the slot after the last."""
    for i in range(n):
        code = (packed[i >> 2] >> (2 * (i & 3))) & 3
        if code:
            out_codes[slot] = code
            out_values[slot] = values[i]
            slot += 1
    return slot


@njit
def _count_before(words, before):
    total = 0
    for w in range(words.shape[0]):
        before[w] = total
        total += _popcount(words[w])
    return total


@njit
def _to_dense(words, before, lo, hi, refs):
    """Returns the number of references to unmarked indices or outside lo..hi-1 (left as they were)."""
    missing = 0
    for row in range(refs.shape[0]):
        for j in range(refs.shape[1]):
            q = refs[row, j]
            if q < 0:
                break
            if q < lo or q >= hi:
                missing += 1
                continue
            local = q - lo
            w = local >> 6
            bit = local & 63
            if (words[w] >> bit) & 1 == 0:
                missing += 1
                continue
            refs[row, j] = before[w] + _below(words[w], bit)
    return missing


@njit
def locate_refs(words, before, lo, hi, refs, base):
    """`Members.locate`'s kernel (the loopy first pass calls it too)."""
    for row in range(refs.shape[0]):
        for j in range(refs.shape[1]):
            q = refs[row, j]
            if q == -1:
                break
            if q < base:
                continue
            index = q - base
            if index < lo or index >= hi:
                refs[row, j] = base
                continue
            local = index - lo
            w = local >> 6
            bit = local & 63
            refs[row, j] = base + ((1 + before[w] + _below(words[w], bit)) if (words[w] >> bit) & 1 else 0)


@njit
def _to_full(words, before, lo, dense, out):
    """Where dense numbers rise (the propagation asks in index order), each search gallops on
    from the last word found: a step, not a binary search over the whole range's words."""
    last = words.shape[0] - 1
    low = 0
    for i in range(dense.shape[0]):
        d = dense[i]
        if i and d < dense[i - 1]:
            low = 0  # out of order: search from the start
        step = 1  # the last word with before <= d is the one holding d's bit; before[low] <= d
        while low + step <= last and before[low + step] <= d:
            low += step
            step <<= 1
        high = min(low + step - 1, last)
        while low < high:
            mid = (low + high + 1) >> 1
            if before[mid] <= d:
                low = mid
            else:
                high = mid - 1
        word = words[low]
        for _ in range(d - before[low]):  # drop the word's lower set bits
            word &= word - 1
        out[i] = lo + low * 64 + _popcount((word & -word) - 1)


@njit
def _scatter(words, before, start, outcome, remoteness, out_outcome, out_remoteness):
    for i in range(out_outcome.shape[0]):
        j = start + i
        w = j >> 6
        bit = j & 63
        if (words[w] >> bit) & 1:
            d = before[w] + _below(words[w], bit)
            out_outcome[i] = outcome[d]
            out_remoteness[i] = remoteness[d]
