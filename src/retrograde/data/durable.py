"""Writes that are on the disk before anything says they are there.

A file is written under a temporary name (`*.partial`), flushed to the disk (fsync),
renamed into place, and then its folder is flushed, so that the new name survives an
operating-system crash or a power loss too. The driver records a chunk only after its
task returned, so a record never points at data that a crash can take back.

RETROGRADE_FSYNC=0 leaves the flushing to the operating system (a kill still loses
nothing; a crash or power loss may): for scratch disks, and to measure what fsync costs.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from zarr.core.buffer import Buffer
from zarr.storage import LocalStore

#: Temporary files end with this; a rerun removes those a killed writer left (`Store.remove_partial_writes`).
PARTIAL = ".partial"


def fsync_enabled() -> bool:
    return os.environ.get("RETROGRADE_FSYNC", "1") != "0"


def sync_folder(folder: Path) -> None:
    """Flush a folder's entries (names created, renamed or removed in it) to the disk."""
    if not fsync_enabled():
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_writable(folder: Path) -> None:
    """Raise the OSError the system gives for a new file in `folder` (permission denied, a
    read-only file system), naming the folder, before any work starts: a file is made and
    deleted at once, since permission bits tell root nothing about read-only mounts."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, str(folder)) from None


def make_folder(folder: Path) -> None:
    """Create `folder` and any missing parents, each new name flushed in its parent."""
    if folder.is_dir():
        return
    make_folder(folder.parent)
    try:
        folder.mkdir()
    except FileExistsError:
        pass  # another writer made it just now
    sync_folder(folder.parent)


def write_partial(target: Path, write: Callable[[BinaryIO], object]) -> Path:
    """A temporary file beside `target`, filled by `write(file)` and flushed to the disk; its
    path (removed again if writing fails). Renaming it to `target` publishes it whole."""
    partial = target.with_name(f"{target.name}.{uuid.uuid4().hex}{PARTIAL}")
    try:
        with open(partial, "wb") as file:
            write(file)
            if fsync_enabled():
                file.flush()
                os.fsync(file.fileno())
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return partial


def write_atomically(target: Path, write: Callable[[BinaryIO], object], *, exclusive: bool = False) -> None:
    """Write `target` whole or not at all: `write(file)` fills a temporary file, which is
    flushed, renamed into place (with `exclusive`, only if `target` does not exist:
    FileExistsError), and the folder flushed."""
    partial = write_partial(target, write)
    try:
        if exclusive:
            os.link(partial, target)
            os.unlink(partial)
        else:
            os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    sync_folder(target.parent)


class DurableLocalStore(LocalStore):
    """zarr's LocalStore with `write_atomically`'s writes: a chunk or document is on the disk
    when zarr's write returns (zarr's own store renames without flushing), and so is a
    removed chunk's absence (zarr removes a chunk that holds only the fill value)."""

    async def set(self, key: str, value: Buffer) -> None:
        await self._durable_set(key, value, exclusive=False)

    async def set_if_not_exists(self, key: str, value: Buffer) -> None:
        try:
            await self._durable_set(key, value, exclusive=True)
        except FileExistsError:
            pass

    async def _durable_set(self, key: str, value: Buffer, *, exclusive: bool) -> None:
        if not self._is_open:
            await self._open()
        self._check_writable()
        path = self.root / key

        def put() -> None:
            make_folder(path.parent)
            write_atomically(path, lambda file: file.write(value.as_buffer_like()), exclusive=exclusive)

        await asyncio.to_thread(put)

    async def delete(self, key: str) -> None:
        await super().delete(key)
        if (self.root / key).parent.is_dir():
            await asyncio.to_thread(sync_folder, (self.root / key).parent)
