"""Tasks: what one worker does for one chunk of a tier (or, for a loopy group's
propagation, for the whole group).

A task takes the store's absolute path, its driver's solve attempt, and names its
tiers and chunk; it opens the store itself and returns small summaries. It knows
nothing about dask, so the same function runs in-process and on any cluster that
shares the store's file system. Before it writes, the store checks that the attempt
is still the current one (`Store.begin_attempt`): a task left running on a cluster by
a killed driver writes nothing once a newer solve started.
"""

from __future__ import annotations

import os
import time
from functools import lru_cache
from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.data import packing
from retrograde.data.store import Store, chunk_checksum, open_store
from retrograde.errors import DamagedStore, RetrogradeError, StoreError
from retrograde.games.base import Expansion
from retrograde.solvers import loopy
from retrograde.solvers.members import Members
from retrograde.solvers.kernels import NO_MOVES, OVERFLOW, UNDECIDED_CHILD, solve_rows

FAULTS = {NO_MOVES: "has no moves but is not terminal", UNDECIDED_CHILD: "has an unsolved child",
          OVERFLOW: "has a remoteness too large for the store's remoteness dtype"}
#: How many wrong positions a verify task reports by name.
EXAMPLES = 5
#: Rows a loopy group expands (or propagates from) at a time: bounds the child-reference buffer.
BATCH = 1 << 16


#: Seconds of propagation between two checkpoints of a loopy group's state (4 bytes a position
#: written, so small groups never pay for one); RETROGRADE_CHECKPOINT_SECONDS overrides it.
CHECKPOINT_SECONDS = 120.0


def checkpoint_seconds() -> float:
    """The driver's checkpoint interval (tasks get it as an argument: workers may run elsewhere)."""
    text = os.environ.get("RETROGRADE_CHECKPOINT_SECONDS", "")
    try:
        seconds = float(text) if text else CHECKPOINT_SECONDS
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise RetrogradeError(f"RETROGRADE_CHECKPOINT_SECONDS={text!r}: must be a number of seconds >= 0")
    return seconds


@lru_cache(maxsize=2)
def _solved_values(location: str, names: tuple[str, ...], stamp: tuple[int, ...]):
    """Values of solved tiers, kept per worker process: the chunks of a tier all read the
    same tiers. `stamp` (the tiers' data folder times) keys out a rewritten store."""
    with open_store(location) as store:
        return store.read_children(names)


def _stamp(store: Store, names: tuple[str, ...]) -> tuple[int, ...]:
    return tuple((store.path / "tiers" / name / array / "c").stat().st_mtime_ns
                 if (store.path / "tiers" / name / array / "c").exists() else 0
                 for name in names for array in ("outcome", "remoteness"))


def _evaluate_chunk(store: Store, tier_name: str, chunk: int, *, recorded: bool = True):
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
    child_outcome, child_remoteness, offsets = _solved_values(store.location, tier.children,
                                                              _stamp(store, tier.children))
    start, stop = store.plan.tier(tier_name).chunk_bounds(chunk)
    expansion = store.game.expand(tier, start, stop, offsets)
    values = solve_rows(expansion.primitive, expansion.children, child_outcome, child_remoteness,
                        np.dtype(store.plan.remoteness_dtype))
    return start, stop, values


def _describe(store: Store, tier_name: str, index: int) -> str:
    position = store.game.position_at(store.game.tier(tier_name), index)
    return f"{tier_name}[{index}]" + ("" if position is None else f" {store.game.format(position)!r}")


def _summary(store: Store, tier_name: str, chunk: int, outcome: np.ndarray,
             written: dict[str, str]) -> dict[str, Any]:
    """A written chunk's record for the driver: the indices it holds, the positions of each value
    it stands for (a representative counts its whole symmetry class), and `written`'s checksum
    and stored digest."""
    start, stop = store.plan.tier(tier_name).chunk_bounds(chunk)
    sizes = store.game.orbit_sizes(store.game.tier(tier_name), start, stop, outcome)

    def count(code: int) -> int:
        hits = outcome == code
        return int(np.count_nonzero(hits) if sizes is None else sizes[hits].sum(dtype=np.int64))

    return {"tier": tier_name, "chunk": chunk, "positions": int(outcome.size),
            "win": count(oc.WIN), "loss": count(oc.LOSS), "draw": count(oc.DRAW), **written}


def solve_chunk(store_path: str, attempt: str, tier_name: str, chunk: int) -> list[dict[str, Any]]:
    """Solve one chunk of a loop-free tier whose child tiers are solved; write it; return its counts."""
    with open_store(store_path, mode="r+", attempt=attempt) as store:
        start, _, (outcome, remoteness, faults) = _evaluate_chunk(store, tier_name, chunk, recorded=False)
        bad = np.flatnonzero(faults)
        if bad.size:
            raise StoreError(f"store {store_path!r}: position {_describe(store, tier_name, start + int(bad[0]))} "
                             f"{FAULTS[int(faults[bad[0]])]}")
        written = store.write_chunk(tier_name, chunk, outcome, remoteness)
    return [_summary(store, tier_name, chunk, outcome, written)]


