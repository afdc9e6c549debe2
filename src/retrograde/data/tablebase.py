"""A store's solved tiers as a tablebase that search kernels probe (`search.tablebase`).

Each loaded tier occupies `size` consecutive positions (rounded up to a multiple of 4) of the
two growing buffers. A position costs 0.25 + remoteness itemsize bytes (2.25 for uint16
remoteness: a whole store of 43,046,721 positions takes 97 MB). Tiers are loaded when a search
first may reach them and kept; a tier that would take the buffers past `max_bytes` is not
loaded and is searched instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import numpy as np

from retrograde.data.store import SOLVED, Store
from retrograde.search.tablebase import Tablebase


class StoreTablebase(Tablebase):
    """The solved tiers of `store`, by the slots a search numbers them with (`slots`: tier name
    -> slot, `count` slots), loaded on demand."""

    #: Most bytes the buffers may hold (both arrays together).
    max_bytes: ClassVar[int] = 1 << 30

    @classmethod
    def for_search(cls, search, store: Store) -> StoreTablebase:
        """The tablebase of `store` laid out by `search`'s slots (`Search.tier_slots`)."""
        return cls(store, search.tier_slots(), search.slots)

    def __init__(self, store: Store, slots: dict[str, int], count: int):
        super().__init__(count, np.dtype(store.plan.remoteness_dtype))
        self.store = store
        self.held = 0  # positions in use, a multiple of 4
        solved = {tier.name for tier in store.plan.tiers if store.record(tier.name).status == SOLVED}
        self._slots = {name: slot for name, slot in slots.items() if name in solved}
        self._skipped: set[str] = set()

    @property
    def bytes_per_position(self) -> float:
        return 0.25 + self.remoteness.itemsize

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
        chunking = self.store.plan.chunking(name)
        for chunk in range(chunking.count):
            first, _ = chunking.bounds(chunk)
            packed, remoteness = self.store.read_chunk_raw(name, chunk)
            self.packed[(at + first) // 4:(at + first) // 4 + packed.size] = packed
            self.remoteness[at + first:at + first + remoteness.size] = remoteness
