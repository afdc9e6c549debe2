"""The project-wide numba wrapper: nopython mode, on-disk caching, GIL released.

Kernel modules import numba only through this module, so that command paths
that need no kernel (probe, status) never pay numba's import and compile time.

numba caches a kernel next to its source (the install's __pycache__) or else in the user's cache
folder, and raises "cannot cache function" when neither is writable (a read-only install, a HOME
that cannot be written). Unless NUMBA_CACHE_DIR is set, `cache_folder` picks a folder that works
before numba is imported: numba's own choice while the install is writable, else the user's
cache folder, else a private folder in the temporary folder (a cache lost only costs compile time).
"""

import atexit
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path


def _writable(folder: Path) -> bool:
    """Whether `folder` can be written, or made (its nearest existing ancestor is a folder this
    user may write in)."""
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _private(folder: Path) -> bool:
    """Whether `folder` is a real folder of this user that nobody else may write in (numba's cache
    files are pickles: a folder another user could plant them in is never used)."""
    try:
        status = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o022


def cache_folder(package: Path, environ: Mapping[str, str]) -> str | None:
    """The folder numba should cache kernels in, or None to leave numba's choice: NUMBA_CACHE_DIR
    set, or `package`'s __pycache__ writable (numba caches next to the sources)."""
    if environ.get("NUMBA_CACHE_DIR") or _writable(package / "__pycache__"):
        return None
    home = environ.get("HOME")
    user = environ.get("XDG_CACHE_HOME") or (os.path.join(home, ".cache") if home else None)
    if user and os.path.isabs(user) and _writable(Path(user) / "retrograde" / "numba"):
        return str(Path(user) / "retrograde" / "numba")
    temporary = Path(tempfile.gettempdir()) / f"retrograde-numba-{os.getuid()}"
    try:
        temporary.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        pass
    if _private(temporary):
        return str(temporary)
    try:
        fresh = tempfile.mkdtemp(prefix="retrograde-numba-")  # the shared name is taken: one for this run
    except OSError:  # no temporary folder either: numba's own choice, and its message
        return None
    atexit.register(shutil.rmtree, fresh, ignore_errors=True)
    return fresh


_CHOSEN = cache_folder(Path(__file__).parent, os.environ)
if _CHOSEN is not None:
    os.environ["NUMBA_CACHE_DIR"] = _CHOSEN  # before numba reads it, and for the processes started later

import numba  # noqa: E402 - after NUMBA_CACHE_DIR is settled

if _CHOSEN is not None:
    numba.config.CACHE_DIR = _CHOSEN  # numba may have been imported (and its environment read) already


def njit(fn=None, **options):
    """`numba.njit` with caching and nogil on (kernels run inside dask worker threads): as a
    decorator, bare or with options, or given a signature (`@njit(signature)`: compiled at once,
    and a first-class function of that type for other kernels)."""
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    if fn is None:
        return lambda f: numba.njit(f, **options)
    if not callable(fn):  # a signature
        return lambda f: numba.njit(fn, **options)(f)
    return numba.njit(fn, **options)
