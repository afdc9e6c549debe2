"""What validation tasks keep in their worker's state: the stores they opened, whose decoded
chunk cache then serves every task after the first (lookup agents read a few values per move),
and the last store's tablebase that kernels score moves and play games with."""

from __future__ import annotations

from pathlib import Path

from retrograde.data.store import Store
from retrograde.data.tablebase import StoredScores
from retrograde.pipeline.worker import WorkerState

#: Stores a worker keeps open at once.
KEPT_STORES = 2


def worker_store(worker: WorkerState, location: str) -> Store:
    """The store at `location`, opened read-only once per worker (opened again if a new store
    was made at that path since: validation reads only complete stores, which no one rewrites)."""
    try:
        made = (Path(location) / "zarr.json").stat()
        stamp = (made.st_ino, made.st_mtime_ns)
    except OSError:
        stamp = None  # Store.open names the problem
    opened: dict[tuple, Store] = worker.slot("validation-stores", dict)
    key = (location, stamp)
    if key not in opened:
        while len(opened) >= KEPT_STORES:
            opened.pop(next(iter(opened))).close()
        opened[key] = Store.open(location)
    return opened[key]


def worker_scores(worker: WorkerState, store: Store) -> StoredScores | None:
    """The store's `StoredScores` (None where the game has none), made once per worker and store:
    its tablebase is loaded once and serves every task after."""
    kept: dict[str, StoredScores | None] = worker.slot("validation-scores", dict)
    key = f"{store.location}:{store.plan_digest}"
    if key not in kept:
        kept.clear()  # one store's tablebase at a time
        kept[key] = StoredScores.of(store)
    return kept[key]
