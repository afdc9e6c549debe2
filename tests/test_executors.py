"""The same plan gives the same bytes whichever executor runs its chunk tasks.

In-process (`--workers 0`), a LocalCluster of spawned worker processes
(`--workers 2`) and an existing cluster (`dask scheduler` + 2 `dask worker`
processes started here on 127.0.0.1, reached with `--scheduler`) must write
byte-identical stores; `verify` runs on the existing cluster too. An unreachable
scheduler fails with one line and touches nothing on disk.

Every process started here runs in its own session; its whole process group is
killed in a `finally` block (or the module fixture's teardown).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import assert_same_store, store_bytes
from processes import assert_one_error_line, kill_group, run, spawned_workers, start
from retrograde.data.store import Store
from retrograde.games import make_game
from retrograde.pipeline.executors import WORKER_PROCESSES
from retrograde.pipeline.planning import plan_stage
from retrograde.pipeline.worker import WorkerState
from retrograde.pipeline.tasks import solve_chunk

#: Nim with several chunks in most tiers (tiers up to 72 positions, chunks of 8): 34 chunk tasks in
#: 17 tiers; and tic-tac-toe as a user runs it (default chunking).
GAMES = {
    "nim": ("nim", "--heaps", "2,3,5,7", "--max-take", "3", "--chunk-size", "8"),
    "tictactoe": ("tictactoe",),
}


def solve_args(game: str, store: Path, *executor: str) -> list[str]:
    return ["solve", *GAMES[game], "--store", str(store), *executor, "--quiet"]


# --- processes --------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def one_thread_env() -> dict[str, str]:
    return dict(os.environ, PYTHONUNBUFFERED="1", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1",
                MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


@dataclass
class Cluster:
    address: str
    workers_dir: Path


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """`dask scheduler` and two one-thread `dask worker` processes on 127.0.0.1 (workers run in a
    folder of their own, not the tests' working folder)."""
    from distributed import Client

    base = tmp_path_factory.mktemp("cluster")
    workers_dir = base / "workers"
    workers_dir.mkdir()
    bin_dir = Path(sys.executable).parent
    dask_cmd = ([str(bin_dir / "dask")] if (bin_dir / "dask").exists()
                else [sys.executable, "-m", "distributed.cli.dask"])
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []
    logs = []

    def start(args: list[str], name: str, cwd: Path) -> None:
        log = open(base / f"{name}.log", "wb")
        logs.append(log)
        procs.append(subprocess.Popen([*dask_cmd, *args], stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                                      stdin=subprocess.DEVNULL, env=one_thread_env(), start_new_session=True))

    try:
        start(["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], "scheduler", base)
        for i in range(2):
            start(["worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard",
                   "--name", f"w{i}", "--local-directory", str(base / f"scratch{i}")], f"worker{i}", workers_dir)
        with Client(address, timeout="60s") as client:  # until the scheduler reports both workers
            deadline = time.monotonic() + 120
            while sum(client.nthreads().values()) < 2:
                dead = [proc.args for proc in procs if proc.poll() is not None]
                assert not dead, f"cluster processes exited: {dead}; logs in {base}"
                assert time.monotonic() < deadline, f"workers did not connect; logs in {base}"
                time.sleep(0.1)
            assert sum(client.nthreads().values()) == 2
        yield Cluster(address, workers_dir)
    finally:
        for proc in procs:
            kill_group(proc)
        for log in logs:
            log.close()


@pytest.fixture(scope="module")
def in_process(tmp_path_factory):
    """in_process(game) -> store solved by the CLI with --workers 0 (cached per game)."""
    cache: dict[str, Path] = {}

    def get(game: str) -> Path:
        if game not in cache:
            path = tmp_path_factory.mktemp(f"inproc-{game}") / "store.zarr"
            result = run(solve_args(game, path, "--workers", "0"))
            assert result.returncode == 0, result.stderr
            cache[game] = path
        return cache[game]

    return get


# --- tests ------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(GAMES))
def test_in_process_local_cluster_and_scheduler_give_identical_bytes(game, in_process, cluster, tmp_path,
                                                                   monkeypatch):
    reference = in_process(game)
    with Store.open(reference) as store:
        assert store.complete
        chunks = [store.plan.chunking(tier.name).count for tier in store.plan.tiers]
    if game == "nim":
        assert sum(n > 1 for n in chunks) >= len(chunks) // 2, f"too few tiers with several chunks: {chunks}"

    local = tmp_path / "local.zarr"
    with socket.socket() as busy:  # dask's default dashboard port taken: no warning may show
        try:
            busy.bind(("127.0.0.1", 8787))
            busy.listen()
        except OSError:
            pass  # taken already (the cluster fixture's scheduler)
        threads = tmp_path / "threads.zarr"  # --workers 2 for a solve: 2 threads of the driver
        result = run(solve_args(game, threads, "--workers", "2"))
        assert result.returncode == 0 and result.stderr == "", result.stderr
        assert_same_store(threads, reference, "worker threads (--workers 2)")
        monkeypatch.setenv(WORKER_PROCESSES, "1")
        result = run(solve_args(game, local, "--workers", "2"))
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout.rstrip().endswith(f"store {local}"), result.stderr
    assert_same_store(local, reference, "LocalCluster (--workers 2)")

    remote = tmp_path / "remote.zarr"
    result = run(solve_args(game, remote, "--scheduler", cluster.address))
    assert result.returncode == 0, result.stderr
    assert_same_store(remote, reference, f"--scheduler {cluster.address}")

    verify = run(["verify", "--store", str(remote), "--scheduler", cluster.address, "--json", "--quiet"])
    assert verify.returncode == 0, verify.stdout + verify.stderr
    report = json.loads(verify.stdout)
    assert report["ok"] is True and report["wrong"] == 0 and report["bad_checksums"] == []
    with Store.open(remote) as store:
        assert report["positions"] == store.plan.positions


def test_scheduler_with_a_relative_store_path(in_process, cluster, tmp_path):
    """`--store` relative to the driver's folder works although the workers run elsewhere
    (the driver must hand tasks an absolute path)."""
    reference = in_process("nim")
    driver_dir = tmp_path / "driver"
    driver_dir.mkdir()
    assert driver_dir != cluster.workers_dir
    result = run(solve_args("nim", Path("rel.zarr"), "--scheduler", cluster.address), cwd=driver_dir)
    assert not (cluster.workers_dir / "rel.zarr").exists(), "a worker wrote a store into its own folder"
    assert result.returncode == 0, result.stderr
    assert_same_store(driver_dir / "rel.zarr", reference, "relative --store on --scheduler")


def test_unreachable_scheduler_fails_cleanly_and_touches_nothing(in_process, tmp_path):
    """Nothing listens on 127.0.0.1:1: solve (new store or a planned one) and verify fail with one
    line, a non-zero status and no traceback; no store is created and none changes."""
    bad = "tcp://127.0.0.1:1"
    new_parent = tmp_path / "new"
    new_parent.mkdir()
    new_store = new_parent / "store.zarr"

    planned = tmp_path / "planned" / "store.zarr"
    planned.parent.mkdir()
    game = make_game("nim", {"heaps": [2, 3, 5, 7], "max_take": 3})
    plan_stage(game, planned, chunk_size=8).close()
    planned_before = store_bytes(planned)

    solved = in_process("nim")
    solved_before = store_bytes(solved)

    commands = {
        "solve new": solve_args("nim", new_store, "--scheduler", bad),
        "solve planned": solve_args("nim", planned, "--scheduler", bad),
        "verify": ["verify", "--store", str(solved), "--scheduler", bad, "--quiet"],
    }
    procs = {}
    try:  # run side by side: each waits for the connection timeout
        for name, args in commands.items():
            procs[name] = start(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        outputs = {name: proc.communicate(timeout=180) for name, proc in procs.items()}
    finally:
        for proc in procs.values():
            kill_group(proc)
    for name, proc in procs.items():
        out, err = outputs[name]
        assert proc.returncode not in (0, None), f"{name}: exit status {proc.returncode}\n{err}"
        assert_one_error_line(err, "127.0.0.1:1")
        assert out == "", f"{name}: {out}"
    assert list(new_parent.iterdir()) == [], "a store (or its staging folder) was created"
    assert store_bytes(planned) == planned_before
    assert sorted(p.name for p in planned.parent.iterdir()) == ["store.zarr"]
    assert store_bytes(solved) == solved_before


def test_a_chunk_task_leaves_other_writers_temporary_files_alone(tmp_path):
    """Chunk tasks run side by side on a cluster, each writing array chunks through zarr's
    `*.partial` temporary files. A task must not delete another task's (or the driver's) temporary
    file in flight: that makes the other write fail with FileNotFoundError."""
    path = tmp_path / "store.zarr"
    game = make_game("nim", {"heaps": [2, 3, 5, 7], "max_take": 3})
    with plan_stage(game, path, chunk_size=8) as store:
        store.begin_attempt()
        ref, first, other = store.ref, store.plan.tiers[0].name, store.plan.tiers[-1].name
    # Another worker is writing chunk 0 of the last tier's remoteness right now (zarr's naming):
    in_flight = path / "tiers" / other / "remoteness" / "c" / "0.0123456789abcdef0123456789abcdef.partial"
    in_flight.parent.mkdir(parents=True, exist_ok=True)
    with open(in_flight, "wb") as writing:
        writing.write(b"\0" * 16)
        solve_chunk(WorkerState(), ref, first, 0)
        assert any((path / "tiers" / first / "outcome" / "c").iterdir()), "the chunk task wrote nothing"
        assert in_flight.exists(), (
            "solve_chunk deleted a temporary file that another writer still has open "
            "(Store.open(mode='r+') removes every *.partial file)")


def _worker_settings() -> dict:
    import numba

    return {"numba threads": numba.config.NUMBA_NUM_THREADS, "MALLOC_TRIM_THRESHOLD_": os.environ.get(
        "MALLOC_TRIM_THRESHOLD_"), "start method": __import__("multiprocessing").get_start_method()}


def test_local_cluster_workers_are_spawned_with_one_numba_thread_and_glibc_malloc():
    """Workers must not oversubscribe the cores (one numba thread each), must be spawned (zarr
    and numba's threads do not survive fork), and keep glibc's adaptive malloc (dask's default
    trim threshold made every large task array a fresh, page-faulted mapping). The scheduler
    places tasks by priority and does not steal them back and forth."""
    from retrograde.pipeline.executors import open_executor

    with open_executor(workers=2) as executor:
        settings = list(executor.client.run(_worker_settings).values())
        extensions = executor.client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.extensions))
    assert settings == [{"numba threads": 1, "MALLOC_TRIM_THRESHOLD_": None, "start method": "spawn"}] * 2
    assert "stealing" not in extensions


def _record(worker, folder: str, key: str, seconds: float) -> str:
    """A task that notes when it ran (wall-clock start and end) and where."""
    start = time.time()
    time.sleep(seconds)
    (Path(folder) / key).write_text(json.dumps([start, time.time(), os.getpid()]))
    return key


def test_the_dask_executor_runs_each_task_after_what_it_waits_for_on_a_free_thread(tmp_path):
    """Tasks go to the cluster only once what they wait for is done and a worker thread is free
    (never more running than the cluster has threads); barriers complete in the driver; each
    result is yielded once; a task's error reaches the caller."""
    from retrograde.pipeline.executors import open_executor
    from retrograde.pipeline.graph import Task, barrier, waits_for

    def timed(key, seconds, after=()):
        return Task(key, _record, (str(tmp_path), key, seconds), after)

    tasks = [timed("a", 0.4), timed("b", 0.1), timed("c", 0.1), waits_for("ab", ("a", "b")),
             timed("d", 0.1, ("ab",)), timed("e", 0.2, ("c",)), timed("f", 0.1, ("d", "e"))]
    with open_executor(workers=2) as executor:
        results = [(task.key, result) for task, result in executor.run(tasks)]
        with pytest.raises(ZeroDivisionError):
            list(executor.run([Task("bad", _divide, (1, 0))]))
    assert sorted(results) == sorted([(task.key, None if task.fn is barrier else task.key) for task in tasks])
    runs = {task.key: json.loads((tmp_path / task.key).read_text()) for task in tasks if task.fn is not barrier}
    waits = {"d": ("a", "b"), "e": ("c",), "f": ("d", "e")}
    for key, before in waits.items():
        assert all(runs[key][0] >= runs[other][1] for other in before), (key, runs)
    for began, _, _ in runs.values():
        assert sum(a <= began < b for a, b, _ in runs.values()) <= 2, runs
    assert len({pid for _, _, pid in runs.values()}) <= 2 and os.getpid() not in {pid for _, _, pid in runs.values()}


#: 4x4 Quixo with 13 or more cubes on the board, whose largest loopy group (m6o7 + m7o6, 1.9 million
#: positions) takes its propagation task a second or more: the driver is killed as that task starts.
FENCED = ("quixo", "--size", "4", "--down-to", "13")
LONG_TASK = "propagate-m6o7-m7o6-"


def _running(client) -> list[str]:
    """Keys of the tasks running in the workers' threads: those of a released (cancelled) key
    too, which the scheduler has forgotten but Python cannot stop."""
    return [key for keys in client.run(lambda dask_worker: list(dask_worker.active_threads.values())).values()
            for key in keys]


def test_a_driver_killed_on_a_remote_cluster_leaves_tasks_that_cannot_spoil_the_rerun(cluster, tmp_path):
    """Killing a driver leaves its running tasks at work on the cluster's workers. A rerun at once
    starts a new attempt, which fences them out (tests/test_fencing.py shows it task by task); once
    every worker is idle, the store holds exactly the bytes of an uninterrupted solve. The kill
    lands just after the largest group's propagation started, so that task is still running
    when the rerun begins; should a loaded machine finish it first all the same, the scenario
    is tried again on a fresh store, up to three times."""
    from distributed import Client

    reference = tmp_path / "reference.zarr"
    result = run(["solve", *FENCED, "--store", str(reference), "--workers", "0", "--quiet"])
    assert result.returncode == 0, result.stderr
    left_running = []
    with Client(cluster.address, timeout="60s") as client:
        for attempt in range(3):
            store = tmp_path / f"remote-{attempt}.zarr"
            left_running = _kill_and_rerun(client, cluster.address, store, tmp_path / f"killed-{attempt}")
            assert_same_store(store, reference, "solve rerun while a killed driver's tasks ran")
            if left_running:
                break
    assert left_running, "no kill left a task running: nothing was fenced"


def _kill_and_rerun(client, address: str, store, logs) -> list[str]:
    """Kill a remote solve's driver just after its LONG_TASK started, rerun it at once and
    wait until the workers are idle; return the tasks still running just after the kill."""
    args = ["solve", *FENCED, "--store", str(store), "--scheduler", address, "--quiet"]
    with open(f"{logs}.out", "wb") as out, open(f"{logs}.err", "wb") as err:
        driver = start(args, stdout=out, stderr=err)
    try:
        deadline, seen = time.monotonic() + 120, set()
        while True:
            running = set(_running(client))
            if any(key.startswith(LONG_TASK) for key in running - seen):
                break
            seen = running
            assert driver.poll() is None, f"the solve ended before {LONG_TASK}* was seen starting"
            assert time.monotonic() < deadline, f"{LONG_TASK}* was never seen starting"
            time.sleep(0.02)
    finally:
        kill_group(driver)  # the driver only: the cluster's workers run on
    left_running = _running(client)
    rerun = run(args)
    assert rerun.returncode == 0, rerun.stderr
    deadline = time.monotonic() + 120
    while _running(client):
        assert time.monotonic() < deadline, "the killed driver's tasks never ended"
        time.sleep(0.1)
    return left_running


def test_a_worker_killed_while_the_local_cluster_starts_it_ends_the_solve_with_one_line(tmp_path, monkeypatch):
    """A worker process SIGKILLed before it joined its LocalCluster makes dask's start fail inside
    the driver: the solve stops with one line saying to rerun (or, had the nanny recovered,
    carries on), and the rerun ends with the bytes of a solve nobody disturbed."""
    reference = tmp_path / "reference.zarr"
    assert run(["solve", "tictactoe", "--store", str(reference), "--workers", "0", "--quiet"]).returncode == 0
    store = tmp_path / "t.zarr"
    monkeypatch.setenv(WORKER_PROCESSES, "1")  # worker processes, not threads
    args = ["solve", "tictactoe", "--store", str(store), "--workers", "2", "--quiet"]
    with open(tmp_path / "killed.out", "wb") as out, open(tmp_path / "killed.err", "wb") as err:
        driver = start(args, stdout=out, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while not (workers := spawned_workers(driver.pid)):
            assert driver.poll() is None, "the solve ended before it spawned a worker"
            assert time.monotonic() < deadline, "no worker process was spawned"
            time.sleep(0.01)
        workers[0].kill()
        driver.wait(timeout=120)
    finally:
        kill_group(driver)
    stderr = (tmp_path / "killed.err").read_text()
    if driver.returncode != 0:
        assert driver.returncode == 1, stderr
        assert_one_error_line(stderr, "local cluster", "failed to start", "rerun")
        assert run(args).returncode == 0
    assert_same_store(store, reference, "a solve whose worker was killed while the cluster started it")


def _divide(worker, a, b):
    """A task that fails in its worker."""
    return a / b


def _where(worker, value):
    """A task reporting the process it ran in."""
    return value, os.getpid()


def _levels(depth: int, results: list) -> list:
    """In-driver: 3 levels of 4 tasks of affinities p0..p3, each level after the last."""
    from retrograde.pipeline.graph import Task

    _levels.seen.append(results)
    if depth == 3:
        return []
    keys = [f"level{depth}-p{p}" for p in range(4)]
    return [*(Task(key, _where, (key,), affinity=f"p{p}") for p, key in enumerate(keys)),
            Task(f"plan{depth + 1}", _levels, (depth + 1,), tuple(keys), in_driver=True)]


def test_the_dask_executor_keeps_each_affinity_on_one_worker_and_runs_what_in_driver_tasks_spawn():
    """Tasks of one affinity run in one worker process (the two workers share the four affinities);
    an in-driver task gets the results of what it waits for, and what it returns runs before the
    tasks waiting for it."""
    from retrograde.pipeline.executors import open_executor
    from retrograde.pipeline.graph import Task

    _levels.seen = []
    with open_executor(workers=2) as executor:
        results = dict((task.key, result) for task, result in executor.run(
            [Task("plan0", _levels, (0,), in_driver=True), Task("after", _where, ("after",), ("plan0",))]))
    pids = {}
    for depth in range(3):
        for p in range(4):
            key, pid = results[f"level{depth}-p{p}"]
            assert pids.setdefault(p, pid) == pid, f"affinity p{p} moved to another worker"
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    assert [[result[0] for result in seen] for seen in _levels.seen[1:]] == \
        [[f"level{depth}-p{p}" for p in range(4)] for depth in range(3)]
    assert "after" in results and _levels.seen[0] == []


def test_a_split_propagation_on_a_dask_scheduler_gives_the_bytes_of_one_task(cluster, solved, tmp_path):
    """--partitions 3 on an existing cluster of two workers: the store of one propagation task."""
    reference = solved("quixo", {"size": 4, "down_to": 13}, chunk_size=1 << 16)
    store = tmp_path / "split.zarr"
    result = run(["solve", "quixo", "--size", "4", "--down-to", "13", "--chunk-size", str(1 << 16), "--store",
                  str(store), "--scheduler", cluster.address, "--partitions", "3", "--quiet"])
    assert result.returncode == 0, result.stderr
    assert_same_store(store, reference, "--partitions 3 --scheduler")
