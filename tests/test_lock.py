"""The writer lock (data/lock.py) goes by the output's real identity, not by the path as typed:
a store reached by a symbolic link, by a new name after a rename or through a bind mount is
locked as the store itself is. (A linked folder above the store needs nothing: its lock file
lies in the same folder, whichever name reaches it.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from conftest import run_cli, store_bytes
from retrograde.data.lock import writer_lock
from retrograde.errors import StoreError

REFUSED = "is being written by another run"


def assert_refused(path) -> None:
    """A writer lock on `path` is refused (this process holds the same store by another name)."""
    with pytest.raises(StoreError, match=REFUSED):
        with writer_lock(path):
            pass


@pytest.mark.parametrize("there", [True, False], ids=["store there", "store not there yet"])
@pytest.mark.parametrize("held", ["store", "link"])
def test_a_symlinked_name_of_the_store_is_the_store(tmp_path, there, held):
    """While a run holds the store by either name, the other name is refused; once released, no
    lock file is left under either name and the lock is free again."""
    real, link = tmp_path / "real.zarr", tmp_path / "link.zarr"
    if there:
        real.mkdir()
    link.symlink_to(real)
    first, second = (real, link) if held == "store" else (link, real)
    with writer_lock(first):
        assert_refused(second)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["link.zarr", *(["real.zarr"] if there else [])])
    with writer_lock(second):
        pass


def test_a_renamed_store_is_still_locked(tmp_path):
    """The store itself is locked by its device and inode: renamed while a run holds it, it is
    refused under its new name, naming that name."""
    (tmp_path / "a.zarr").mkdir()
    with writer_lock(tmp_path / "a.zarr"):
        os.rename(tmp_path / "a.zarr", tmp_path / "b.zarr")
        with pytest.raises(StoreError, match=f"store '{tmp_path / 'b.zarr'}' {REFUSED}, which reached it by another"):
            with writer_lock(tmp_path / "b.zarr"):
                pass
    with writer_lock(tmp_path / "b.zarr"):
        pass


def test_a_store_bind_mounted_elsewhere_is_still_locked(tmp_path):
    """A bind mount gives the store a second path no link resolves: its device and inode are the
    store's, so it is refused (in a user namespace of its own; skipped where there is none)."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("no unshare or mount here")
    store, mounted = tmp_path / "one" / "s.zarr", tmp_path / "two" / "s.zarr"
    store.mkdir(parents=True)
    mounted.mkdir(parents=True)
    script = (f"import subprocess, sys\nfrom retrograde.data.lock import writer_lock\n"
              f"if subprocess.run(['mount', '--bind', {str(store)!r}, {str(mounted)!r}]).returncode:\n"
              f"    sys.exit(77)\n"
              f"with writer_lock({str(store)!r}):\n"
              f"    try:\n        with writer_lock({str(mounted)!r}):\n            print('not refused')\n"
              f"    except Exception as exc:\n        print(exc)\n")
    result = subprocess.run(["unshare", "-rm", sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60)
    if result.returncode == 77 or "unshare" in result.stderr:
        pytest.skip(f"no bind mount in a user namespace here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    assert f"store '{mounted}' {REFUSED}, which reached it by another name" in result.stdout, result.stdout


def test_a_second_solve_through_a_symlinked_name_is_refused(solved, tmp_path):
    """Issue 36's case: a solve through a link to a store another run is writing refuses in one
    line naming the holder, and leaves the store as it was."""
    store, link = tmp_path / "ttt.zarr", tmp_path / "other-name.zarr"
    shutil.copytree(solved("tictactoe"), store)
    link.symlink_to(store)
    before = store_bytes(store)
    with writer_lock(store):
        result = run_cli("solve", "tictactoe", "--store", str(link), "--workers", "0", "--quiet")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert f"store '{link}' {REFUSED} (pid {os.getpid()} on " in lines[0], result.stderr
    assert store_bytes(store) == before
