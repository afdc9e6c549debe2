"""A hostile environment: a full disk, a read-only store or folder, a user
without write permission, and a store path that runs through a file. Whatever happens, the
command says one line (`retrograde: error: ...`), exits non-zero (74, `cli.OS_ERROR_EXIT`,
when the system refused a file operation), prints no traceback and corrupts nothing: the
store is either absent or opens, `status` calls it incomplete and `verify` finds no damage;
and once space or permission is given back, the same command resumes and ends with the bytes
of an uninterrupted solve. Reading (status, verify, probe, play, validate's store)
needs no write access at all.

A full disk is a small tmpfs mounted by the test and made bigger with `mount -o remount`;
a read-only folder a read-only bind mount; both need root (skipped otherwise). A user
without permission is root without CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER
(dropped from the child's capability bounding set before it starts Python): the file
permission checks of an ordinary user, here where the interpreter lives under /root (0700)
so that `nobody` could not even start it; as a non-root user the commands run as they are.

Then the hostile-input table (tests/hostile_cases.py, issue 36, point 2): a fixed stratified subset of
its cases, each a real process judged on its exit status, one line, no traceback, an unchanged disk
and an answer within 10 s (benchmarks/bench_fuzz.py runs every case).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import assert_same_store, store_bytes
import hostile_cases
from processes import assert_one_error_line, run
from retrograde.cli import OS_ERROR_EXIT
from retrograde.pipeline.executors import InProcessExecutor

PAGE = os.sysconf("SC_PAGE_SIZE")


# --- a small disk ---------------------------------------------------------------------------------
def _mount(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["mount", *args], capture_output=True, text=True)


@contextlib.contextmanager
def small_disk(folder: Path, size: int):
    """A tmpfs of `size` bytes mounted at `folder` (skips the test where mounting is not
    permitted); unmounted afterwards whatever happens."""
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    mounted = _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder))
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def grow(folder: Path, size: int) -> None:
    """Give the tmpfs at `folder` more room (space freed)."""
    grown = _mount("-o", f"remount,size={size}", str(folder))
    assert grown.returncode == 0, grown.stderr


def pages(store: Path) -> int:
    """Pages a store takes on a tmpfs: each file rounds up to whole pages."""
    return sum(-(-p.stat().st_size // PAGE) for p in store.rglob("*") if p.is_file())


def solve_args(game: list[str], store: Path, *, force: bool = False) -> list[str]:
    return ["solve", *game, "--store", str(store), "--workers", "0", "--quiet", *(["--force"] if force else [])]


def assert_not_corrupted(store: Path) -> str:
    """The store left by a failed solve is absent, or opens with `status` (incomplete) and
    `verify` finds nothing wrong in what it holds; no lock or temporary file is left. Returns
    "absent" or "partial"."""
    folder = store.parent
    assert not (folder / f".{store.name}.lock").exists(), "the writer lock outlived its run"
    if not store.exists():
        return "absent"
    assert not list(store.rglob("*.partial")), "a failed write left its temporary file"
    status = run(["status", "--store", str(store), "--json"])
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["complete"] is False
    verify = run(["verify", "--store", str(store), "--workers", "0", "--quiet"])
    assert verify.returncode == 3, f"verify exit {verify.returncode}:\n{verify.stdout}\n{verify.stderr}"
    assert "Traceback" not in verify.stderr
    return "partial"


DISK_FULL = ("no space left on device", "free some space, then rerun the same command to resume")


@pytest.mark.parametrize("game,reference,stops", [
    # tic-tac-toe: an empty store is 32 one-page documents of the 49 files a solved one has
    (["tictactoe"], ("tictactoe", None), {0.1: "absent", 0.8: "partial"}),
    # 3x3 Quixo: 167 documents of 263 files; loopy groups write first passes and checkpoints too
    (["quixo", "--size", "3"], ("quixo", {"size": 3}), {0.85: "partial"}),
])
def test_a_full_disk_stops_a_solve_in_one_line_and_the_rerun_resumes(solved, tmp_path, game, reference, stops):
    """Disks of a fraction of the pages the finished store takes: the solve stops at the plan
    (no store) or part-way, says so in one line (exit 74), leaves a store that opens and
    verifies, and the same command, rerun once there is room, ends with the bytes of a
    normal solve."""
    expected = solved(*reference)
    seen = {}
    for fraction in stops:
        disk = tmp_path / f"disk-{fraction}"
        with small_disk(disk, max(2, int(pages(expected) * fraction)) * PAGE):
            store = disk / "s.zarr"
            failed = run(solve_args(game, store, force=True))  # the estimate counts bytes, not pages
            assert failed.returncode == OS_ERROR_EXIT, failed.stderr
            assert_one_error_line(failed.stderr, *DISK_FULL)
            seen[fraction] = assert_not_corrupted(store)
            grow(disk, 64 * 2**20)
            again = run(solve_args(game, store))
            assert again.returncode == 0, again.stderr
            assert_same_store(store, expected, f"resumed after a full disk ({fraction:.0%} of the room)")
            assert sorted(p.name for p in disk.iterdir()) == ["s.zarr"], "leftovers beside the store"
    assert seen == stops, "where the solve stopped"


def test_a_full_disk_at_the_plan_leaves_nothing_behind(tmp_path):
    with small_disk(tmp_path / "disk", 4 * PAGE) as disk:
        refused = run(solve_args(["tictactoe"], disk / "s.zarr"))  # the estimate sees the disk is too small
        assert refused.returncode == 2
        assert_one_error_line(refused.stderr, "of disk", "pass --force")
        failed = run(solve_args(["tictactoe"], disk / "s.zarr", force=True))
        assert failed.returncode == OS_ERROR_EXIT
        assert_one_error_line(failed.stderr, *DISK_FULL)
        assert list(disk.iterdir()) == [], sorted(p.name for p in disk.iterdir())


def test_a_full_disk_stops_training_and_a_report_in_one_line(solved, tmp_path):
    """`train` (its checkpoints and artifact) and `validate` (its report) on a full disk: one
    line each, no traceback, no report file; the training (from its checkpoints) and the validation
    (from the task results it kept, if it got to keep any) finish once there is room."""
    with small_disk(tmp_path / "disk", 2 * PAGE) as disk:
        (disk / "filler").write_bytes(b"x" * PAGE)  # about one page left
        args = ["train", "rl:episodes=300,every=100", "--game", "tictactoe", "--out", str(disk / "rl.npz"),
                "--seed", "1", "--quiet"]
        failed = run(args)
        assert failed.returncode == OS_ERROR_EXIT, failed.stderr
        assert_one_error_line(failed.stderr, *DISK_FULL)
        validate = ["validate", "--store", str(solved("tictactoe")), "--out", str(disk / "report"),
                    "--agents", "random", "--games", "1", "--positions", "20", "--quiet"]
        report = run(validate)
        assert report.returncode == OS_ERROR_EXIT, report.stderr
        assert_one_error_line(report.stderr, "report", DISK_FULL[0])
        left = sorted(p.name for p in disk.iterdir())  # the training's checkpoints stay, to resume from
        assert left in (["filler", "rl.npz.partial"], ["filler", "report", "rl.npz.partial"]), left
        if (disk / "report").exists():  # only the results the validation kept, to resume from
            assert [p.name for p in (disk / "report").iterdir()] == [".resume"], "a report file was left"
        grow(disk, 64 * 2**20)
        assert run(args).returncode == 0
        assert (disk / "rl.npz").is_file()
        assert run(validate).returncode == 0
        assert sorted(p.name for p in (disk / "report").iterdir()) == ["report.html", "report.json", "report.md",
                                                                        "timings.json"]


# --- read-only ----------------------------------------------------------------------------------
@contextlib.contextmanager
def read_only_view(source: Path, view: Path):
    """`source` seen read-only at `view` (a read-only bind mount: binds root too); skips where
    bind mounts are not permitted."""
    view.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    bound = _mount("--bind", str(source), str(view))
    if bound.returncode:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.strip()}")
    try:
        remounted = _mount("-o", "remount,ro,bind", str(view))
        if remounted.returncode:
            pytest.skip(f"cannot make a bind mount read-only here: {remounted.stderr.strip()}")
        yield view
    finally:
        if subprocess.run(["umount", str(view)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(view)], capture_output=True)


def partial_store(path: Path, game: tuple[str, dict | None] = ("tictactoe", None), tasks: int = 4) -> Path:
    """A store whose solve stopped after `tasks` chunk tasks."""
    from retrograde.games import make_game
    from retrograde.pipeline.planning import plan_stage
    from retrograde.pipeline.stages import solve_stage

    class Stop(Exception):
        pass

    class StopAfter(InProcessExecutor):
        def run(self, todo):
            for done, (task, result) in enumerate(super().run(todo)):
                if done == tasks:
                    raise Stop
                yield task, result

    with contextlib.suppress(Stop), plan_stage(make_game(*game), path) as store:
        solve_stage(store, StopAfter(), quiet=True)
    return path


def reading_commands(store: Path, out: Path, *, complete: bool, games: bool) -> list[list[str]]:
    """Commands that only read the store (their outputs elsewhere): status, verify, probe, and
    with `games` play and validate (agents reading the store)."""
    position = "x../.o./... x" if complete else "xxo/oox/xo. x"  # a partial store: tiers k9, k8
    commands = [["status", "--store", str(store), "--json"], ["verify", "--store", str(store), "--workers", "0",
                                                              "--quiet"],
                ["probe", "--store", str(store), "--json", position]]
    if games and complete:
        commands += [["play", "--store", str(store), "--max-plies", "2"],
                     ["validate", "--store", str(store), "--out", str(out / "report"), "--agents", "lookup,random",
                      "--games", "1", "--positions", "50", "--quiet"]]
    return commands


def assert_reads_work(store: Path, out: Path, *, complete: bool, games: bool = False,
                      command_prefix: list[str] | None = None) -> None:
    before = store_bytes(store)
    for args in reading_commands(store, out, complete=complete, games=games):
        result = run(args, command=command_prefix)
        expected = 3 if args[0] == "verify" and not complete else 0
        assert result.returncode == expected, f"{args}: exit {result.returncode}\n{result.stderr}"
        assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert store_bytes(store) == before


def test_a_read_only_store_is_read_but_never_written(solved, tmp_path):
    """On a read-only file system: status, verify, probe, play and validate read the
    store as usual; solving into it, resuming it or creating a store there is one line naming
    the read-only file system (exit 74); nothing changes, and the partial store resumes to the
    normal bytes once it is writable again."""
    source = tmp_path / "rw"
    source.mkdir()
    shutil.copytree(solved("tictactoe"), source / "done.zarr")
    partial_store(source / "part.zarr")
    with read_only_view(source, tmp_path / "ro") as view:
        assert_reads_work(view / "done.zarr", tmp_path, complete=True, games=True)
        assert_reads_work(view / "part.zarr", tmp_path, complete=False)
        before = {name: store_bytes(view / name) for name in ("done.zarr", "part.zarr")}
        for name in ("part.zarr", "new.zarr"):
            failed = run(solve_args(["tictactoe"], view / name))
            assert failed.returncode == OS_ERROR_EXIT, failed.stderr
            assert_one_error_line(failed.stderr, "read-only file system", str(view))
        assert {name: store_bytes(view / name) for name in before} == before
        assert not (view / "new.zarr").exists()
    resumed = run(solve_args(["tictactoe"], source / "part.zarr"))
    assert resumed.returncode == 0, resumed.stderr
    assert_same_store(source / "part.zarr", solved("tictactoe"), "resumed once writable")


# --- permission denied ----------------------------------------------------------------------------
#: Runs ARGV with CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER gone from the capability
#: bounding set (PR_CAPBSET_DROP), so that the exec'd program checks file permissions as an
#: ordinary owner does; exit 99 where dropping them is not permitted.
_WITHOUT_DAC = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for cap in (1, 2, 3):
    if libc.prctl(24, cap, 0, 0, 0):
        sys.exit(99)
os.execv(sys.argv[1], sys.argv[1:])
"""


