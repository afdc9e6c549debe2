"""Solved tiers of a store, held in flat arrays that search kernels index: probing inside search.

Each loaded tier occupies `size` consecutive positions (rounded up to a multiple of 4) of
two growing buffers: the store's 2-bit packed outcomes as they are on disk (a byte holds 4
positions) and its remoteness values. `start[slot]` is where a tier begins, -1 if it is not
held. A position costs 0.25 + remoteness itemsize bytes (2.25 for uint16 remoteness: a whole
4x4 Quixo store, 43,046,721 positions, takes 97 MB). Tiers are loaded when a search first
may reach them and kept; a tier that would take the buffers past `max_bytes` is not loaded
and is searched instead.
"""

from __future__ import annotations

from typing import ClassVar
from collections.abc import Iterable

import numpy as np

from retrograde.data.store import SOLVED
from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS, WIN

#: "No exact value here": a score no search returns.
UNKNOWN = -(1 << 62)


class Tablebase:
    """The solved tiers of `store` (None: an empty tablebase) by slot, loaded on demand."""

    #: Most bytes the buffers may hold (both arrays together).
    max_bytes: ClassVar[int] = 1 << 30

    def __init__(self, store, slots: dict[str, int], count: int):
        self.store = store
        self.start = np.full(count, -1, dtype=np.int64)
        dtype = np.dtype(store.plan.remoteness_dtype) if store is not None else np.dtype(np.uint16)
        self.packed = np.zeros(0, dtype=np.uint8)
        self.remoteness = np.zeros(0, dtype=dtype)
        self.held = 0  # positions in use, a multiple of 4
        solved = set() if store is None else {
            tier.name for tier in store.plan.tiers if store.record(tier.name).status == SOLVED}
        self._slots = {name: slot for name, slot in slots.items() if name in solved}
        self._skipped: set[str] = set()

    @property
    def bytes_per_position(self) -> float:
        return 0.25 + self.remoteness.itemsize

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(packed outcomes, remoteness, start) for the kernels."""
        return self.packed, self.remoteness, self.start

    def require(self, names: Iterable[str]) -> None:
        """Load the solved tiers among `names` that are not held yet, while they fit."""
        for name in names:
            slot = self._slots.get(name)
            if slot is None or self.start[slot] >= 0 or name in self._skipped:
                continue
            size = -(-self.store.plan.tier(name).size // 4) * 4
            if (self.held + size) * self.bytes_per_position > self.max_bytes:
                self._skipped.add(name)
                continue
            self._reserve(self.held + size)
            self._load(name, self.held)
            self.start[slot] = self.held
            self.held += size

    def _reserve(self, positions: int) -> None:
        """Grow the buffers (doubling, within max_bytes) to hold `positions`."""
        if positions <= self.remoteness.size:
            return
        capacity = max(positions, min(2 * self.remoteness.size, int(self.max_bytes / self.bytes_per_position)))
        packed = np.zeros(capacity // 4, dtype=np.uint8)
        remoteness = np.zeros(capacity, dtype=self.remoteness.dtype)
        packed[:self.held // 4] = self.packed[:self.held // 4]
        remoteness[:self.held] = self.remoteness[:self.held]
        self.packed, self.remoteness = packed, remoteness

    def _load(self, name: str, at: int) -> None:
        """Copy a tier's stored bytes, chunk by chunk, to position `at` of the buffers."""
        plan = self.store.plan.tier(name)
        for chunk in range(plan.n_chunks):
            first, _ = plan.chunk_bounds(chunk)
            packed, remoteness = self.store.read_chunk_raw(name, chunk)
            self.packed[(at + first) // 4:(at + first) // 4 + packed.size] = packed
            self.remoteness[at + first:at + first + remoteness.size] = remoteness


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
