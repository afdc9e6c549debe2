"""Exact values inside search: the flat arrays a search kernel probes, and the probe itself.

A tablebase lays solved tiers out in two buffers, the store's 2-bit packed outcomes as they
are on disk (a byte holds 4 positions) and their remoteness, each tier at `start[slot]` (-1:
not held), slots being the search's numbering of tiers (`Search.slot`). This module holds an
empty one (what a search probes unless it is given a store's: `data.tablebase`) and the kernel
that reads a position's score from them.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS, WIN
from retrograde.search.scores import UNKNOWN



class Tablebase:
    """Buffers holding no tier: every probe says UNKNOWN. Subclasses load tiers on `require`."""

    def __init__(self, slots: int, remoteness_dtype: np.dtype = np.dtype(np.uint16)):
        self.start = np.full(slots, -1, dtype=np.int64)
        self.packed = np.zeros(0, dtype=np.uint8)
        self.remoteness = np.zeros(0, dtype=remoteness_dtype)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(packed outcomes, remoteness, start) for the kernels."""
        return self.packed, self.remoteness, self.start

    def require(self, names: Iterable[str]) -> None:
        """Hold the tiers among `names` that can be held (none here)."""


@njit
def stored_score(packed, remoteness, start, slot, index, ply, win_score):
    """The exact score of position `index` of the tier in `slot`, seen `ply` plies below the
    root (`win_score - ply - remoteness` for a win), or UNKNOWN if the tier is not held or
    the index holds no position."""
    base = start[slot]
    if base < 0:
        return UNKNOWN
    i = base + index
    code = (np.int64(packed[i >> 2]) >> (2 * (i & 3))) & 3
    if code == WIN:
        return win_score - ply - np.int64(remoteness[i])
    if code == LOSS:
        return ply + np.int64(remoteness[i]) - win_score
    if code == DRAW:
        return np.int64(0)
    return UNKNOWN
