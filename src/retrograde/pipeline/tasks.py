"""Tasks: what one worker does for one chunk of a tier (a loopy group's propagation is in
`pipeline.propagation`).

A task takes its worker's state (`worker.WorkerState`), a `StoreRef` (the store's absolute
path, its driver's solve attempt and plan), and names its tiers and chunk; it opens the store
itself and returns
small summaries. It knows nothing about dask, so the same function runs in-process and on any
cluster that shares the store's file system. Before it writes, the store checks that the
attempt is still the current one (`Store.begin_attempt`): a task left running on a cluster by
a killed driver writes nothing once a newer solve started.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.data import encoding, packing
from retrograde.data.store import Store, StoreRef, chunk_checksum
from retrograde.errors import DamagedStore, StoreError
from retrograde.games.base import Expansion
from retrograde.games.capabilities import costs_of
from retrograde.pipeline.scratch import Scratch
from retrograde.pipeline.sizing import BATCH, KEPT_VALUES_BYTES, values_bytes
from retrograde.pipeline.worker import WorkerState
from retrograde.solvers import loopy
from retrograde.solvers.kernels import NO_MOVES, OVERFLOW, UNDECIDED_CHILD, solve_rows
from retrograde.solvers.members import Members, take_codes

FAULTS = {NO_MOVES: "has no moves but is not terminal", UNDECIDED_CHILD: "has an unsolved child",
          OVERFLOW: "has a remoteness too large for the store's remoteness dtype"}
#: How many wrong positions a verify task reports by name.
EXAMPLES = 5


class ChildValues:
    """The values of solved tiers a task reads (its child tiers, or those a loopy group leads
    out to), positions only: the tiers' indices concatenated, numbered densely where a value is
    stored (`Members`, 2 bits an index), and the outcome and remoteness of each, after a slot 0
    of no value; the remoteness in the narrowest dtype its values fit (a byte, below 256). A game
    keeping one position per symmetry class stores about 1 index in 8, so this holds
    0.25 + (1 + r) / 8 bytes an index instead of 1 + r. `locate` turns an expansion's
    child references into dense slots; `sizing.values_bytes` is its size. Read chunk by chunk,
    twice (the outcomes number the positions, then the values go in place): the tiers are never
    held unpacked, nor the values twice."""

    def __init__(self, store: Store, names: tuple[str, ...]):
        self.offsets = np.zeros(len(names), dtype=np.int64)
        total = 0
        for j, name in enumerate(names):
            self.offsets[j], total = total, total + store.plan.tier(name).size
        self.members = Members(0, total)
        chunks = [(j, name, chunk, *store.plan.chunking(name).bounds(chunk))
                  for j, name in enumerate(names) for chunk in range(store.plan.chunking(name).count)]
        for j, name, chunk, start, stop in chunks:  # number the positions: the outcomes alone
            self.members.mark_codes(int(self.offsets[j]) + start, store.read_chunk_outcome(name, chunk), stop - start)
        count = self.members.number()
        self.outcome = np.zeros(count + 1, dtype=np.uint8)  # slot 0: no value (an unsolved child)
        self.remoteness = np.zeros(count + 1, dtype=np.uint8)  # the narrowest that fits, widened if need be
        slot = 1
        for j, name, chunk, start, stop in chunks:  # then the values, in place (checked above)
            packed, remoteness = store.read_chunk_raw(name, chunk, checked=False)
            if remoteness.size and remoteness.max() > np.iinfo(self.remoteness.dtype).max:
                self.remoteness = self.remoteness.astype(remoteness.dtype)
            slot = take_codes(packed, remoteness, stop - start, self.outcome, self.remoteness, slot)

    @property
    def nbytes(self) -> int:
        return self.members.nbytes + self.outcome.nbytes + self.remoteness.nbytes

    def locate(self, children: np.ndarray, base: int) -> None:
        """References at or above `base` in an expansion's rows name index ref - base of the
        tiers: make them base + their value's slot (base + 0 where none is stored), in place."""
        self.members.locate(children, base)


def solved_values(worker: WorkerState, store: Store, names: tuple[str, ...]) -> ChildValues:
    """The values of solved tiers `names`, kept by the worker (see KEPT_VALUES_BYTES); keyed by
    the tiers' data folder times too, so that a rewritten store is read again."""
    kept: OrderedDict[tuple, ChildValues] = worker.slot("child-values", OrderedDict)
    key = (store.location, names, _stamp(store, names))
    if key in kept:
        kept.move_to_end(key)
        return kept[key]
    need = values_bytes(sum(store.plan.tier(name).size for name in names),
                        costs_of(store.game).position_share, 1 + np.dtype(store.plan.remoteness_dtype).itemsize)
    while kept and (len(kept) >= 2 or need + sum(values.nbytes for values in kept.values()) > KEPT_VALUES_BYTES):
        kept.popitem(last=False)
    kept[key] = values = ChildValues(store, names)
    return values


