"""numba's cache works on a read-only install with no writable HOME (issue 36, item 10): jit.py
picks the install's __pycache__ (numba's own choice), else the user's cache folder, else a
private folder in the temporary folder, and leaves a NUMBA_CACHE_DIR the user set alone."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import retrograde
from retrograde.jit import cache_folder

NOBODY = 65534


def _install(tmp_path: Path) -> Path:
    """A package folder whose __pycache__ cannot be made: a regular file holds its name (a
    read-only install, for a user that chmod does not stop)."""
    package = tmp_path / "site" / "retrograde"
    package.mkdir(parents=True)
    (package / "__pycache__").write_text("")
    return package


def test_a_writable_install_or_a_chosen_folder_is_left_to_numba(tmp_path):
    package = tmp_path / "retrograde"
    package.mkdir()
    assert cache_folder(package, {"HOME": str(tmp_path)}) is None
    assert cache_folder(_install(tmp_path), {"NUMBA_CACHE_DIR": str(tmp_path / "mine")}) is None


def test_a_read_only_install_caches_in_the_user_cache_folder(tmp_path):
    package, home = _install(tmp_path), tmp_path / "home"
    home.mkdir()
    assert cache_folder(package, {"HOME": str(home)}) == str(home / ".cache" / "retrograde" / "numba")
    assert cache_folder(package, {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "xdg")}) == str(
        tmp_path / "xdg" / "retrograde" / "numba")
    assert not (home / ".cache").exists(), "choosing a folder made it"


@pytest.fixture
def temporary(tmp_path, monkeypatch) -> Path:
    """tempfile's folder, here."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_no_writable_home_caches_in_a_private_temporary_folder(tmp_path, temporary):
    """HOME a regular file and XDG_CACHE_HOME below one: neither can hold a folder."""
    package, blocked = _install(tmp_path), tmp_path / "file"
    blocked.write_text("")
    chosen = cache_folder(package, {"HOME": str(blocked), "XDG_CACHE_HOME": str(blocked / "cache")})
    assert chosen == str(temporary / f"retrograde-numba-{os.getuid()}")
    assert stat.S_IMODE(os.stat(chosen).st_mode) == 0o700
    assert cache_folder(package, {}) == chosen, "the same folder the next time"


def test_a_temporary_folder_others_may_write_is_never_used(tmp_path, temporary):
    """numba's cache files are pickles: a shared folder someone else could plant them in (here
    one left writable by all) is passed over for a fresh private one."""
    planted = temporary / f"retrograde-numba-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)
    chosen = Path(cache_folder(_install(tmp_path), {}))
    assert chosen.parent == temporary and chosen != planted
    assert stat.S_IMODE(os.stat(chosen).st_mode) == 0o700


def _as_a_user_without_write_access() -> list[str] | None:
    """The command prefix that runs a process unable to write the folders made here: none needed
    for a user that chmod stops; as root, the user nobody (allowed to read and search folders, so
    that it can reach this interpreter), if setpriv is there."""
    if os.getuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]


def test_solve_works_from_a_read_only_install_with_a_read_only_home(tmp_path):
    """A copy of the package made read-only, HOME read-only, XDG_CACHE_HOME and NUMBA_CACHE_DIR
    unset: `solve tictactoe` compiles and caches its kernels in the temporary folder, exits 0
    with no traceback, and writes nothing into the install."""
    prefix = _as_a_user_without_write_access()
    if prefix is None:
        pytest.skip("running as root without setpriv: no user that chmod stops")
    site, home, writable = tmp_path / "site", tmp_path / "home", tmp_path / "writable"
    shutil.copytree(Path(retrograde.__file__).parent, site / "retrograde",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    home.mkdir()
    (writable / "tmp").mkdir(parents=True)
    if os.getuid() == 0:
        for path in (writable, writable / "tmp"):
            os.chown(path, NOBODY, NOBODY)
    read_only = [site, *site.rglob("*"), home]
    try:
        for path in read_only:
            path.chmod(0o555 if path.is_dir() else 0o444)
        environ = {key: value for key, value in os.environ.items()
                   if key not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR", "PYTHONPATH")}
        environ.update(HOME=str(home), TMPDIR=str(writable / "tmp"), PYTHONPATH=str(site))
        run = subprocess.run([*prefix, sys.executable, "-m", "retrograde", "solve", "tictactoe",
                              "--store", str(writable / "t.zarr"), "--quiet"],
                             env=environ, capture_output=True, text=True, timeout=600)
    finally:
        for path in read_only:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    uid = NOBODY if os.getuid() == 0 else os.getuid()
    assert list((writable / "tmp" / f"retrograde-numba-{uid}").rglob("*.nbi")), "no kernel was cached"
    assert not list(site.rglob("__pycache__")), "the read-only install was written"