def _group_layout(store: Store, tier_names: tuple[str, ...]):
    """Group tiers, where each starts in the group's concatenation, and the group size."""
    tiers = [store.game.tier(name) for name in tier_names]
    offsets, size = {}, 0
    for tier in tiers:
        offsets[tier.name], size = size, size + tier.size
    return tiers, offsets, size


def settle_chunk(store_path: str, attempt: str, tier_names: tuple[str, ...], tier_name: str, chunk: int) -> list:
    """First pass over one chunk of a loopy group's tier (see `solvers.loopy`): terminal
    values, values from the already solved tiers it leads out to, and counts of children
    inside the group. Written to a scratch file of the chunk (its presence records it);
    chunks run in parallel."""
    with open_store(store_path, mode="r+", attempt=attempt) as store:
        _, _, size = _group_layout(store, tier_names)
        tier = store.game.tier(tier_name)
        outside = tuple(c for c in tier.children if c not in tier_names)
        out_outcome, out_remoteness, out_offsets = _solved_values(store.location, outside, _stamp(store, outside))
        where = dict(zip(outside, out_offsets))
        offsets = np.array([0 if c in tier_names else size + int(where[c]) for c in tier.children], dtype=np.int64)
        start, stop = store.plan.tier(tier_name).chunk_bounds(chunk)
        outcome = np.zeros(stop - start, dtype=np.uint8)
        remoteness = np.zeros(stop - start, dtype=np.dtype(store.plan.remoteness_dtype))
        pending = np.zeros(stop - start, dtype=np.uint8)
        buffers = Expansion.buffers(min(BATCH, stop - start), store.game.max_moves)
        for first in range(start, stop, BATCH):
            last = min(first + BATCH, stop)
            expansion = store.game.expand(tier, first, last, offsets, group=tier_names, out=buffers)
            if loopy.settle_from_outside(expansion.primitive, expansion.children, size, out_outcome,
                                         out_remoteness, first - start, outcome, remoteness, pending,
                                         describe=lambda i: _describe(store, tier_name, start + i)):
                raise StoreError(f"store {store_path!r}: a position of {tier_name} has no moves but is "
                                 f"not terminal, or has an unsolved child")
        store.write_scratch(tier_name, chunk, outcome, remoteness, pending)
    return []  # nothing for the driver to record: the scratch file is the record


def _first_passes(store: Store, tiers, *, values: bool):
    """The group's positions (`solvers.members.Members`), marked from its tiers' first-pass files,
    and with `values` their (outcome, remoteness, pending), numbered densely: a position is a row
    the first pass gave a value or children inside the group to wait for (a hole has neither)."""
    members = Members([tier.size for tier in tiers])
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for t, tier in enumerate(tiers):
        for start, outcome, remoteness, pending in store.read_scratch(tier.name):
            held = (outcome != 0) | (pending != 0)
            members.mark(t, start, held)
            if values:
                parts.append((outcome[held], remoteness[held], pending[held]))
    members.number()
    if not values:
        return members, None
    return members, tuple(np.concatenate([part[k] for part in parts]) for k in range(3))