@pytest.fixture(scope="module")
def unprivileged(tmp_path_factory) -> list[str] | None:
    """The command prefix that runs the CLI without the power to override file permissions
    (None: this user has none already); skips where that cannot be arranged."""
    if os.geteuid() != 0:
        return None
    probe = tmp_path_factory.mktemp("probe")
    locked = probe / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        tried = subprocess.run([sys.executable, "-c", _WITHOUT_DAC, "/bin/sh", "-c", f": > '{locked}/x'"],
                               capture_output=True)
    finally:
        locked.chmod(0o755)
    if tried.returncode in (0, 99):
        pytest.skip("cannot drop root's power to override file permissions here")
    return [sys.executable, "-c", _WITHOUT_DAC, sys.executable, "-m", "retrograde"]


def make_read_only(path: Path) -> None:
    for where in [path, *path.rglob("*")] if path.is_dir() else [path]:
        where.chmod(where.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def make_writable(path: Path) -> None:
    for where in [path, *path.rglob("*")] if path.is_dir() else [path]:
        where.chmod(where.stat().st_mode | stat.S_IWUSR)


def test_without_write_permission_reads_work_and_writes_fail_in_one_line(solved, tmp_path, unprivileged):
    """A folder and stores the user may read but not write: reading works; solving (a new
    store, resuming a partial one) is one line naming the permission denied (exit 74) and
    changes nothing; a partial store in a writable folder whose own files are read-only
    fails the same way, and resumes to the normal bytes once writable."""
    folder = tmp_path / "shared"
    folder.mkdir()
    shutil.copytree(solved("tictactoe"), folder / "done.zarr")
    partial_store(folder / "part.zarr")
    own = tmp_path / "own"
    own.mkdir()
    partial_store(own / "part.zarr")
    make_read_only(folder)
    make_read_only(own / "part.zarr")
    try:
        assert_reads_work(folder / "done.zarr", tmp_path, complete=True, command_prefix=unprivileged)
        assert_reads_work(folder / "part.zarr", tmp_path, complete=False, command_prefix=unprivileged)
        before = {path: store_bytes(path) for path in (folder / "done.zarr", folder / "part.zarr", own / "part.zarr")}
        for store in (folder / "part.zarr", folder / "new.zarr", own / "part.zarr"):
            failed = run(solve_args(["tictactoe"], store), command=unprivileged)
            assert failed.returncode == OS_ERROR_EXIT, failed.stderr
            assert_one_error_line(failed.stderr, "permission denied")
        for args in (["train", "rl:episodes=5", "--game", "tictactoe", "--out", str(folder / "rl.npz")],
                     ["validate", "--store", str(folder / "done.zarr"), "--out", str(folder / "report"),
                      "--agents", "random", "--games", "1", "--positions", "5", "--quiet"]):
            failed = run(args, command=unprivileged)
            assert failed.returncode == OS_ERROR_EXIT, failed.stderr
            assert_one_error_line(failed.stderr, "permission denied", str(folder))
        assert {path: store_bytes(path) for path in before} == before
        assert sorted(p.name for p in own.iterdir()) == ["part.zarr"], "a lock or staging folder was left"
    finally:
        make_writable(folder)
        make_writable(own / "part.zarr")
    resumed = run(solve_args(["tictactoe"], own / "part.zarr"), command=unprivileged)
    assert resumed.returncode == 0, resumed.stderr
    assert_same_store(own / "part.zarr", solved("tictactoe"), "resumed once writable")


def test_an_unreadable_store_file_is_permission_denied_not_damage(solved, tmp_path, unprivileged):
    store = tmp_path / "t.zarr"
    shutil.copytree(solved("tictactoe"), store)
    (store / "tiers" / "k3" / "zarr.json").chmod(0)
    try:
        for args in (["status", "--store", str(store)], ["verify", "--store", str(store), "--workers", "0", "--quiet"]):
            failed = run(args, command=unprivileged)
            assert failed.returncode == OS_ERROR_EXIT, failed.stdout + failed.stderr
            assert_one_error_line(failed.stderr, "permission denied", "k3")
    finally:
        (store / "tiers" / "k3" / "zarr.json").chmod(0o644)


# --- a path through a file ------------------------------------------------------------------------
def test_a_store_path_through_a_file_is_one_line(tmp_path):
    """`--store FILE` and `--store FILE/x.zarr` (and an output under a file) are one line and
    touch nothing; a file is never taken for a folder."""
    afile = tmp_path / "notes.txt"
    afile.write_text("mine\n")
    cases = [
        (solve_args(["tictactoe"], afile), "not a retrograde store"),
        (solve_args(["tictactoe"], afile / "x.zarr"), str(afile)),
        (["status", "--store", str(afile)], "not a retrograde store"),
        (["verify", "--store", str(afile / "x.zarr")], "no store"),
        (["probe", "--store", str(afile / "x.zarr"), "x../.o./..."], "no store"),
        (["train", "rl:episodes=5", "--game", "tictactoe", "--out", str(afile / "rl.npz")], str(afile)),
    ]
    for args, needle in cases:
        failed = run(args)
        assert failed.returncode not in (0, None), args
        assert_one_error_line(failed.stderr, needle)
    assert afile.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_parent_that_is_a_file_is_called_a_file(tmp_path):
    afile = tmp_path / "notes.txt"
    afile.write_text("mine\n")
    failed = run(solve_args(["tictactoe"], afile / "x.zarr"))
    assert_one_error_line(failed.stderr, "not a folder")


def test_an_empty_path_is_a_usage_error_not_the_current_folder(tmp_path):
    """`--store ''` or `--out ''` (an unset shell variable) is one line with exit 2, and nothing
    is written in the current folder."""
    for args in (["solve", "tictactoe", "--store", "", "--quiet"], ["status", "--store", ""],
                 ["validate", "--game", "tictactoe", "--out", "", "--agents", "random", "--games", "1"],
                 ["train", "rl:episodes=5", "--game", "tictactoe", "--out", ""]):
        failed = run(args, cwd=tmp_path)
        assert failed.returncode == 2, (args, failed.stderr)
        assert_one_error_line(failed.stderr, "an empty path")
    assert list(tmp_path.iterdir()) == []


# --- links: nothing is written, read or deleted through a link out of a store, an artifact or an output --------------
# A crafted store, training folder or output folder holds symbolic (or hard) links to a victim outside: every
# command says one line naming the link, exits non-zero and leaves the victim's bytes as they were (docs/SECURITY.md).
NIM = ["nim", "--heaps", "1,2,3"]


def tree_bytes(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder`: a file's bytes, a folder as "folder", a link as "-> target"."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        found[name] = (f"-> {os.readlink(path)}" if path.is_symlink() else "folder" if path.is_dir()
                       else path.read_bytes())
    return found


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder outside every store and output, with a victim file and tier-named folders of files."""
    folder = tmp_path / "outside"
    for name in ("k1", "k2", "k3", "h0", "h1"):
        (folder / name).mkdir(parents=True)
        (folder / name / "keep.txt").write_text(f"{name} is not a store's\n")
        (folder / name / "0.npz.partial").write_text("not a leftover of ours\n")
    (folder / "victim").write_text("precious\n")
    (folder / "checkpoint.npz").write_text("not a checkpoint\n")
    (folder / "x.partial").write_text("not a leftover\n")
    return folder


def assert_refused(result: tuple[int, str, str], *needles: str) -> None:
    code, _, stderr = result
    assert code not in (0, None), stderr
    assert_one_error_line(stderr, *needles)


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_lock_file_link_never_overwrites_its_target(solved, tmp_path, outside, cli, link):
    """`.NAME.lock` planted as a link to a victim: solve, train and validate refuse in one line,
    the victim keeps its bytes, and nothing is written."""
    before = tree_bytes(outside)
    work = tmp_path / "work"
    work.mkdir()
    commands = {"s.zarr": ["solve", *NIM, "--store", str(work / "s.zarr"), "--workers", "0", "--quiet"],
                "rl.npz": ["train", "rl:episodes=5", "--game", "tictactoe", "--out", str(work / "rl.npz"), "--quiet"],
                "report": ["validate", "--store", str(solved("nim", {"heaps": [1, 2, 3]})), "--out",
                           str(work / "report"), "--agents", "random", "--games", "1", "--positions", "5", "--quiet"]}
    for name, args in commands.items():
        lock = work / f".{name}.lock"
        if link == "symbolic":
            lock.symlink_to(outside / "victim")
        else:
            os.link(outside / "victim", lock)
        assert_refused(cli(*args), "lock file", str(lock), "symbolic link" if link == "symbolic" else "hard link")
        assert tree_bytes(outside) == before, f"{name}: the lock's target changed"
        assert sorted(p.name for p in work.iterdir()) == [lock.name], f"{name} wrote beside its lock"
        lock.unlink()
    assert (outside / "victim").stat().st_nlink == 1


@pytest.mark.parametrize("where", ["scratch", "scratch/<tier>"])
def test_a_scratch_link_never_makes_a_solve_delete_or_write_elsewhere(solved, tmp_path, outside, monkeypatch, cli,
                                                                      where):
    """A stopped 3x3 Quixo solve whose scratch folder (or a tier's folder in it) is a link to a
    folder of tier-named folders elsewhere: the resumed solve stops in one line naming the link
    and nothing outside changes; with the link gone, the same solve ends with the normal bytes."""
    from conftest import solve_killed_in_propagation

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    tiers = sorted(p.name for p in (store / "scratch").iterdir() if p.is_dir())
    for name in tiers:  # the link's target also holds folders named as the store's loopy tiers
        (outside / name).mkdir(exist_ok=True)
        (outside / name / "keep.txt").write_text("mine\n")
    linked = store / "scratch" if where == "scratch" else store / "scratch" / tiers[0]
    kept = tmp_path / "kept"
    linked.rename(kept)
    linked.symlink_to(outside)
    before, stored = tree_bytes(outside), store_bytes(store)
    assert_refused(cli("solve", "quixo", "--size", "3", "--store", str(store), "--workers", "0", "--quiet"),
                   "symbolic link", str(linked))
    assert tree_bytes(outside) == before, "the solve changed a folder outside its store"
    assert store_bytes(store) == stored
    assert not (tmp_path / ".q3.zarr.lock").exists()
    linked.unlink()
    kept.rename(linked)
    code, _, stderr = cli("solve", "quixo", "--size", "3", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 0, stderr
    assert_same_store(store, solved("quixo", {"size": 3}), "resumed once the link was gone")


def test_a_tier_folder_link_is_never_written_through(tmp_path, outside, cli):
    """A stopped solve whose tier folder is a link elsewhere: the resumed solve refuses it."""
    store = partial_store(tmp_path / "t.zarr")
    tier = store / "tiers" / "k2"
    (outside / "k2").rmdir() if not any((outside / "k2").iterdir()) else None
    moved = outside / "tier-k2"
    tier.rename(moved)
    tier.symlink_to(moved)
    before = tree_bytes(outside)
    assert_refused(cli(*solve_args(["tictactoe"], store)), "symbolic link", str(tier))
    assert tree_bytes(outside) == before


@pytest.mark.parametrize("kind", ["symbolic link", "fifo"])
def test_a_crafted_chunk_file_is_never_read(solved, tmp_path, outside, cli, kind):
    """A chunk file that is a link to a file outside, or a fifo (which a read would wait on
    forever): probe and verify refuse in one line, and read nothing through it."""
    store = tmp_path / "t.zarr"
    shutil.copytree(solved("tictactoe"), store)
    chunk = next(p for p in sorted((store / "tiers").glob("k*/outcome/c/0")))
    chunk.unlink()
    if kind == "fifo":
        os.mkfifo(chunk)
    else:
        chunk.symlink_to(outside / "victim")
    tier = chunk.parts[-4]
    position = {"k0": ".../.../... x"}.get(tier)
    results = [cli("verify", "--store", str(store), "--workers", "0", "--quiet")]
    if position is not None:
        results.append(cli("probe", "--store", str(store), position))
    for code, stdout, stderr in results:
        assert code not in (0, None) and "Traceback" not in stdout + stderr, stdout + stderr
        assert ("symbolic link" if kind == "symbolic link" else "not a regular file") in stdout + stderr


def test_a_checkpoint_folder_link_is_refused_by_train(tmp_path, outside, cli):
    """`OUT.partial` (where train keeps its checkpoints and deletes leftovers) planted as a link
    to a folder elsewhere: train refuses in one line; nothing there is read, written or deleted."""
    out = tmp_path / "rl.npz"
    out.with_name("rl.npz.partial").symlink_to(outside)
    before = tree_bytes(outside)
    assert_refused(cli("train", "rl:episodes=30,every=10", "--game", "tictactoe", "--out", str(out), "--seed", "1",
                       "--quiet"), "symbolic link", "rl.npz.partial")
    assert tree_bytes(outside) == before
    assert not out.exists()


def test_a_link_at_a_report_file_is_replaced_not_written_through(solved, tmp_path, outside, cli):
    """A report folder whose report.json is a link to a victim: validate replaces the link with
    its report and the victim keeps its bytes."""
    report = tmp_path / "report"
    report.mkdir()
    (report / "report.json").symlink_to(outside / "victim")
    before = tree_bytes(outside)
    code, _, stderr = cli("validate", "--store", str(solved("nim", {"heaps": [1, 2, 3]})), "--out", str(report),
                          "--agents", "random", "--games", "1", "--positions", "5", "--quiet")
    assert code == 0, stderr
    assert tree_bytes(outside) == before
    assert not (report / "report.json").is_symlink() and json.loads((report / "report.json").read_text())


# --- a plan that is not an object --------------------------------------------------------------------------------------
@pytest.mark.parametrize("plan", [[1, 2], "nim", 7, None])
def test_a_plan_that_is_not_an_object_is_one_line(solved, tmp_path, cli, plan):
    """attributes.retrograde.plan edited into a list, a string, a number or null: every reader
    and solve say one line naming the plan document, and change nothing."""
    store = tmp_path / "n.zarr"
    shutil.copytree(solved("nim", {"heaps": [1, 2, 3]}), store)
    document = json.loads((store / "zarr.json").read_text())
    document["attributes"]["retrograde"]["plan"] = plan
    (store / "zarr.json").write_text(json.dumps(document))
    before = store_bytes(store)
    for args in (["status", "--store", str(store)], ["verify", "--store", str(store), "--workers", "0", "--quiet"],
                 ["probe", "--store", str(store), "1,2,3"],
                 ["solve", *NIM, "--store", str(store), "--workers", "0", "--quiet"]):
        code, stdout, stderr = cli(*args)
        assert code not in (0, None), (args, stdout)
        assert "Traceback" not in stdout + stderr
        if plan is not None:
            assert_one_error_line(stderr, "its plan (zarr.json) is damaged")
    assert store_bytes(store) == before


# --- a damaged workflow state ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content", [b"", b'{"workflow": "nim", "stag', b"[1, 2]", b"\xff\xfe", b'{"stages": 5}'])
def test_a_damaged_workflow_state_is_one_line(tmp_path, cli, content):
    """An empty, cut-short, non-object or non-UTF-8 workflow.json: `run` says one line naming the
    file and what to do, exits non-zero and changes nothing; deleted as it says, the workflow runs."""
    folder = tmp_path / "out" / "nim"
    folder.mkdir(parents=True)
    (folder / "workflow.json").write_bytes(content)
    before = tree_bytes(tmp_path)
    args = ["run", "nim", "--out", str(tmp_path / "out"), "--workers", "0", "--quiet"]
    assert_refused(cli(*args), str(folder / "workflow.json"), "damaged", "delete it")
    assert tree_bytes(tmp_path) == before
    (folder / "workflow.json").unlink()
    code, _, stderr = cli(*args)
    assert code == 0, stderr
    assert json.loads((folder / "workflow.json").read_text())["stages"]["verify"] == "done"


@pytest.mark.parametrize("entry", ["store.zarr", "report", "workflow.json"])
def test_a_link_planted_in_a_workflow_folder_is_refused(tmp_path, outside, cli, entry):
    """`run --out DIR`: a link at one of the names the workflow writes in DIR/NAME is refused in
    one line before anything is written, and what it points to keeps its bytes."""
    folder = tmp_path / "out" / "nim"
    folder.mkdir(parents=True)
    (folder / entry).symlink_to(outside / "victim")
    before = tree_bytes(outside), tree_bytes(tmp_path / "out")
    assert_refused(cli("run", "nim", "--out", str(tmp_path / "out"), "--workers", "0", "--quiet"),
                   str(folder / entry), "symbolic link")
    assert (tree_bytes(outside), tree_bytes(tmp_path / "out")) == before


def test_a_link_planted_in_the_seeds_folder_is_refused(tmp_path, outside, cli):
    """`run seeds`: a `rows` link in DIR/seeds is refused in one line; nothing is played or written."""
    folder = tmp_path / "out" / "seeds"
    folder.mkdir(parents=True)
    (folder / "rows").symlink_to(outside)
    before = tree_bytes(outside)
    assert_refused(cli("run", "seeds", "--out", str(tmp_path / "out"), "--workers", "0", "--quiet"),
                   str(folder / "rows"), "symbolic link")
    assert tree_bytes(outside) == before and sorted(p.name for p in folder.iterdir()) == ["rows"]


# --- the hostile-input table (issue 36, point 2) -----------------------------------------------------------------------
# tests/hostile_cases.py holds the cases (every subcommand, every artifact kind, every defect of issue 36 a command line
# shows); each runs as a real process and must exit as documented, say one line, print no traceback, leave the disk as
# it was and answer within 10 s. The suite runs a fixed stratified subset; benchmarks/bench_fuzz.py runs them all.
CASES = hostile_cases.all_cases()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> hostile_cases.Sandbox:
    return hostile_cases.Sandbox.build(tmp_path_factory.mktemp("hostile"))


def test_the_table_covers_every_command_artifact_and_item():
    """At least 250 cases; every subcommand the CLI has, every artifact kind and every issue-36
    item a command line shows has cases."""
    from retrograde.cli import cli

    assert len(CASES) >= 250
    assert set(cli.commands) <= {case.command for case in CASES}
    for kind in ("rl:", "ga:", "dqn:", "workflow.json", "resume", "checkpoint", "a tier", "the plan", "a chunk"):
        assert sum(kind in case.name for case in CASES) >= 2, kind
    assert {1, 2, 3, 4, 5, 6, 7, 8} <= {case.item for case in CASES}


@pytest.mark.parametrize("case", [
    pytest.param(case, id=case.name,
                 marks=[pytest.mark.xfail(strict=True, reason=case.defect)] if case.defect else [])
    for case in hostile_cases.in_suite(CASES)])
def test_a_hostile_input_is_answered_cleanly(hostile, case):
    verdict = hostile_cases.run_case(case, hostile)
    if verdict.outcome == "hang":  # once more: a refusal that starts Python on two cores shared by busy tests
        verdict = hostile_cases.run_case(case, hostile)
    assert verdict.passed, f"{case.name}: {verdict.outcome}: {verdict.why}"


@pytest.mark.parametrize("case, outcome", [
    (hostile_cases.Case("a solve that works, taken for a refusal", ("solve", "nim", "--heaps", "1,2", "--store",
                                                                   "s.zarr", "--workers", "0", "--quiet")),
     "disk changed"),
    (hostile_cases.Case("a read that works, taken for a refusal", ("probe", "--store", "{nim}", "1,2,3")), "accepted"),
    (hostile_cases.Case("a server, taken for a refusal", ("explore", "--store", "{nim}", "--port", "0"), seconds=4),
     "hang"),
    (hostile_cases.Case("a usage error, taken for damage", ("probe", "--store", "{nim}", "9,9,9"), exit=1),
     "wrong status"),
    (hostile_cases.Case("a refusal, taken for a success", ("probe", "--store", "{nim}", "9,9,9"), exit=0, lines=0),
     "several lines"),
])
def test_the_checks_catch_what_they_must(hostile, case, outcome):
    """The judge of the table is no rubber stamp: a changed disk, an accepted input, a hang, a
    wrong status and an unexpected line each come to their outcome."""
    assert hostile_cases.run_case(case, hostile).outcome == outcome
