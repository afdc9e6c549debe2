"""One writer at a time. Solve attempts fence out stale writers: a task that a killed driver left
running on a cluster writes nothing once a newer solve began (or the solve ended), and never
brings back the scratch folder (each task is called here as a worker would run it, with its
attempt). Planning a store removes only staging folders their creator has left for good. The writer's lock
(data/lock.py) is taken over from a killed writer, and an error opening it reaches the caller as itself."""

from __future__ import annotations

import pytest

import errno
import os
import shutil
import socket
import subprocess
import sys

from conftest import assert_same_store, store_bytes
from retrograde.data import lock, packing
from retrograde.data.store import SCRATCH, Store
from retrograde.errors import Superseded
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.data.plan import make_plan
from retrograde.pipeline.planning import plan_stage
from retrograde.pipeline.stages import solve_stage, solve_tasks
from retrograde.pipeline.propagation import propagate_group, solve_group
from retrograde.pipeline.worker import WorkerState
from retrograde.pipeline.tasks import settle_chunk, solve_chunk

QUIXO3 = ("quixo", {"size": 3})


def _tasks_by_kind(store):
    """The first task of each kind (solve_chunk, settle_chunk, propagate_group, solve_group) of a fresh solve."""
    kinds = {}
    for task in solve_tasks(store):
        kinds.setdefault(task.fn, task)
    return kinds


@pytest.mark.parametrize("game, small, kinds", [(QUIXO3, "0", (settle_chunk, propagate_group)),
                                                (QUIXO3, "2", (solve_group,)),
                                                (("tictactoe", None), "2", (solve_chunk,))])
def test_tasks_of_an_earlier_attempt_write_nothing(tmp_path, monkeypatch, game, small, kinds):
    monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", small)  # 0: 3x3 Quixo's groups through scratch files
    path = tmp_path / "store.zarr"
    with plan_stage(make_game(*game), path) as store:
        stale = store.begin_attempt()
        first = _tasks_by_kind(store)
        store.begin_attempt()  # a rerun's driver takes over
        before = store_bytes(path)
        for fn in kinds:
            assert first[fn].args[0].attempt == stale
            with pytest.raises(Superseded, match="another solve took over"):
                fn(WorkerState(), *first[fn].args)
        assert store_bytes(path) == before, "a stale task wrote into the store"


def test_a_task_after_the_end_of_its_solve_does_not_bring_back_the_scratch_folder(tmp_path, solved, monkeypatch):
    monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", "0")  # first passes as tasks of their own
    path = tmp_path / "q3.zarr"
    with plan_stage(make_game(*QUIXO3), path) as store:
        store.begin_attempt()
        late = next(task for task in solve_tasks(store) if task.fn is settle_chunk)
        store.end_attempt()
        store.begin_attempt()  # the solve that then ran to the end
        solve_stage(store, InProcessExecutor(), quiet=True)
    assert not (path / SCRATCH).exists()
    with pytest.raises(Superseded):
        late.fn(WorkerState(), *late.args)
    assert not (path / SCRATCH).exists(), "a late first pass recreated the scratch folder"
    assert_same_store(path, solved(*QUIXO3))


def test_the_current_attempt_writes_and_a_solve_ends_with_no_attempt_left(tmp_path, solved):
    path = tmp_path / "q3.zarr"
    with plan_stage(make_game(*QUIXO3), path) as store:
        solve_stage(store, InProcessExecutor(), quiet=True)
        assert store.attempt is not None
    assert not (path / SCRATCH).exists()
    with Store.open(path) as store:
        assert store.complete
    assert_same_store(path, solved(*QUIXO3))


def test_planning_removes_only_staging_folders_whose_creator_has_ended(tmp_path):
    """Another run may be planning beside us (its staging folder named by host and pid): its folder
    stays; one left by a process of this host that has ended goes."""
    host = socket.gethostname()
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    alive = tmp_path / f".store.zarr.planning-{host}-{os.getpid()}-0123"
    elsewhere = tmp_path / f".store.zarr.planning-other-host-{ended.pid}-4567"
    left = tmp_path / f".store.zarr.planning-{host}-{ended.pid}-89ab"
    for folder in (alive, elsewhere, left):
        (folder / "tiers").mkdir(parents=True)
    Store.create(tmp_path / "store.zarr", make_plan(make_game("tictactoe"))).close()
    assert alive.is_dir() and elsewhere.is_dir(), "another run's staging folder was deleted"
    assert not left.exists(), "a staging folder left by an ended process stayed"
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["store.zarr"]


def test_the_lock_of_a_killed_writer_is_taken_over_safely(tmp_path, cli):
    """A writer killed with SIGKILL leaves its lock file (naming it) but not its lock: the next
    solve takes the lock at once, solves, and leaves no lock file behind."""
    from retrograde.data.lock import lock_path

    store = tmp_path / "ttt.zarr"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom retrograde.data.lock import writer_lock\n"
         f"with writer_lock({str(store)!r}):\n    print('held', flush=True)\n    time.sleep(600)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        code, _, stderr = cli("solve", "tictactoe", "--store", str(store), "--workers", "0", "--quiet")
        assert code == 1 and f"pid {holder.pid} on {socket.gethostname()} since " in stderr, stderr
    finally:
        holder.kill()
        holder.wait()
    assert f"pid {holder.pid}" in lock_path(store).read_text(), "the killed writer's lock file is gone"
    code, _, stderr = cli("solve", "tictactoe", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 0, stderr
    assert not lock_path(store).exists()
    with Store.open(store) as solved_store:
        assert solved_store.complete


def test_a_lock_file_that_cannot_be_opened_raises_its_own_error(tmp_path, monkeypatch):
    """lock.py: an error opening the lock file that is neither a link nor a folder reaches the
    caller as itself (the CLI names it in a line), not as a failure of the code after it."""
    opened = os.open

    def failing(path, *args, **kw):
        if os.fspath(path) == os.fspath(lock.lock_path(tmp_path / "out")):
            raise OSError(errno.EIO, os.strerror(errno.EIO), os.fspath(path))
        return opened(path, *args, **kw)

    monkeypatch.setattr(lock.os, "open", failing)
    with pytest.raises(OSError) as raised:
        with lock.writer_lock(tmp_path / "out"):
            pass
    assert raised.value.errno == errno.EIO


def test_a_chunk_write_of_a_superseded_attempt_is_refused(solved, tmp_path):
    """data/store.py: a task writes for its driver's attempt; once a newer solve has begun its own
    attempt, the old task's next chunk write raises Superseded and writes nothing."""
    path = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", {"heaps": [1, 3, 5, 7]}), path)
    with Store.open(path, mode="r+") as driver:
        attempt = driver.begin_attempt()
    task = Store.open(path, mode="r+", attempt=attempt)
    try:
        name = task.plan.tiers[-1].name
        files = sorted((path / "tiers" / name).rglob("c/*"))
        before = [file.read_bytes() for file in files]
        packed, remoteness = task.read_chunk_raw(name, 0)
        outcome = packing.unpack(packed, remoteness.size)
        with Store.open(path, mode="r+") as newer:
            newer.begin_attempt()
        with pytest.raises(Superseded):
            task.write_chunk(name, 0, outcome, remoteness)
        assert [file.read_bytes() for file in files] == before
    finally:
        task.close()
