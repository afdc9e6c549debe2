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

from retrograde.data import packing
from retrograde.data.store import SOLVED, Store
from retrograde.search.base import Search
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


class StoredScores:
    """Every move's exact value at many positions of a store at once: a search one ply deep whose
    every child is read from the store's tablebase (`Search.scores_many`), the positions' own values
    read from it too. What move quality measures agents with, where the game's search batches
    (`Search.rows_at`) and reads stores, and the tiers it needs fit the tablebase."""

    def __init__(self, store: Store):
        self.store = store
        self.search = store.game.search
        self.tablebase = StoreTablebase.for_search(self.search, store)
        self.search.tablebase = self.tablebase
        self.slots = self.search.tier_slots()
        #: The evaluation at the leaves, never used: every child is decided or stored.
        self.evaluation = "zero" if "zero" in self.search.evals else self.search.evals[0]

    @classmethod
    def of(cls, store: Store) -> StoredScores | None:
        """The store's, or None where the game's search takes one position at a time or reads no store."""
        search = store.game.search
        if search is None or search.reads_no_store or type(search).rows_at is Search.rows_at:
            return None
        return cls(store)

    def holds(self, names: Iterable[str]) -> bool:
        """Load the tiers `names` and their child tiers, where they all fit; whether they are held."""
        plan = self.store.plan
        needed = list(dict.fromkeys(name for tier in names for name in (tier, *plan.tier(tier).children)))
        slots = self.slots
        missing = [name for name in needed if self.tablebase.start[slots[name]] < 0]
        size = sum(-(-plan.tier(name).size // 4) * 4 for name in missing)
        if (self.tablebase.held + size) * self.tablebase.bytes_per_position > self.tablebase.max_bytes:
            return False
        self.tablebase.require(missing)
        return all(self.tablebase.start[slots[name]] >= 0 for name in needed)

    def values(self, tier: str, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Outcome codes and remoteness stored at `indices` of a held tier."""
        at = self.tablebase.start[self.slots[tier]] + np.asarray(indices, dtype=np.int64)
        codes = packing.unpack_at(self.tablebase.packed[at >> 2], at)
        return codes.astype(np.int8), self.tablebase.remoteness[at].astype(np.int64)

    def rows(self, tier: str, indices: np.ndarray) -> np.ndarray:
        """The search's root states of `indices` of `tier`."""
        return self.search.rows_at(self.store.plan.tier(tier), indices)

    def move_scores(self, rows: np.ndarray) -> np.ndarray:
        """Every move's exact score at each row (`Search.scores_many`, one ply deep), every child held."""
        return self.search.scores_many(rows, 1, self.evaluation)
