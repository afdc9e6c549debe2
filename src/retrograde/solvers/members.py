"""Which indices of a loopy group hold positions, numbered densely, so that the propagation's
working state holds positions only (a game that keeps one position per symmetry class leaves
about 7 of 8 indices as holes).

One bit an index, per tier, set where the first pass found a position (a value, or children
inside the group still to wait for), in 64-index words; `before[w]` counts the positions of
the group before word w. A position's dense number is `before[word]` plus the set bits below it
in its word; the other way is a binary search over `before`. 2 bits an index in all. No I/O.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.ranking_arrays import POPCOUNT16
from retrograde.jit import njit


class Members:
    """The positions of a loopy group's tiers (sizes `sizes`, in group order), marked chunk by
    chunk with `mark`, then numbered with `number`."""

    def __init__(self, sizes: list[int]):
        self.word_base = np.cumsum([0] + [-(-size // 64) for size in sizes]).astype(np.int64)
        self.words = np.zeros(int(self.word_base[-1]), dtype=np.int64)
        self.before = np.zeros_like(self.words)
        self.dense_base = np.zeros(len(sizes) + 1, dtype=np.int64)

    def mark(self, tier: int, start: int, held: np.ndarray) -> None:
        """Mark indices start.. of tier number `tier` where `held` is True."""
        _mark(self.words, int(self.word_base[tier]), start, held)

    def number(self) -> int:
        """Number the marked positions in group order; returns how many there are."""
        total = _count_before(self.words, self.before)
        bases = [int(self.before[w]) if w < self.words.size else total for w in self.word_base[:-1]]
        self.dense_base[:] = bases + [total]
        return total

    @property
    def count(self) -> int:
        return int(self.dense_base[-1])

    def to_dense(self, refs: np.ndarray, group_starts: np.ndarray) -> None:
        """Turn a parents kernel's rows of group indices (each row ending at its first -1) into
        dense numbers, in place; `group_starts[t]` is where tier t starts in the group's indices.

        :raises ValueError: a reference to an index that holds no position (a game's bug)."""
        if _to_dense(self.words, self.before, self.word_base, group_starts, refs):
            raise ValueError("a parent reference names an index the first pass found no position at")

    def to_full(self, tier: int, dense: np.ndarray) -> np.ndarray:
        """The indices within tier number `tier` of its positions numbered `dense`."""
        out = np.empty(dense.size, dtype=np.int64)
        _to_full(self.words, self.before, int(self.word_base[tier]), int(self.word_base[tier + 1]), dense, out)
        return out

    def scatter(self, tier: int, start: int, stop: int, outcome: np.ndarray,
                remoteness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Indices start..stop-1 of tier number `tier` as full arrays: the dense values at its
        positions, 0 (no position) at the other indices."""
        out_outcome = np.zeros(stop - start, dtype=outcome.dtype)
        out_remoteness = np.zeros(stop - start, dtype=remoteness.dtype)
        _scatter(self.words, self.before, int(self.word_base[tier]), start, stop, outcome, remoteness,
                 out_outcome, out_remoteness)
        return out_outcome, out_remoteness


@njit
def _popcount(word):
    return POPCOUNT16[word & 0xFFFF] + POPCOUNT16[(word >> 16) & 0xFFFF] + POPCOUNT16[(word >> 32) & 0xFFFF] + \
        POPCOUNT16[(word >> 48) & 0xFFFF]


@njit
def _below(word, bit):
    """Set bits of `word` below `bit` (0..63)."""
    return _popcount(word & ((np.int64(1) << bit) - 1))  # bit 63: the shift wraps, the mask is right


@njit
def _mark(words, base, start, held):
    for i in range(held.shape[0]):
        if held[i]:
            j = start + i
            words[base + (j >> 6)] |= np.int64(1) << (j & 63)


@njit
def _count_before(words, before):
    total = 0
    for w in range(words.shape[0]):
        before[w] = total
        total += _popcount(words[w])
    return total


@njit
def _to_dense(words, before, word_base, group_starts, refs):
    """Returns the number of references to unmarked indices (left as they were)."""
    missing = 0
    for row in range(refs.shape[0]):
        for j in range(refs.shape[1]):
            q = refs[row, j]
            if q < 0:
                break
            t = group_starts.shape[0] - 1
            while group_starts[t] > q:
                t -= 1
            local = q - group_starts[t]
            w = word_base[t] + (local >> 6)
            bit = local & 63
            if (words[w] >> bit) & 1 == 0:
                missing += 1
                continue
            refs[row, j] = before[w] + _below(words[w], bit)
    return missing


@njit
def _to_full(words, before, word_lo, word_hi, dense, out):
    for i in range(dense.shape[0]):
        d = dense[i]
        lo, hi = word_lo, word_hi - 1
        while lo < hi:  # the last word with before <= d: the one holding d's bit
            mid = (lo + hi + 1) >> 1
            if before[mid] <= d:
                lo = mid
            else:
                hi = mid - 1
        left = d - before[lo]
        word = words[lo]
        for bit in range(64):
            if (word >> bit) & 1:
                if left == 0:
                    out[i] = (lo - word_lo) * 64 + bit
                    break
                left -= 1


@njit
def _scatter(words, before, base, start, stop, outcome, remoteness, out_outcome, out_remoteness):
    for i in range(stop - start):
        j = start + i
        w = base + (j >> 6)
        bit = j & 63
        if (words[w] >> bit) & 1:
            d = before[w] + _below(words[w], bit)
            out_outcome[i] = outcome[d]
            out_remoteness[i] = remoteness[d]