def _stamp(store: Store, names: tuple[str, ...]) -> tuple[int, ...]:
    return tuple((store.path / "tiers" / name / array / "c").stat().st_mtime_ns
                 if (store.path / "tiers" / name / array / "c").exists() else 0
                 for name in names for array in ("outcome", "remoteness"))


def _evaluate_chunk(worker: WorkerState, store: Store, tier_name: str, chunk: int, *, recorded: bool = True):
    """Recompute a chunk's values from the rules and the stored values of its child tiers.

    With `recorded`, the child tiers must be recorded as solved. Solve tasks pass
    False: the scheduler runs them after the tasks that wrote their children, whose
    records the driver may not have written yet; an unsolved child still shows as
    a fault (its outcome is 0).
    """
    tier = store.game.tier(tier_name)
    for child in tier.children:
        if recorded and child != tier_name:
            store.require_solved(child)
    children = solved_values(worker, store, tier.children)
    start, stop = store.plan.chunking(tier_name).bounds(chunk)
    expansion = store.game.expand(tier, start, stop, children.offsets)
    children.locate(expansion.children, 0)
    values = solve_rows(expansion.primitive, expansion.children, children.outcome, children.remoteness,
                        np.dtype(store.plan.remoteness_dtype))
    return start, stop, values


def describe_position(store: Store, tier_name: str, index: int) -> str:
    position = store.game.position_at(store.game.tier(tier_name), index)
    return f"{tier_name}[{index}]" + ("" if position is None else f" {store.game.format(position)!r}")


def chunk_summary(store: Store, tier_name: str, chunk: int, outcome: np.ndarray,
             written: dict[str, str]) -> dict[str, Any]:
    """A written chunk's record for the driver: the indices it holds, the positions of each value
    it stands for (a representative counts its whole symmetry class), and `written`'s checksum
    and stored digest."""
    start, stop = store.plan.chunking(tier_name).bounds(chunk)
    sizes = store.game.orbit_sizes(store.game.tier(tier_name), start, stop, outcome)

    def count(code: int) -> int:
        hits = outcome == code
        return int(np.count_nonzero(hits) if sizes is None else sizes[hits].sum(dtype=np.int64))

    return {"tier": tier_name, "chunk": chunk, "positions": int(outcome.size),
            "win": count(oc.WIN), "loss": count(oc.LOSS), "draw": count(oc.DRAW), **written}


def solve_chunk(worker: WorkerState, ref: StoreRef, tier_name: str, chunk: int) -> list[dict[str, Any]]:
    """Solve one chunk of a loop-free tier whose child tiers are solved; write it; return its counts."""
    with ref.open() as store:
        start, _, (outcome, remoteness, faults) = _evaluate_chunk(worker, store, tier_name, chunk, recorded=False)
        bad = np.flatnonzero(faults)
        if bad.size:
            raise StoreError(f"store {ref.location!r}: position {describe_position(store, tier_name, start + int(bad[0]))} "
                             f"{FAULTS[int(faults[bad[0]])]}")
        written = store.write_chunk(tier_name, chunk, outcome, remoteness)
    return [chunk_summary(store, tier_name, chunk, outcome, written)]


def settle_chunk(worker: WorkerState, ref: StoreRef, tier_names: tuple[str, ...], tier_name: str,
                 chunk: int) -> list:
    """First pass over one chunk of a loopy group's tier (see `solvers.loopy`), written to a
    scratch file of the chunk (its presence records it); chunks run in parallel."""
    with ref.open() as store:
        Scratch(store).write_first_pass(tier_name, chunk, *first_pass(worker, store, tier_names, tier_name, chunk))
    return []  # nothing for the driver to record: the scratch file is the record


