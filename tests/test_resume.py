"""Interrupted solves resume to exactly the bytes of an uninterrupted solve.

A solve is killed (SIGKILL of its whole process group, or Ctrl-C) at seeded random
moments, rerun each time, then run to completion; the final store must hold the
same files with the same bytes (array chunks and every zarr.json, which holds the
per-chunk checksums) as a store solved in one go, `status` must call it complete
and `verify` must pass. Between runs the store must always be openable and every
chunk it records must describe bytes that are on disk (records are written only
after the data).

Every process is started in its own session and its whole process group is
killed in a `finally` block, so nothing outlives a test. Assertions are always on
the final bytes: a kill that lands after the solve finished is fine.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import assert_same_store, store_bytes
from processes import assert_one_error_line, group_members, kill_group, log_paths, run, start
from retrograde.data.store import chunk_checksum, Store
from retrograde.pipeline.executors import WORKER_PROCESSES

#: Nim 1,3,5,7,9 taking at most 4: 3,840 positions, 26 tiers, 76 chunks of <= 64 positions;
#: a few seconds in-process, long enough for kills to land mid-solve.
GAME = ("nim", "--heaps", "1,3,5,7,9", "--max-take", "4", "--chunk-size", "64")


def solve_args(store: Path, workers: int = 0) -> list[str]:
    return ["solve", *GAME, "--store", str(store), "--workers", str(workers), "--quiet"]


# --- processes ------------------------------------------------------------------------------
class Solve:
    """`python -m retrograde ARGS` in its own session (process group), output to files."""

    def __init__(self, args: list[str], logs: Path, *, command: list[str] | None = None):
        self.out_path, self.err_path = log_paths(logs)
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = start(args, stdout=out, stderr=err, command=command)
        self.pgid = self.proc.pid

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    def running(self) -> bool:
        return self.proc.poll() is None

    def signal_group(self, sig: int) -> None:
        if group_members(self.pgid):
            try:
                os.killpg(self.pgid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> int:
        """SIGKILL the whole group, reap the leader, wait until no member is left; the exit status."""
        kill_group(self.proc)
        return self.proc.returncode

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout=timeout)

    def cleanup(self) -> None:
        self.kill()


def wait_until(condition, solve: Solve, timeout: float, poll: float = 0.01) -> bool:
    """Poll `condition` until it holds (True) or the solve exits or time runs out (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        if not solve.running():
            return condition()
        time.sleep(poll)
    return False


def chunk_data_written(store: Path) -> bool:
    """Some chunk task has written array data into the store."""
    return store.is_dir() and any((store / "tiers").glob("*/*/c/*"))


def chunk_recorded(store: Path) -> bool:
    """The driver has recorded some chunk as done (its checksum is in a tier's document)."""
    for document in store.glob("tiers/*/zarr.json"):
        try:
            if '"checksum"' in document.read_text():
                return True
        except OSError:
            pass
    return False


# --- store checks ---------------------------------------------------------------------------
@dataclass
class State:
    exists: bool
    complete: bool = False
    records: dict = None  # (tier, chunk) -> checksum of every recorded chunk


def inspect(store: Path) -> State:
    """What a killed run left: no store at all, or a store that opens and whose every recorded
    chunk has exactly the checksum of the bytes on disk."""
    if not store.exists():
        return State(exists=False, records={})
    with Store.open(store) as opened:
        records = {}
        for tier in opened.plan.tiers:
            assert (store / "tiers" / tier.name / "zarr.json").is_file(), f"tier {tier.name} missing from the plan"
            for chunk, record in enumerate(opened.record(tier.name).chunks):
                if record is None:
                    continue
                on_disk = chunk_checksum(*opened.read_chunk_raw(tier.name, chunk))
                assert on_disk == record["checksum"], (
                    f"{tier.name}/{chunk} is recorded as done but its bytes on disk do not match its checksum")
                records[(tier.name, chunk)] = record["checksum"]
        return State(exists=True, complete=opened.complete, records=records)


def assert_status_complete(store: Path, reference_status: dict, logs: Path) -> None:
    result = run(["status", "--store", str(store), "--json"], logs)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["complete"] is True
    assert all(tier["status"] == "solved" for tier in report["tiers"])
    assert report["tiers"] == reference_status["tiers"]


# --- the reference: one uninterrupted solve ------------------------------------------------
@dataclass
class Reference:
    path: Path
    work_seconds: float  # from the store's first appearance to the end of the solve
    status: dict


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Reference:
    """The instance solved in one go by the CLI; its duration bounds the kill moments."""
    base = tmp_path_factory.mktemp("reference")
    # Warm up first (numba may have to compile and cache its kernels), so the measured duration
    # is that of an ordinary run, not of the first one.
    logs = base / "logs"
    warm = run(["solve", "nim", "--heaps", "1,2", "--max-take", "4", "--store", str(base / "warm.zarr"),
                "--workers", "0", "--quiet"], logs)
    assert warm.returncode == 0, warm.stderr
    path = base / "store.zarr"
    solve = Solve(solve_args(path), logs)
    try:
        assert wait_until(path.exists, solve, timeout=120), solve.stderr
        started = time.monotonic()
        assert solve.wait(timeout=300) == 0, solve.stderr
        work_seconds = time.monotonic() - started
    finally:
        solve.cleanup()
    status = run(["status", "--store", str(path), "--json"], logs)
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["complete"] is True and len(report["tiers"]) == 26
    assert sum(t["win"] + t["loss"] + t["draw"] for t in report["tiers"]) > 0
    return Reference(path, work_seconds, report)


# --- tests ----------------------------------------------------------------------------------
def test_sigkill_at_random_moments_then_resume_gives_identical_bytes(reference, tmp_path):
    """The issue's test: SIGKILL a solve 5 times at seeded random moments within the duration of
    an uninterrupted run, rerunning solve each time, then finish: same bytes as one clean run.

    Moments count from the store's appearance, not from the process start, so that a slow
    interpreter start on a loaded machine does not push every kill before the store exists.
    The first kill lands as soon as a chunk is recorded, so one kill always hits mid-solve."""
    rng = random.Random(1729)
    store = tmp_path / "stores" / "store.zarr"
    store.parent.mkdir()
    logs = tmp_path / "logs"
    # Increasing moments within the work of one uninterrupted run; later ones land in ever later
    # phases of resumed runs (and may land after the end, which is fine).
    delays = [None] + sorted(rng.uniform(0.0, 1.0) * reference.work_seconds for _ in range(4))
    interrupted = 0
    history = []  # (kill moment, store exists, chunks recorded, complete) after each kill
    previous = State(exists=False, records={})
    for delay in delays:
        solve = Solve(solve_args(store), logs)
        try:
            if delay is None:
                wait_until(lambda: chunk_recorded(store), solve, timeout=120)
            elif wait_until(store.exists, solve, timeout=120):
                time.sleep(delay)
            # It may have finished before its kill moment: fine, if it finished well.
            rc = solve.kill()
            assert rc in (0, -signal.SIGKILL), f"solve failed on its own (rc {rc}):\n{solve.stderr}"
        finally:
            solve.cleanup()
        state = inspect(store)
        history.append((delay and round(delay, 2), state.exists, len(state.records), state.complete))
        if not state.complete:
            interrupted += 1
        # Chunk records are never lost or changed by a kill: the store only moves forward.
        assert previous.records.items() <= state.records.items()
        previous = state
    assert interrupted >= 1, f"no kill landed before the solve finished: {history}"
    # ... and at least one landed mid-solve, with some chunks recorded and others not.
    assert any(exists and records and not complete for _, exists, records, complete in history), history

    final = run(solve_args(store), logs)
    assert final.returncode == 0, final.stderr
    assert_same_store(store, reference.path)
    assert_status_complete(store, reference.status, logs)
    assert [p.name for p in store.parent.iterdir()] == ["store.zarr"], "leftover planning folders"
    verify = run(["verify", "--store", str(store), "--workers", "0", "--quiet"], logs)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_ctrl_c_stops_with_one_line_and_the_rerun_finishes_identically(reference, tmp_path):
    """SIGINT (Ctrl-C) to a running solve: non-zero exit, one line on stderr, no traceback, a store
    that resumes to the same bytes."""
    rng = random.Random(31337)
    store = tmp_path / "store.zarr"
    solve = Solve(solve_args(store), tmp_path / "logs")
    try:
        assert wait_until(lambda: chunk_data_written(store), solve, timeout=120), solve.stderr
        assert solve.running(), "the solve finished before Ctrl-C could be sent"
        time.sleep(rng.uniform(0.0, 0.3))
        solve.signal_group(signal.SIGINT)
        rc = solve.wait(timeout=60)
    finally:
        solve.cleanup()
    stderr = solve.stderr
    assert rc != 0, f"Ctrl-C did not stop the solve (rc {rc}):\n{stderr}"
    assert "Traceback" not in stderr, stderr
    state = inspect(store)
    assert state.exists and not state.complete, "the solve was not interrupted"

    rerun = run(solve_args(store), tmp_path / "logs")
    assert rerun.returncode == 0, rerun.stderr
    assert_same_store(store, reference.path)
    assert rc == 130, f"exit status {rc} after Ctrl-C:\n{stderr}"
    assert_one_error_line(stderr, "interrupted")


#: Runs the CLI with Ctrl-C arriving while the store's I/O is in flight, as on a slow file system:
#: the first read of a chunk's files sends SIGINT to the process and then takes a second.
CTRL_C_DURING_IO = """
import os, signal, time
from retrograde.data.store import Store
_read = Store._chunk_files
_fired = []
def read(self, *args, **kwargs):
    if not _fired:
        _fired.append(args)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1.0)
    return _read(self, *args, **kwargs)
Store._chunk_files = read
from retrograde.cli import main
main()
"""


def test_ctrl_c_while_store_io_is_in_flight_prints_one_line(reference, tmp_path):
    """Ctrl-C while a chunk read is pending (deterministic: the read itself raises SIGINT):
    still exactly one line on stderr, and the store resumes to the same bytes."""
    store = tmp_path / "store.zarr"
    result = run(solve_args(store), tmp_path / "logs", command=[sys.executable, "-c", CTRL_C_DURING_IO])
    assert result.returncode == 130, result.stderr
    state = inspect(store)
    assert state.exists and not state.complete
    rerun = run(solve_args(store), tmp_path / "logs")
    assert rerun.returncode == 0, rerun.stderr
    assert_same_store(store, reference.path)
    assert_one_error_line(result.stderr, "interrupted")


def test_kill_in_the_first_moments_even_before_the_plan_is_written(reference, tmp_path):
    """Killed during start-up, while the plan is being written (its staging folder exists) and just
    after the store appears: every rerun works, the final store is byte-identical, and no
    half-planned store or staging folder is left."""
    rng = random.Random(4242)
    parent = tmp_path / "stores"
    parent.mkdir()
    store = parent / "store.zarr"
    logs = tmp_path / "logs"

    def staging() -> set[str]:
        return {p.name for p in parent.glob(".store.zarr.planning-*")}

    def planning(solve: Solve) -> bool:
        """Wait until this run starts writing its plan (a new staging folder) or the store exists."""
        stale = staging()
        return wait_until(lambda: store.exists() or bool(staging() - stale), solve, timeout=120, poll=0.001)

    moments = [
        ("during start-up", lambda solve: solve.wait(timeout=rng.uniform(0.0, 0.5))),
        ("while planning", planning),
        ("while planning", planning),
        ("right after planning", lambda solve: wait_until(lambda: (store / "zarr.json").exists(), solve,
                                                          timeout=120, poll=0.001)),
    ]
    seen = []
    for label, wait in moments:
        if wait is planning and store.exists():
            # Only a run without a store plans: one a faster start-up left whole is set aside (as a
            # user would delete it), any staging folder a killed run left is kept for the rerun.
            shutil.rmtree(store)
        solve = Solve(solve_args(store), logs)
        try:
            try:
                wait(solve)
            except subprocess.TimeoutExpired:
                pass
            finished = not solve.running()
            rc = solve.kill()
            assert finished or rc == -signal.SIGKILL
            assert not finished or rc == 0, solve.stderr
        finally:
            solve.cleanup()
        state = inspect(store)  # never a half-planned store: absent, or a whole plan that opens
        seen.append((label, state.exists, len(state.records), sorted(staging())))
    # The kills landed early: at least once there was no store yet, or one with no chunk recorded.
    assert any(not exists or not records for _, exists, records, _ in seen), seen
    # Writing the plan takes a few hundred milliseconds: a kill landed while it was being written
    # (a staging folder, no store), the case a half-planned store would come from.
    assert any(not exists and staging for _, exists, _, staging in seen), seen

    final = run(solve_args(store), logs)
    assert final.returncode == 0, f"{final.stderr}\nstates after kills: {seen}"
    assert_same_store(store, reference.path)
    assert [p.name for p in parent.iterdir()] == ["store.zarr"], f"leftovers; states after kills: {seen}"


@pytest.mark.parametrize("kind", ["processes", "threads"])
def test_kill_a_local_cluster_solve_then_resume_in_process(reference, tmp_path, monkeypatch, kind):
    """SIGKILL a `--workers 2` solve (the driver and its worker threads; or driver, nanny and worker
    processes) mid-solve; no worker survives to write into the store; a `--workers 0` rerun gives
    the same bytes."""
    rng = random.Random(99)
    store = tmp_path / "store.zarr"
    monkeypatch.setenv(WORKER_PROCESSES, "1" if kind == "processes" else "0")
    solve = Solve(solve_args(store, workers=2), tmp_path / "logs")
    try:
        wait_until(lambda: chunk_data_written(store), solve, timeout=240, poll=0.05)
        try:
            rc = solve.wait(timeout=rng.uniform(0.0, 1.0))
        except subprocess.TimeoutExpired:
            rc = solve.kill()  # also waits until every process of the group is gone
        assert rc in (0, -signal.SIGKILL), f"the local-cluster solve failed on its own (rc {rc}):\n{solve.stderr}"
        assert not group_members(solve.pgid)
    finally:
        solve.cleanup()
    before = store_bytes(store) if store.exists() else None
    state = inspect(store)
    time.sleep(0.5)
    assert (store_bytes(store) if store.exists() else None) == before, "something still writes into the store"
    assert state.exists

    rerun = run(solve_args(store, workers=0), tmp_path / "logs")
    assert rerun.returncode == 0, rerun.stderr
    assert_same_store(store, reference.path)


#: A stop signal whose handler runs inside a finalizer: Python cannot raise its exception there.
LOST_IN_A_FINALIZER = """
import os, signal, sys, time
from retrograde import exits

signal.signal(signal.{name}, exits._on_stop_signal)


class Finalised:
    def __del__(self):
        os.kill(os.getpid(), signal.{name})
        time.sleep(0.05)  # the handler runs here, and its exception goes to sys.unraisablehook


try:
    Finalised()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.01)
    print("went on")
except BaseException as stop:
    print("stopped by", type(stop).__name__)
"""


@pytest.mark.parametrize("name, stop", [("SIGINT", "KeyboardInterrupt"), ("SIGTERM", "Terminated")])
def test_a_stop_signal_handled_inside_a_finalizer_still_stops_the_command(name, stop):
    """A signal can land while a finalizer or weakref callback runs in the main thread, where its
    exception is lost (a solve sent Ctrl-C as its cluster started, in the test below, went on to
    its end about 1 run in 40): the signal is sent again, to land where it unwinds the command."""
    ran = subprocess.run([sys.executable, "-c", LOST_IN_A_FINALIZER.format(name=name)], capture_output=True,
                         text=True, timeout=60)
    assert ran.stdout.strip() == f"stopped by {stop}", ran.stdout + ran.stderr


@pytest.mark.parametrize("moment", ["while the workers start", "mid-solve"])
@pytest.mark.parametrize("sig,code,words", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "stopped by SIGTERM")])
def test_ctrl_c_or_sigterm_to_a_local_cluster_solve_prints_one_line(reference, tmp_path, moment, sig, code, words, monkeypatch):
    """Ctrl-C at a terminal reaches the whole process group (the driver and every worker process);
    SIGTERM (`kill PID`) only the driver. Either way: the driver's one line and nothing else (no
    worker traceback, no leaked-semaphore warning), its exit status, and a store that resumes to
    the same bytes."""
    store = tmp_path / "store.zarr"
    monkeypatch.setenv(WORKER_PROCESSES, "1")  # worker processes (threads: the kill test above)
    solve = Solve(solve_args(store, workers=2), tmp_path / "logs")
    try:
        if moment == "mid-solve":
            assert wait_until(lambda: chunk_data_written(store), solve, timeout=120), solve.stderr
        else:  # the cluster starts in the background as soon as the command has read its options
            assert wait_until(lambda: (store / "zarr.json").exists(), solve, timeout=120, poll=0.001)
        assert solve.running(), f"the solve ended before the signal:\n{solve.stderr}"
        if sig == signal.SIGINT:
            solve.signal_group(sig)
        else:
            solve.proc.send_signal(sig)
        rc = solve.wait(timeout=60)
        deadline = time.monotonic() + 30  # the resource tracker ends when it sees the driver gone
        while group_members(solve.pgid):
            assert time.monotonic() < deadline, f"processes {group_members(solve.pgid)} outlived the driver"
            time.sleep(0.05)
    finally:
        solve.cleanup()
    assert rc == code, solve.stderr
    assert_one_error_line(solve.stderr, words, "rerun the same command to resume")
    rerun = run(solve_args(store), tmp_path / "logs")
    assert rerun.returncode == 0, rerun.stderr
    assert_same_store(store, reference.path)


def test_an_interrupted_verify_does_not_promise_a_resume(reference, tmp_path):
    """verify keeps no progress: Ctrl-C during it says to rerun it, not that it resumes (it used
    to print "rerun the same command to resume" and then start over); the store is untouched."""
    before = store_bytes(reference.path)
    args = ["verify", "--store", str(reference.path), "--workers", "0", "--quiet"]
    result = run(args, tmp_path / "logs", command=[sys.executable, "-c", CTRL_C_DURING_IO])
    assert result.returncode == 130, result.stderr
    line = assert_one_error_line(result.stderr, "interrupted; verify keeps no progress: rerun it to check again")
    assert "resume" not in line
    assert store_bytes(reference.path) == before
