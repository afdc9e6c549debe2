"""The store (data/store.py): its cache of decoded chunks, the indices `read_values` takes, and a
plan that lacks a key."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from retrograde.data.store import Store
from retrograde.errors import DamagedStore


def test_the_chunk_cache_keeps_the_chunks_its_budget_holds(solved):
    """data/store.py: a store's decoded-chunk cache drops the least recently used chunk past its
    budget and no more: with room for three chunks, after chunks 0, 1, 2, 3 are read, chunks
    1, 2, 3 are read again without decoding."""
    store = Store.open(solved("tictactoe", chunk_size=64))
    try:
        name = max(store.plan.tiers, key=lambda tier: store.plan.chunking(tier.name).count).name
        assert store.plan.chunking(name).count >= 5
        one = store.read_chunk_raw(name, 0)
        store.cache_bytes = 3 * (one[0].nbytes + one[1].nbytes)
        decoded, read = [], store.read_chunk_stored
        store.read_chunk_stored = lambda tier, chunk, **kw: decoded.append(chunk) or read(tier, chunk, **kw)
        for chunk in (0, 1, 2, 3, 1, 2, 3):
            store.read_values(name, np.array([64 * chunk]))
        assert decoded == [0, 1, 2, 3]
    finally:
        store.close()


def test_read_values_takes_any_sequence_of_indices(solved):
    """data/store.py: `read_values` reads indices given as a list (or any integer array) as it
    reads them given as int64: the same outcomes and remoteness."""
    store = Store.open(solved("tictactoe"))
    try:
        name = max(store.plan.tiers, key=lambda tier: tier.size).name
        wanted = [0, 3, 7]
        expected = store.read_values(name, np.array(wanted, dtype=np.int64))
        for given in (wanted, np.array(wanted, dtype=np.int32)):
            found = store.read_values(name, given)
            assert all(np.array_equal(a, b) for a, b in zip(found, expected))
    finally:
        store.close()


def test_a_plan_without_one_of_its_keys_names_it(solved, tmp_path):
    """data/store.py: a store whose plan lacks a key (here `encoding`) is damaged, and the one line
    names the key."""
    path = tmp_path / "ttt.zarr"
    shutil.copytree(solved("tictactoe"), path)
    document = json.loads((path / "zarr.json").read_text())
    del document["attributes"]["retrograde"]["plan"]["encoding"]
    (path / "zarr.json").write_text(json.dumps(document))
    with pytest.raises(DamagedStore, match="KeyError: 'encoding'"):
        Store.open(path)
