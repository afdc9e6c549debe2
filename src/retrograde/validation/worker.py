"""What validation tasks keep in their worker's state: the stores they opened, whose decoded
chunk cache then serves every task after the first (lookup agents read a few values per move)."""

from __future__ import annotations

from pathlib import Path

from retrograde.data.store import Store
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
