"""Crash torture, short and seeded (`benchmarks/bench_torture.py` is the long version):
SIGKILL at seeded moments, rerun, and the end is byte-identical to an uninterrupted run.

* a 3x3 Quixo solve on a local cluster of 2 workers, a propagation checkpoint after every level:
  one worker process is killed while the cluster works (the nanny restarts it, the solve carries
  on or stops with one line), then the whole process group (driver and workers) is killed three
  times, at seeded moments after a checkpoint is written, while the cluster starts, and after new
  first-pass or checkpoint files; the last run finishes;
* a tabular Q-learning run killed twice, after a checkpoint and at a seeded moment;
* a validation killed once mid-way: report.json, report.md and report.html are the bytes of an
  uninterrupted run (its wall-clock figures go to timings.json).

Every process runs in a session of its own whose whole group is killed afterwards
(`processes.kill_group`), so nothing outlives a test.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from conftest import NIM, assert_same_store, store_bytes
from processes import assert_one_error_line, kill_group, log_paths, run, spawned_workers, start
from retrograde.data.store import Store


class Run:
    """`python -m retrograde ARGS` in a process group of its own, output kept in `logs`."""

    def __init__(self, args: list[str], logs: Path):
        self.out, self.err = log_paths(logs)
        with open(self.out, "wb") as stdout, open(self.err, "wb") as stderr:
            self.proc = start(args, stdout=stdout, stderr=stderr)

    def until(self, condition: Callable[[], bool], timeout: float = 120) -> bool:
        """Poll until `condition` holds (True) or the command ends (False); a timeout fails."""
        deadline = time.monotonic() + timeout
        while not condition():
            if self.proc.poll() is not None:
                return condition()
            assert time.monotonic() < deadline, f"waited {timeout} s:\n{self.err.read_text()}"
            time.sleep(0.01)
        return True

    def kill(self) -> bool:
        """SIGKILL the whole group; whether the command was still running (the kill landed)."""
        landed = self.proc.poll() is None
        kill_group(self.proc)
        return landed

    def finish(self, timeout: float = 300) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            kill_group(self.proc)

    @property
    def stderr(self) -> str:
        return self.err.read_text(errors="replace")


def files(store: Path, pattern: str) -> dict[str, int]:
    """Files of the store matching `pattern`, with their modification times (the solve may delete
    a folder while it is listed: then what was found so far)."""
    found = {}
    try:
        for path in store.glob(pattern):
            try:
                found[str(path)] = path.stat().st_mtime_ns
            except FileNotFoundError:
                pass
    except FileNotFoundError:
        pass
    return found


def assert_opens(store: Path) -> int:
    """A killed solve leaves a store that opens (or none at all); positions recorded."""
    if not (store / "zarr.json").exists():
        return 0
    from retrograde.pipeline.stages import positions_done

    with Store.open(store) as opened:
        return positions_done(opened)


def test_a_local_cluster_solve_killed_at_seeded_moments_ends_byte_identical(solved, tmp_path, monkeypatch):
    rng = random.Random(2611)
    reference = solved("quixo", {"size": 3})
    monkeypatch.setenv("RETROGRADE_CHECKPOINT_SECONDS", "0")  # a checkpoint after every propagation level
    monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", "0")  # and first passes in scratch files
    monkeypatch.setenv("RETROGRADE_WORKER_PROCESSES", "1")  # worker processes to kill, not threads
    store = tmp_path / "stores" / "q3.zarr"
    store.parent.mkdir()
    logs = tmp_path / "logs"
    args = ["solve", "quixo", "--size", "3", "--store", str(store), "--workers", "2", "--quiet"]
    seen = []

    # 1. One worker process killed once the cluster works (first data on disk); then the group,
    # a seeded moment after the first propagation checkpoint.
    solve = Run(args, logs)
    try:
        assert solve.until(lambda: bool(files(store, "scratch/*/[0-9]*.npz") or files(store, "tiers/*/*/c/*")))
        time.sleep(rng.uniform(0.0, 0.3))
        workers = spawned_workers(solve.proc.pid)
        assert workers, "no worker process to kill"
        rng.choice(workers).send_signal(signal.SIGKILL)
        if solve.until(lambda: bool(files(store, "scratch/*/propagation-*.npz"))):
            time.sleep(rng.uniform(0.0, 0.3))
        landed = solve.kill()
    finally:
        kill_group(solve.proc)
    if not landed and solve.proc.returncode != 0:  # the worker's death stopped the solve: one line
        assert_one_error_line(solve.stderr)
    seen.append(("worker killed, then the group after a checkpoint", landed, assert_opens(store)))

    # 2. The group killed while the cluster starts (the driver has read the store).
    solve = Run(args, logs)
    try:
        try:
            solve.proc.wait(timeout=rng.uniform(0.5, 2.0))
        except subprocess.TimeoutExpired:
            pass
        landed = solve.kill()
    finally:
        kill_group(solve.proc)
    seen.append(("while the cluster starts", landed, assert_opens(store)))

    # 3. The group killed a seeded moment after this run writes its first new first-pass or
    # checkpoint file.
    before = {**files(store, "scratch/*/[0-9]*.npz"), **files(store, "scratch/*/propagation-*.npz")}
    solve = Run(args, logs)
    try:
        new = lambda: any(before.get(name) != stamp for name, stamp in  # noqa: E731
                          {**files(store, "scratch/*/[0-9]*.npz"), **files(store, "scratch/*/propagation-*.npz")}.items())
        if solve.until(new):
            time.sleep(rng.uniform(0.0, 0.3))
        landed = solve.kill()
    finally:
        kill_group(solve.proc)
    seen.append(("after new first-pass or checkpoint files", landed, assert_opens(store)))
    assert sum(landed for _, landed, _ in seen) >= 2, seen

    final = Run(args, logs)
    assert final.finish() == 0, f"{final.stderr}\nkills: {seen}"
    assert_same_store(store, reference, f"after the kills {seen}")
    assert [p.name for p in store.parent.iterdir()] == ["q3.zarr"], "leftovers beside the store"


def test_a_training_run_killed_twice_ends_byte_identical(tmp_path):
    from retrograde import train

    rng = random.Random(1122)
    spec, seed = "rl:episodes=3000,every=300", 4
    (tmp_path / "reference").mkdir()
    reference = train(spec, "tictactoe", tmp_path / "reference" / "q.npz", seed=seed)
    out = tmp_path / "run" / "q.npz"
    out.parent.mkdir()
    checkpoint = out.with_name("q.npz.partial") / "checkpoint.npz"
    args = ["train", spec, "--game", "tictactoe", "--out", str(out), "--seed", str(seed), "--quiet"]
    logs = tmp_path / "logs"
    landed = []
    for moment in ("after a checkpoint", "a seeded moment"):
        stamp = checkpoint.stat().st_mtime_ns if checkpoint.exists() else None
        training = Run(args, logs)
        try:
            if moment == "after a checkpoint":
                training.until(lambda: checkpoint.exists() and checkpoint.stat().st_mtime_ns != stamp)
                time.sleep(rng.uniform(0.0, 0.2))
            else:
                try:
                    training.proc.wait(timeout=rng.uniform(1.5, 3.0))
                except subprocess.TimeoutExpired:
                    pass
            landed.append(training.kill())
        finally:
            kill_group(training.proc)
        assert landed[-1] or training.proc.returncode == 0, training.stderr
    assert landed[0], "the first kill did not land"
    final = Run(args, logs)
    assert final.finish() == 0, final.stderr
    assert out.read_bytes() == reference.read_bytes()
    assert sorted(p.name for p in out.parent.iterdir()) == ["q.npz"], "a checkpoint or lock left behind"


def test_a_validation_killed_mid_way_ends_byte_identical(solved, tmp_path):
    from retrograde import validate

    rng = random.Random(77)
    store = str(solved("nim", NIM))
    agents, games, seed = "lookup,random,expert", 6, 3
    reference = tmp_path / "reference" / "report"
    validate(store, reference, agents, games=games, seed=seed, quiet=True)  # in this process: no start-up
    out = tmp_path / "run" / "report"
    out.parent.mkdir()
    args = ["validate", "--store", store, "--out", str(out), "--agents", agents, "--games", str(games),
            "--seed", str(seed), "--workers", "0", "--quiet"]
    logs = tmp_path / "logs"
    # Killed a seeded moment after it starts working: its inputs are checked once it holds the
    # report folder's lock (`.report.lock` beside the folder).
    validation = Run(args, logs)
    try:
        if validation.until(lambda: (out.parent / ".report.lock").exists()):
            time.sleep(rng.uniform(0.2, 1.2))
        landed = validation.kill()
    finally:
        kill_group(validation.proc)
    assert landed or validation.proc.returncode == 0, validation.stderr
    rerun = run(args, logs)
    assert rerun.returncode == 0, rerun.stderr
    got, want = store_bytes(out), store_bytes(reference)
    assert sorted(got) == sorted(want) == ["report.html", "report.json", "report.md", "timings.json"]
    for name in ("report.json", "report.md", "report.html"):
        assert got[name] == want[name], f"{name} differs between two runs of the same validation"
    timings = json.loads(got["timings.json"])
    assert set(timings["move_quality_s"]) == {"lookup", "random", "expert"}
    assert timings["stages"]["total_s"] > 0
    assert sorted(p.name for p in out.parent.iterdir()) == ["report"], "leftovers beside the report"
