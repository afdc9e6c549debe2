"""Chunk tasks: what one worker does for one chunk of one tier.

A task takes a store path, a tier name and a chunk number, opens the store
itself and returns a small summary; it knows nothing about dask, so the same
function runs in-process and on any cluster that shares the store's file system.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from retrograde import outcome as oc
from retrograde.data.store import Store, chunk_checksum, open_store
from retrograde.errors import StoreError
from retrograde.solvers.kernels import NO_MOVES, OVERFLOW, UNDECIDED_CHILD, solve_rows

FAULTS = {NO_MOVES: "has no moves but is not terminal", UNDECIDED_CHILD: "has an unsolved child",
          OVERFLOW: "has a remoteness too large for the store's remoteness dtype"}
#: How many wrong positions a verify task reports by name.
EXAMPLES = 5


def _evaluate_chunk(store: Store, tier_name: str, chunk: int):
    """Recompute a chunk's values from the rules and the stored values of its child tiers."""
    tier = store.game.tier(tier_name)
    for child in tier.children:
        if child != tier_name:
            store.require_solved(child)
    child_outcome, child_remoteness, offsets = store.read_children(tier.children)
    start, stop = store.plan.tier(tier_name).chunk_bounds(chunk)
    expansion = store.game.expand(tier, start, stop, offsets)
    values = solve_rows(expansion.primitive, expansion.children, child_outcome, child_remoteness,
                        np.dtype(store.plan.remoteness_dtype))
    return start, stop, values


def _describe(store: Store, tier_name: str, index: int) -> str:
    position = store.game.position_at(store.game.tier(tier_name), index)
    return f"{tier_name}[{index}]" + ("" if position is None else f" {store.game.format(position)!r}")


def solve_chunk(store_path: str, tier_name: str, chunk: int) -> dict[str, Any]:
    """Solve one chunk of a tier whose child tiers are solved; write it; return its counts."""
    with open_store(store_path, mode="r+") as store:
        start, _, (outcome, remoteness, faults) = _evaluate_chunk(store, tier_name, chunk)
        bad = np.flatnonzero(faults)
        if bad.size:
            problem = FAULTS[int(faults[bad[0]])]
            raise StoreError(f"store {store_path!r}: position {_describe(store, tier_name, start + int(bad[0]))} "
                             f"{problem}")
        checksum = store.write_chunk(tier_name, chunk, outcome, remoteness)
    return {
        "tier": tier_name,
        "chunk": chunk,
        "positions": int(outcome.size),
        "win": int(np.count_nonzero(outcome == oc.WIN)),
        "loss": int(np.count_nonzero(outcome == oc.LOSS)),
        "draw": int(np.count_nonzero(outcome == oc.DRAW)),
        "checksum": checksum,
    }


def verify_chunk(store_path: str, tier_name: str, chunk: int) -> dict[str, Any]:
    """Re-check every position of a chunk against the rules and its children (SPEC §5)."""
    with open_store(store_path) as store:
        record = store.record(tier_name).chunks[chunk]
        packed, stored_remoteness = store.read_chunk_raw(tier_name, chunk)
        start, stop, (outcome, remoteness, faults) = _evaluate_chunk(store, tier_name, chunk)
        stored_outcome = store.read_range(tier_name, start, stop)[0]
        decided = (outcome == oc.WIN) | (outcome == oc.LOSS)
        wrong = (stored_outcome != outcome) | (faults != 0) | (decided & (stored_remoteness != remoteness))
        bad = np.flatnonzero(wrong)
        examples = [
            f"{_describe(store, tier_name, start + int(i))}: stored "
            f"{oc.NAMES.get(int(stored_outcome[i]), 'none')}/{int(stored_remoteness[i])}, "
            f"rules give {oc.NAMES.get(int(outcome[i]), 'none')}/{int(remoteness[i])}"
            for i in bad[:EXAMPLES]
        ]
        checksum_ok = record is not None and record["checksum"] == chunk_checksum(packed, stored_remoteness)
    return {"tier": tier_name, "chunk": chunk, "positions": stop - start, "wrong": int(bad.size),
            "examples": examples, "checksum_ok": checksum_ok}
