"""A store's tiers as a search's tablebase (data/tablebase.py): its buffers hold every tier's
values, copied chunk by chunk, and each tier once."""

from __future__ import annotations

import numpy as np

from retrograde.data import packing
from retrograde.data.store import Store
from retrograde.data.tablebase import StoreTablebase


def test_a_tablebase_holds_every_chunk_of_its_tiers(solved):
    """data/tablebase.py: a search's tablebase copies each tier chunk by chunk into its buffers:
    with tic-tac-toe cut in chunks of 64, every tier's outcomes and remoteness read from the
    buffers (at the tier's start) are the store's."""
    store = Store.open(solved("tictactoe", chunk_size=64))
    try:
        names = [tier.name for tier in store.plan.tiers]
        assert max(store.plan.chunking(name).count for name in names) >= 5
        tablebase = StoreTablebase(store, {name: k for k, name in enumerate(names)}, len(names))
        tablebase.require(names)
        packed, remoteness, start = tablebase.arrays()
        for k, name in enumerate(names):
            outcome, values = store.read_tier(name)
            base = int(start[k])
            assert np.array_equal(packing.unpack(packed[base // 4:], outcome.size), outcome), name
            assert np.array_equal(remoteness[base:base + values.size], values), name
    finally:
        store.close()


def test_a_tablebase_loads_each_tier_once(solved):
    """data/tablebase.py: asking twice for a tier already held (the first, at buffer start 0)
    loads nothing more: the buffers hold its positions once."""
    store = Store.open(solved("tictactoe"))
    try:
        name = max(store.plan.tiers, key=lambda tier: tier.size).name
        tablebase = StoreTablebase(store, {name: 0}, 1)
        tablebase.require([name])
        tablebase.require([name])
        assert tablebase.held == -(-store.plan.tier(name).size // 4) * 4
    finally:
        store.close()
