"""pipeline.tasks.ChildValues and solved_values: the values of solved tiers a task reads, positions
only and held once, against the tiers read whole through zarr (Store.read_tier), and the per-process
keeping of those sets within KEPT_VALUES_BYTES."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from retrograde.data.store import Store
from retrograde.pipeline import tasks
from retrograde.pipeline.worker import WorkerState
from retrograde.pipeline.tasks import ChildValues, solved_values

GAME = ("quixo", {"size": 3})
CHUNK = 256  # several chunks a tier, some of them short


@pytest.fixture
def store(solved):
    with Store.open(solved(*GAME, chunk_size=CHUNK)) as opened:
        yield opened


def test_each_index_finds_its_stored_value(store):
    names = ("m3o2", "m2o2", "m4o4")
    values = ChildValues(store, names)
    assert values.outcome[0] == 0 and values.remoteness[0] == 0  # slot 0: no value
    base = 1000  # references below base are left alone (an expansion's in-group children)
    offset = 0
    for name in names:
        outcome, remoteness = store.read_tier(name)
        size = outcome.size
        refs = np.full((size, 3), -1, dtype=np.int64)
        refs[:, 0] = base + offset + np.arange(size)
        refs[:, 1] = 7
        values.locate(refs, base)
        slots = refs[:, 0] - base
        assert (slots[outcome == 0] == 0).all()
        held = outcome != 0
        assert (slots[held] > 0).all() and np.unique(slots[held]).size == np.count_nonzero(held)
        assert (values.outcome[slots] == outcome).all()
        assert (values.remoteness[slots[held]] == remoteness[held]).all()
        assert (refs[:, 1] == 7).all() and (refs[:, 2] == -1).all()
        offset += size
    stored = sum(int(np.count_nonzero(store.read_tier(name)[0])) for name in names)
    assert values.outcome.size == values.remoteness.size == stored + 1  # each value once
    # The store keeps 2 bytes of remoteness; these fit 1.
    assert store.plan.remoteness_dtype == "uint16" and values.remoteness.dtype == np.uint8
    assert values.nbytes == values.members.nbytes + (stored + 1) * 2


def test_remoteness_over_a_byte_widens_the_set(store, monkeypatch):
    """A chunk whose remoteness does not fit a byte (none of 3x3 Quixo's does: its values are
    raised by 300 as they are read) widens the set to the store's dtype, keeping what was read."""
    names = ("m3o2", "m2o2")
    read = store.read_chunk_raw
    raised = ("m2o2", 1)

    def raising(name, chunk, *, checked=True):
        packed, remoteness = read(name, chunk, checked=checked)
        return packed, remoteness + 300 * ((name, chunk) == raised)

    monkeypatch.setattr(store, "read_chunk_raw", raising)
    values = ChildValues(store, names)
    assert values.remoteness.dtype == np.uint16
    offset = 0
    for name in names:
        outcome, remoteness = store.read_tier(name)
        start, stop = store.plan.chunking(name).bounds(raised[1])
        if name == raised[0]:
            remoteness[start:stop] += 300
        refs = np.full((outcome.size, 2), -1, dtype=np.int64)
        refs[:, 0] = offset + np.arange(outcome.size)
        values.locate(refs, 0)
        held = outcome != 0
        assert (values.remoteness[refs[held, 0]] == remoteness[held]).all()
        offset += outcome.size
    assert values.remoteness.max() >= 300


def test_sets_are_kept_within_the_budget(store, monkeypatch):
    worker = WorkerState()
    kept = worker.slot("child-values", OrderedDict)
    first = solved_values(worker, store, ("m3o2",))
    assert solved_values(worker, store, ("m3o2",)) is first  # read once per worker
    second = solved_values(worker, store, ("m2o2",))
    assert solved_values(worker, store, ("m3o2",)) is first and len(kept) == 2
    third = solved_values(worker, store, ("m4o4",))  # at most 2 sets: the least recently used goes
    assert list(kept.values()) == [first, third]
    assert solved_values(worker, store, ("m2o2",)) is not second
    monkeypatch.setattr(tasks, "KEPT_VALUES_BYTES", 0)  # every set over the budget: held alone
    solved_values(worker, store, ("m3o2",))
    assert len(kept) == 1
