"""One writer per store (and per training artifact or report folder): a run that writes one
holds an exclusive lock on the file `.<name>.lock` beside it for as long as it writes.

The lock goes by the output's real identity, not by the path as typed: the lock file lies
beside its resolved path (every link in the path followed), so a symbolic link to the store or
to a folder above it finds the same file; and where the output is there already (a folder or a
regular file), it is locked too, by its device and inode, so no other name of it (a bind mount,
a renamed folder) escapes.

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
    """The lock file of a store (or any output): beside it, so that it exists before the output,
    at its resolved path, so that every name of the output finds the same file."""
    real = Path(os.path.realpath(store_path))
    return real.parent / f".{real.name}.lock"


@contextmanager
def writer_lock(store_path: str | os.PathLike, what: str = "store") -> Iterator[None]:
    """Hold the writer lock of the store (or other output, named `what` in messages) at
    `store_path` while the block runs.

    :raises StoreError: another run holds it, by this name or another (naming its pid, host
        and start where it holds the same lock file), or the folder it goes in does not exist.
    """
    path, real = Path(store_path), Path(os.path.realpath(store_path))
    lock = lock_path(real)
    if why := missing_folder(path, what) or missing_folder(real, what):
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
            if _identity(os.stat(lock)) == _identity(os.fstat(fd)):
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    target = None
    try:
        target = _lock_target(real, path, what)
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}"
                 .encode())
        yield
    finally:
        if target is not None:  # first: whoever takes the lock file next finds the output free
            os.close(target)
        lock.unlink(missing_ok=True)  # before the lock goes: a later opener gets a fresh file
        os.close(fd)


def _identity(found: os.stat_result) -> tuple[int, int]:
    return found.st_dev, found.st_ino


def _lock_target(real: Path, path: Path, what: str) -> int | None:
    """The output at its resolved path `real` opened and locked, if it is a folder or a regular
    file (None if it is not there yet, is something else, or its file system locks no folders,
    as NFS's: the lock file still holds): its device and inode are locked, whatever name another
    run reaches it by.

    :raises StoreError: another run holds it."""
    try:
        found = os.lstat(real)
    except FileNotFoundError:
        return None
    if not (stat.S_ISDIR(found.st_mode) or stat.S_ISREG(found.st_mode)):  # never opened: a fifo would block
        return None
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:  # removed or replaced by a link meanwhile, or unreadable: the lock file alone holds
        return None
    try:
        if _identity(os.fstat(fd)) == _identity(found):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
    except BlockingIOError:
        os.close(fd)
        raise StoreError(f"{what} {str(path)!r} is being written by another run, which reached it by another "
                         "name; wait until it ends, or stop it and rerun") from None
    except OSError:  # no flock here (EBADF, ENOLCK): the lock file alone holds
        pass
    os.close(fd)  # replaced meanwhile, or not lockable
    return None


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