def propagate_group(store_path: str, attempt: str, tier_names: tuple[str, ...],
                    checkpoint_every: float = CHECKPOINT_SECONDS) -> list[dict[str, Any]]:
    """Second pass of a loopy group, after every chunk's first pass: settle positions level
    by level (increasing remoteness) from their children inside the group; what is left is
    a draw. Writes every chunk of the group's tiers and returns their summaries.

    Working memory: per group position (holes left out: `solvers.members`) 1 byte of outcome,
    1 of pending-children count and the remoteness dtype, 2 bits per group index to number the
    positions, plus one batch of parent references (and one chunk while loading or writing).
    Once `checkpoint_every` seconds have passed since the last save, the state between two
    levels is saved to scratch; a rerun after a kill goes on from there (same bytes: the levels
    after a checkpoint depend on nothing else).
    """
    with open_store(store_path, mode="r+", attempt=attempt) as store:
        game = store.game
        tiers, group_offsets, _ = _group_layout(store, tier_names)
        group_starts = np.array([group_offsets[tier.name] for tier in tiers], dtype=np.int64)
        dtype = np.dtype(store.plan.remoteness_dtype)
        checkpoint = store.read_checkpoint(tier_names)
        members, state = _first_passes(store, tiers, values=not checkpoint)
        if checkpoint and checkpoint[2].size != members.count:  # another solve's: start again
            members, state = _first_passes(store, tiers, values=True)
            checkpoint = None
        if checkpoint:
            level, highest, outcome, remoteness, pending = checkpoint
        else:
            outcome, remoteness, pending = state
            settled = (outcome == oc.WIN) | (outcome == oc.LOSS)
            # Terminal positions (level 0) need no propagating if their parents took their values.
            level = 1 if game.group_terminals_by_value else 0
            highest = int(remoteness[settled].max(initial=0))
        buffer = np.empty((min(BATCH, max(members.count, 1)), game.max_moves), dtype=np.int64)
        saved = time.monotonic()

        def describe(dense: int) -> str:  # a position by its dense number
            t = int(np.searchsorted(members.dense_base, dense, side="right")) - 1
            index = int(members.to_full(t, np.array([dense], dtype=np.int64))[0])
            return _describe(store, tiers[t].name, index)

        while level <= highest:
            for t, tier in enumerate(tiers):
                base = int(members.dense_base[t])
                found = loopy.settled_at(outcome, remoteness, level, base, int(members.dense_base[t + 1])) + base
                for first in range(0, found.size, BATCH):
                    batch = found[first:first + BATCH]
                    parents = game.parents(tier, members.to_full(t, batch), group_offsets, out=buffer)
                    members.to_dense(parents, group_starts)
                    highest = max(highest, loopy.propagate(level, outcome[batch], parents, outcome,
                                                           remoteness, pending, describe=describe))
            if highest > np.iinfo(dtype).max:  # a backstop: the kernels stop before a value wraps
                raise StoreError(f"store {store_path!r}: {FAULTS[OVERFLOW]} in group {' '.join(tier_names)}")
            level += 1
            if level <= highest and time.monotonic() - saved >= checkpoint_every:
                store.write_checkpoint(tier_names, level, highest, outcome, remoteness, pending)
                saved = time.monotonic()
        loopy.finish_draws(outcome, remoteness, pending)
        summaries = []
        for t, tier in enumerate(tiers):
            plan = store.plan.tier(tier.name)
            for chunk in range(plan.n_chunks):
                start, stop = plan.chunk_bounds(chunk)
                chunk_outcome, chunk_remoteness = members.scatter(t, start, stop, outcome, remoteness)
                written = store.write_chunk(tier.name, chunk, chunk_outcome, chunk_remoteness)
                summaries.append(_summary(store, tier.name, chunk, chunk_outcome, written))
    return summaries


def verify_chunk(store_path: str, tier_name: str, chunk: int) -> dict[str, Any]:
    """Re-check every position of a chunk against the rules and its children (SPEC §5), a
    draw's or unreachable index's remoteness (0), and the chunk's record (checksum and counts).
    Damage that stops the check (an undecodable chunk, here or in a child tier) is returned
    in `damaged`, never raised."""
    with open_store(store_path) as store:
        start, stop = store.plan.tier(tier_name).chunk_bounds(chunk)
        damaged = []
        try:
            record = store.record(tier_name).chunks[chunk]
            try:
                store.check_stored(tier_name, chunk)
            except DamagedStore as exc:  # reported; its values are still checked, position by position
                damaged.append(str(exc))
            packed, stored_remoteness = store.read_chunk_raw(tier_name, chunk, checked=False)
            _, _, (outcome, remoteness, faults) = _evaluate_chunk(store, tier_name, chunk)
        except DamagedStore as exc:
            return {"tier": tier_name, "chunk": chunk, "positions": 0, "wrong": 0, "examples": [],
                    "checksum_ok": True, "damaged": [*damaged, str(exc)]}
        stored_outcome = packing.unpack(packed, stop - start)
        decided = (outcome == oc.WIN) | (outcome == oc.LOSS)
        wrong = ((stored_outcome != outcome) | (faults != 0) | (decided & (stored_remoteness != remoteness))
                 | (~decided & (stored_remoteness != 0)))
        bad = np.flatnonzero(wrong)
        examples = [
            f"{_describe(store, tier_name, start + int(i))}: stored "
            f"{oc.NAMES.get(int(stored_outcome[i]), 'none')}/{int(stored_remoteness[i])}, "
            f"rules give {oc.NAMES.get(int(outcome[i]), 'none')}/{int(remoteness[i])}"
            for i in bad[:EXAMPLES]
        ]
        checksum_ok = record is not None and record["checksum"] == chunk_checksum(packed, stored_remoteness)
        counts = _summary(store, tier_name, chunk, stored_outcome, {})
        if record is not None and any(record[key] != counts[key] for key in ("win", "loss", "draw")):
            damaged.append(f"store {store_path!r}: tier {tier_name} chunk {chunk}: its record counts "
                           f"{record['win']}/{record['loss']}/{record['draw']} won/lost/drawn positions, the "
                           f"data {counts['win']}/{counts['loss']}/{counts['draw']}")
    return {"tier": tier_name, "chunk": chunk, "positions": stop - start, "wrong": int(bad.size),
            "examples": examples, "checksum_ok": checksum_ok, "damaged": damaged}
