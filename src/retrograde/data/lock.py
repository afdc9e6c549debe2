"""One writer per store (and per training artifact or report folder): a run that writes one
holds an exclusive lock on the file `.<name>.lock` beside it for as long as it writes.

The lock is flock(2)'s: it belongs to the open file, so it goes with its holder however the
holder ends (a kill -9 included) and a killed run never leaves a stale lock. The file names
its holder for the refusal a second writer gets, and is removed when the lock is released.
It is opened without following a link and must be a regular file: a link planted there never
makes a run overwrite what it points to.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from retrograde.errors import StoreError


def missing_folder(path: Path, what: str) -> str | None:
    """Why `what` cannot be created at `path` because of its folder (None if the folder is there)."""
    folder = path.parent
    if folder.is_dir():
        return None
    if folder.exists():
        return f"cannot create {what} {str(path)!r}: {str(folder)!r} is a file, not a folder"
    return f"cannot create {what} {str(path)!r}: folder {str(folder)!r} does not exist"


def lock_path(store_path: str | os.PathLike) -> Path:
    """The lock file of a store (or any output): beside it, so that it exists before the output."""
    path = Path(store_path)
    return path.parent / f".{path.name}.lock"


@contextmanager
def writer_lock(store_path: str | os.PathLike, what: str = "store") -> Iterator[None]:
    """Hold the writer lock of the store (or other output, named `what` in messages) at
    `store_path` while the block runs.

    :raises StoreError: another run holds it (naming its pid, host and start), or the
        folder it goes in does not exist.
    """
    path, lock = Path(store_path), lock_path(store_path)
    if why := missing_folder(path, what):
        raise StoreError(why)
    while True:
        fd = _open_lock(lock, path, what)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode(errors="replace").strip() or "starting"
            os.close(fd)
            raise StoreError(f"{what} {str(path)!r} is being written by another run ({holder}); "
                             "wait until it ends, or stop it and rerun") from None
        try:  # the holder we waited on may have removed the file meanwhile: lock the new one
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}"
                 .encode())
        yield
    finally:
        lock.unlink(missing_ok=True)  # before the lock goes: a later opener gets a fresh file
        os.close(fd)


def _open_lock(lock: Path, path: Path, what: str) -> int:
    """The lock file opened for reading and writing (created if missing), never through a link.

    :raises StoreError: it is a symbolic link, not a regular file, or a file with other names
        (a hard link, which a truncation would empty too)."""
    refused = (f"{what} {str(path)!r}: its lock file {str(lock)!r} is {{}}; retrograde writes only a regular "
               "file there: remove it and rerun")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if lock.is_symlink():
            raise StoreError(refused.format("a symbolic link")) from None
        if exc.errno == errno.EISDIR:
            raise StoreError(refused.format("a folder")) from None
        raise
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
        os.close(fd)
        raise StoreError(refused.format("not a regular file" if not stat.S_ISREG(found.st_mode)
                                        else "a hard link to another file"))
    return fd