def first_pass(worker: WorkerState, store: Store, tier_names: tuple[str, ...], tier_name: str,
               chunk: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(outcome, remoteness, pending) of one chunk of a loopy group's tier after the first pass:
    terminal values, values from the already solved tiers it leads out to, and counts of
    children inside the group."""
    size = sum(store.plan.tier(name).size for name in tier_names)
    tier = store.game.tier(tier_name)
    outside = tuple(c for c in tier.children if c not in tier_names)
    out = solved_values(worker, store, outside)
    where = dict(zip(outside, out.offsets))
    offsets = np.array([0 if c in tier_names else size + int(where[c]) for c in tier.children], dtype=np.int64)
    start, stop = store.plan.chunking(tier_name).bounds(chunk)
    outcome = np.zeros(stop - start, dtype=np.uint8)
    remoteness = np.zeros(stop - start, dtype=np.dtype(store.plan.remoteness_dtype))
    pending = np.zeros(stop - start, dtype=np.uint8)
    buffers = Expansion.buffers(min(BATCH, stop - start), store.game.max_moves)
    if loopy.first_pass_chunk(store.game.loopy.expand_kernel(tier, tier_names), start, stop, offsets,
                              (buffers.primitive, buffers.children), out.members, size, out.outcome, out.remoteness,
                              outcome, remoteness, pending, describe=lambda i: describe_position(store, tier_name, start + i)):
        raise StoreError(f"store {store.location!r}: a position of {tier_name} has no moves but is "
                         f"not terminal, or has an unsolved child")
    return outcome, remoteness, pending


def verify_chunk(worker: WorkerState, ref: StoreRef, tier_name: str, chunk: int) -> dict[str, Any]:
    """Re-check every position of a chunk against the rules and its children (SPEC §5), a
    draw's or unreachable index's remoteness (0), and the chunk's record (checksum and counts).
    In the "one-ply" encoding the stored arrays must also be exactly the encoding of the values
    they decode to (`data.encoding`: a wrong fill or s, or a wrong half flag, is a wrong index).
    Damage that stops the check (an undecodable chunk, here or in a child tier) is returned
    in `damaged`, never raised."""
    with ref.open() as store:
        start, stop = store.plan.chunking(tier_name).bounds(chunk)
        damaged = []
        try:
            record = store.record(tier_name).chunks[chunk]
            try:
                store.check_stored(tier_name, chunk)
            except DamagedStore as exc:  # reported; its values are still checked, position by position
                damaged.append(str(exc))
            packed, stored_remoteness = store.read_chunk_raw(tier_name, chunk, checked=False)
            stored = store.read_chunk_stored(tier_name, chunk, checked=False) if store.one_ply else None
            _, _, (outcome, remoteness, faults) = _evaluate_chunk(worker, store, tier_name, chunk)
        except DamagedStore as exc:
            return {"tier": tier_name, "chunk": chunk, "positions": 0, "wrong": 0, "examples": [],
                    "checksum_ok": True, "damaged": [*damaged, str(exc)]}
        stored_outcome = packing.unpack(packed, stop - start)
        decided = (outcome == oc.WIN) | (outcome == oc.LOSS)
        wrong = ((stored_outcome != outcome) | (faults != 0) | (decided & (stored_remoteness != remoteness))
                 | (~decided & (stored_remoteness != 0)))
        wrong_value = wrong.copy()
        if stored is not None:  # the arrays as stored: exactly the encoding of what they decode to
            codes, s, half = encoding.encode(stored_outcome, stored_remoteness)
            stored_codes = packing.unpack(stored[0], stop - start)
            wrong |= (stored_codes != codes) | (stored[1] != s)
            if bool(stored[2][0]) != half:
                damaged.append(f"store {ref.location!r}: tier {tier_name} chunk {chunk}: its half flag says "
                               f"{bool(stored[2][0])}, its values {half}")
        bad = np.flatnonzero(wrong)
        examples = [
            f"{describe_position(store, tier_name, start + int(i))}: stored "
            f"{oc.NAMES.get(int(stored_outcome[i]), 'none')}/{int(stored_remoteness[i])}, "
            f"rules give {oc.NAMES.get(int(outcome[i]), 'none')}/{int(remoteness[i])}" if wrong_value[i] else
            f"{describe_position(store, tier_name, start + int(i))}: stored code {int(stored_codes[i])} and s "
            f"{int(stored[1][i])}, the encoding of the chunk's values {int(codes[i])} and {int(s[i])}"
            for i in bad[:EXAMPLES]
        ]
        checksum_ok = record is not None and record["checksum"] == chunk_checksum(packed, stored_remoteness)
        counts = chunk_summary(store, tier_name, chunk, stored_outcome, {})
        if record is not None and any(record[key] != counts[key] for key in ("win", "loss", "draw")):
            damaged.append(f"store {ref.location!r}: tier {tier_name} chunk {chunk}: its record counts "
                           f"{record['win']}/{record['loss']}/{record['draw']} won/lost/drawn positions, the "
                           f"data {counts['win']}/{counts['loss']}/{counts['draw']}")
    return {"tier": tier_name, "chunk": chunk, "positions": stop - start, "wrong": int(bad.size),
            "examples": examples, "checksum_ok": checksum_ok, "damaged": damaged}
