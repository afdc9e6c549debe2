"""What validation tasks keep per worker process: the opened store, whose decoded chunk cache
then serves every task after the first (lookup agents read a few values per move)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from retrograde.data.store import Store, open_store


def worker_store(location: str) -> Store:
    """The store at `location`, opened read-only once per process (reopened if a new store was
    made at that path since: validation reads only complete stores, which no one rewrites)."""
    try:
        made = (Path(location) / "zarr.json").stat()
        stamp = (made.st_ino, made.st_mtime_ns)
    except OSError:
        stamp = None  # open_store names the problem
    return _opened(location, stamp)


@lru_cache(maxsize=2)
def _opened(location: str, stamp) -> Store:
    return open_store(location)
