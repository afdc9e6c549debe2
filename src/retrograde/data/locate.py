"""Where a store is: the checks that a path holds a store at all, before anything reads it.
Light (neither zarr nor numpy): a command given a store that is not there refuses it before it
imports the store's machinery (`cli`), with the words `Store.open` uses."""

from __future__ import annotations

from pathlib import Path

from retrograde.data import durable
from retrograde.errors import StoreError


def find_store(path: Path) -> Path:
    """`path`, where it holds a store's root document (zarr.json).

    :raises StoreError: nothing at `path`, or no zarr.json there."""
    if not path.exists():
        raise StoreError(f"no store at {str(path)!r}")
    if not (path / "zarr.json").is_file():
        raise StoreError(f"{str(path)!r} is not a retrograde store (no zarr.json)")
    return path


def root_document(path: Path) -> bytes:
    """The bytes of the store's root document (zarr.json).

    :raises StoreError: as `find_store`, or it cannot be read."""
    try:
        return durable.read_inside(path, find_store(path) / "zarr.json")
    except OSError as exc:
        raise StoreError(f"{str(path)!r} cannot be read ({exc})") from None
