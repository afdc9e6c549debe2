"""Where a store is: the checks that a path holds a store at all, before anything reads it.
Light (neither zarr nor numpy): a command given a store that is not there refuses it before it
imports the store's machinery (`cli`), with the words `Store.open` uses; and the stores an
upgrade set aside beside one (`data.upgrade`)."""

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


def find_upgradable(path: Path) -> None:
    """Refuse what `upgrade` cannot start on: nothing at `path`, and no store an upgrade set
    aside beside it (`set_aside`).

    :raises StoreError: neither is there."""
    if not path.exists() and not set_aside(path):
        raise StoreError(f"no store at {str(path)!r}")


def set_aside(path: Path) -> list[Path]:
    """The stores an upgrade set aside beside `path`, format-3 ones and those whose records it
    bound (a link there is refused: a rerun deletes them)."""
    return [durable.inside(path.parent, old)
            for kind in ("format3", "unbound") for old in beside(path, f".{path.name}.{kind}-")]


def beside(path: Path, prefix: str) -> list[Path]:
    """The entries of `path`'s folder whose names begin with `prefix`, sorted: compared as text,
    never as a pattern (a store named `q*` must not reach `.q4.zarr.format3-*`)."""
    if not path.parent.is_dir():
        return []
    return sorted(entry for entry in path.parent.iterdir() if entry.name.startswith(prefix))
