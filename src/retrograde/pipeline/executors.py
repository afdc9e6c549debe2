"""Executors run tasks; they know nothing of games or stores.

`run(tasks)` takes `Task`s listed in dependency order (each after the tasks it
names in `after`) and yields (task, result) as tasks finish. The in-process
executor is the reference; the dask executor runs the same tasks on a LocalCluster
it starts (worker processes, spawned) or on an existing scheduler, each as soon as
what it reads is done and a worker thread is free, the longest chain of work first;
`threads.ThreadExecutor` does the same on worker threads of the driver (kernel work).

A task's function is called `fn(worker, *args)`: `worker` is the `WorkerState` of the process
it runs in, what that process keeps between the tasks it runs (values it read, a propagation's
partitions it holds, stores it opened), made by the executor and handed to each of its tasks.
A task marked `in_driver` runs in the driver, once what it waits for is done: it is given
their results and returns more tasks (a loopy group's propagation plans its next level from
the last one's); it is done when they are. Tasks sharing an `affinity` run in one worker
process, where they may keep state between them.

`run` also takes an iterator of independent tasks (none waiting for another, run in the
driver or tied to a worker): each is drawn from it only when a thread is free to run it, so a
run of any number of tasks (a tournament's game batches) holds only those in flight.
"""

from __future__ import annotations

import heapq
import logging
import os
import signal
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from retrograde.errors import BadOption, ClusterError
from retrograde.pipeline.worker import WorkerState

#: Games smaller than this run in-process unless workers are asked for.
IN_PROCESS_LIMIT = 4_000_000
#: How often a run recounts the cluster's threads (an existing cluster may scale).
THREADS_RECOUNT_SECONDS = 5.0


@dataclass(frozen=True)
class Task:
    """One call `fn(worker, *args)`, to run after the tasks whose keys are in `after`; `cost`
    estimates its work (e.g. positions it processes), for scheduling only. With `in_driver`, the
    call is `fn(*args, results)` in the driver (`results`: those of `after`, in order) and returns
    the tasks that finish its work. Tasks of one `affinity` run in one worker process."""

    key: str
    fn: Callable
    args: tuple[Any, ...] = ()
    after: tuple[str, ...] = ()
    cost: int = 0
    in_driver: bool = False
    affinity: str | None = None


def chain_costs(tasks: Sequence[Task]) -> dict[str, int]:
    """Each task's cost plus that of the costliest chain of tasks waiting for it (tasks in
    dependency order). Running ready tasks highest first keeps a solve's longest chain
    moving while the other workers fill in around it (critical-path scheduling)."""
    waiting: dict[str, list[str]] = {}
    for task in tasks:
        for key in task.after:
            waiting.setdefault(key, []).append(task.key)
    chain: dict[str, int] = {}
    for task in reversed(tasks):
        chain[task.key] = task.cost + max((chain[key] for key in waiting.get(task.key, ())), default=0)
    return chain


def barrier(results: list[Any]) -> list[Task]:
    """An in-driver task that only waits for others (one dependency edge instead of many)."""
    return []


def waits_for(key: str, after: Sequence[str]) -> Task:
    """A barrier named `key` done once the tasks `after` are."""
    return Task(key, barrier, (), tuple(after), in_driver=True)


class _Graph:
    """The bookkeeping both executors share: which tasks wait for which, which are ready (the
    longest chain first with `critical_path`, else in the order given), and the results kept for
    in-driver tasks (as `done` got them; `fetch` turns them into results). An in-driver task
    that returns tasks is done once a barrier of its key, waiting for them, is."""

    def __init__(self, tasks: Sequence[Task], *, critical_path: bool, fetch: Callable[[Any], Any] = lambda x: x):
        self.critical_path = critical_path
        self.fetch = fetch
        self.order: dict[str, int] = {}
        self.chain: dict[str, int] = {}
        self.missing: dict[str, int] = {}
        self.dependents: dict[str, list[Task]] = {}
        self.finished: set[str] = set()
        self.results: dict[str, Any] = {}
        self.ready: list[tuple[int, int, Task]] = []
        self.added = -1
        self.add(tasks)

    def add(self, tasks: Sequence[Task]) -> None:
        chain = chain_costs(tasks)
        for task in tasks:
            self.order[task.key] = self.added = self.added + 1  # a barrier may take a spawner's key
            self.chain[task.key] = chain[task.key]
        for task in tasks:
            waiting = [key for key in task.after if key in self.order and key not in self.finished]
            self.missing[task.key] = len(waiting)
            for key in waiting:
                self.dependents.setdefault(key, []).append(task)
            if not waiting:
                self._push(task)

    def _push(self, task: Task) -> None:
        priority = -self.chain[task.key] if self.critical_path else 0
        heapq.heappush(self.ready, (priority, self.order[task.key], task))

    def pop(self) -> Task | None:
        return heapq.heappop(self.ready)[2] if self.ready else None

    def done(self, task: Task, result: Any) -> None:
        """Record `task` done: the tasks waiting only for it become ready."""
        self.finished.add(task.key)
        dependents = self.dependents.pop(task.key, ())
        if any(dependent.in_driver and dependent.fn is not barrier for dependent in dependents):
            self.results[task.key] = result  # (a barrier reads none: no result is fetched for it)
        for dependent in dependents:
            self.missing[dependent.key] -= 1
            if not self.missing[dependent.key]:
                self._push(dependent)

    def run_in_driver(self, task: Task) -> bool:
        """Run an in-driver task; True if it is done (it returned no tasks). Else its tasks
        and a barrier of its key waiting for them join the graph."""
        spawned = task.fn(*task.args, [self.fetch(self.results.pop(key)) if key in self.results else None
                                       for key in task.after])
        if not spawned:
            self.done(task, None)
            return True
        self.add([*spawned, waits_for(task.key, [new.key for new in spawned])])
        return False


class _Stream:
    """`_Graph`'s part for independent tasks drawn from an iterator: the next one when a thread
    is free, in the order given; nothing waits for them."""

    def __init__(self, tasks: Iterable[Task]):
        self.tasks = iter(tasks)

    def pop(self) -> Task | None:
        task = next(self.tasks, None)
        if task is not None and (task.after or task.in_driver or task.affinity is not None):
            raise ValueError(f"task {task.key!r} is not independent: a stream of tasks takes only those")
        return task

    def done(self, task: Task, result: Any) -> None:
        """Nothing waits for a task of a stream."""


def _schedule(tasks: Sequence[Task] | Iterable[Task], *, critical_path: bool,
              fetch: Callable[[Any], Any] = lambda x: x) -> _Graph | _Stream:
    """The graph of a list of tasks, or the stream of an iterator of independent ones."""
    if isinstance(tasks, Sequence):
        return _Graph(tasks, critical_path=critical_path, fetch=fetch)
    return _Stream(tasks)


def fill(graph: _Graph | _Stream, room: Callable[[], bool], dispatch: Callable[[Task], None]) -> list[Task]:
    """Take ready tasks from `graph` while there is `room()` for one more: in-driver tasks run
    here, the others go to `dispatch`. Returns the in-driver tasks done meanwhile."""
    passed = []
    while room():
        task = graph.pop()
        if task is None:
            break
        if task.in_driver:
            if graph.run_in_driver(task):
                passed.append(task)
            continue
        dispatch(task)
    return passed


class InProcessExecutor:
    """Runs each task in this process, in the order given (spawned tasks when they are ready)."""

    def __init__(self):
        self.worker = WorkerState()

    def worker_memory(self) -> int | None:
        """This process works alone: the machine's available memory."""
        return available_memory()

    def run(self, tasks: Sequence[Task] | Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        graph = _schedule(tasks, critical_path=False)
        while (task := graph.pop()) is not None:
            if task.in_driver:
                if graph.run_in_driver(task):
                    yield task, None
                continue
            result = task.fn(self.worker, *task.args)
            graph.done(task, result)
            yield task, result


class DaskExecutor:
    """Runs the tasks on a dask cluster and yields results as they complete.

    `client` is a dask Client, or a function returning one on first use: a LocalCluster
    then starts in the background while the driver does its own work (planning the store).
    """

    def __init__(self, client):
        self._client = client
        self._homes: dict[str, str] = {}

    @cached_property
    def client(self):
        """The client, sending each message to its scheduler at once: dask holds a client's
        messages until 10 ms after its last one (distributed 2026.8, not configurable), and each
        task here is a message submitted as the last one ends, its next worker idle meanwhile
        (a task's round trip 10.7 -> 6.0 ms; 4x4 Quixo 2% faster on 2 workers)."""
        from retrograde.pipeline.on_dask import WorkerStatePlugin

        client = self._client() if callable(self._client) else self._client
        messages = getattr(client, "scheduler_comm", None)  # a BatchedSend
        if messages is not None and hasattr(messages, "interval"):
            messages.interval = 0.0
        client.register_plugin(WorkerStatePlugin())
        return client

    def run(self, tasks: Sequence[Task] | Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        """Submit each task once the tasks it waits for are done, highest `chain_costs` first,
        never more than the cluster has threads: the scheduler then gives every task to an
        idle worker. (Submitted as one graph, a task goes to the worker holding its
        dependencies' results and waits there while other workers idle; 4x4 Quixo solves took
        up to 4 s longer.) In-driver tasks run in the driver. A task with an affinity goes to
        that affinity's worker, queued there if the worker is busy: it does not count against
        the free threads."""
        from distributed import Future, as_completed

        from retrograde.pipeline.on_dask import call_with_state

        run_id = uuid.uuid4().hex[:8]
        graph = _schedule(tasks, critical_path=True,
                          fetch=lambda held: held.result() if isinstance(held, Future) else held)
        running: dict[Any, Task] = {}
        self.client.wait_for_workers(1)
        threads, counted = self._threads(), time.monotonic()
        finished = as_completed(loop=self.client.loop)

        def dispatch(task: Task) -> None:
            # Strictly there: a loose restriction lets work stealing move the task elsewhere.
            places = {} if task.affinity is None else {"workers": [self._home(task.affinity)]}
            future = self.client.submit(call_with_state, task.fn, *task.args, key=f"{task.key}-{run_id}",
                                        pure=False, **places)
            running[future] = task
            finished.add(future)

        def submit() -> list[Task]:
            """Fill the free threads; returns the in-driver tasks done meanwhile."""
            nonlocal threads, counted
            if time.monotonic() - counted > THREADS_RECOUNT_SECONDS:  # workers may come and go
                threads, counted = self._threads(), time.monotonic()
            return fill(graph, lambda: sum(task.affinity is None for task in running.values()) < threads, dispatch)

        try:
            passed = submit()
            while True:
                for task in passed:
                    yield task, None
                if not running:
                    break
                future = self._next(finished, running)
                task = running.pop(future)
                if future.status != "finished":
                    future.result()  # raises the task's error
                graph.done(task, future)
                passed = submit()  # before fetching the result: the workers go on meanwhile
                yield task, future.result()
        finally:
            self.client.cancel(list(running))

    def _next(self, finished, running: dict[Any, Task]):
        """The next finished future. A task tied to a worker waits for that worker for ever:
        if it left the cluster, its state is lost (ClusterError)."""
        checked = time.monotonic()
        while True:
            if time.monotonic() - checked > THREADS_RECOUNT_SECONDS:
                checked = time.monotonic()
                tied = {self._homes[task.affinity] for task in running.values() if task.affinity is not None}
                gone = tied - set(self.client.nthreads()) if tied else set()
                if gone:
                    raise ClusterError(f"worker {sorted(gone)[0]} left the cluster with the state of tasks "
                                       "tied to it; rerun the command to resume")
            with finished.thread_condition:  # as_completed's own wait, woken as a future finishes
                if finished.has_ready():
                    break
                finished.thread_condition.wait(timeout=0.1)
        return next(finished)

    def _home(self, affinity: str) -> str:
        """The worker of `affinity`: the one it was given, or (new, or that worker gone) the
        worker with the fewest affinities."""
        workers = sorted(self.client.nthreads())
        if self._homes.get(affinity) not in workers:
            load = {worker: 0 for worker in workers}
            for home in self._homes.values():
                if home in load:
                    load[home] += 1
            self._homes[affinity] = min(workers, key=lambda worker: (load[worker], workers.index(worker)))
        return self._homes[affinity]

    def _threads(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def worker_memory(self) -> int | None:
        """The least memory limit the cluster's workers report (None: none set)."""
        self.client.wait_for_workers(1)
        limits = self.client.run(lambda dask_worker: dask_worker.memory_manager.memory_limit or 0).values()
        return min(limits) if limits and min(limits) > 0 else None


def available_memory() -> int:
    """MemAvailable of /proc/meminfo (Linux), else the machine's physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def worker_environment() -> dict[str, str]:
    """One numba/BLAS thread per worker process (parallelism comes from chunks), set before
    the worker process starts so that numba reads it at import."""
    return {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1"}


def runs_in_process(workers: int | None, positions: int | None) -> bool:
    """Whether a local run works in this process: --workers 0, or a game under
    IN_PROCESS_LIMIT positions when --workers is not given (None: work not counted in
    positions, and worth a cluster)."""
    return workers == 0 or (workers is None and positions is not None and positions < IN_PROCESS_LIMIT)


def worker_processes(workers: int | None, positions: int | None) -> int:
    """Processes a local run works in: this one, or `workers` (default one per core)."""
    return 1 if runs_in_process(workers, positions) else workers or os.cpu_count() or 1


def _start_deaf_to_ctrl_c(start: Callable, *args, **kwargs):
    """Call `start` in this (non-main) thread with SIGINT blocked. The threads it starts, and the
    worker processes they spawn, inherit the blocked signal: a Ctrl-C at the terminal goes to the
    whole process group, and a worker would die of it printing a traceback. Only the driver
    sees it, and stops the cluster. (Starting multiprocessing's resource tracker unblocks SIGINT
    in the thread that starts it, so it is started first.)"""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    return start(*args, **kwargs)


#: Set to 1, local workers are always processes of a LocalCluster, also for kernel work.
WORKER_PROCESSES = "RETROGRADE_WORKER_PROCESSES"


@contextmanager
def open_executor(*, workers: int | None = None, scheduler: str | None = None,
                  positions: int | None = 0, kernels: bool = False) -> Iterator[Any]:
    """The executor a command asked for.

    `scheduler` connects to an existing dask cluster; `workers=0` runs in-process;
    otherwise `workers` local workers (default: one per core) start, except for games under
    IN_PROCESS_LIMIT `positions` (None: work not counted in positions, and worth a cluster)
    when `workers` is not given. With `kernels` (tasks that spend their time in numba kernels,
    which release the GIL: solving, verifying, analysing) the local workers are threads of this
    process (`threads.ThreadExecutor`: 4x4 Quixo 1.5 times as fast as a LocalCluster of 2
    processes on 2 cores, 5x5 `--down-to 24` 1.1 times), unless RETROGRADE_WORKER_PROCESSES=1;
    else they are processes of a LocalCluster (Python work, such as playing games, holds the GIL).
    """
    if workers is not None and workers < 0:
        raise BadOption(f"--workers {workers}: must be >= 0")
    if scheduler:
        from distributed import Client

        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise BadOption(f"--scheduler {scheduler!r}: cannot connect ({exc})") from None
        with client:
            yield DaskExecutor(client)
        return
    if runs_in_process(workers, positions):
        yield InProcessExecutor()
        return
    if kernels and os.environ.get(WORKER_PROCESSES) != "1":
        from retrograde.pipeline.threads import ThreadExecutor

        executor = ThreadExecutor(worker_processes(workers, positions))
        try:
            yield executor
        finally:
            executor.close()
        return
    import dask
    from distributed import Client, LocalCluster

    n = worker_processes(workers, positions)
    # dask's default pre-spawn MALLOC_TRIM_THRESHOLD_ turns off glibc's adaptive mmap threshold:
    # every large array a task allocates is then a fresh mapping, page-faulted in again
    # (twice the system time of an in-process 4x4 Quixo solve). Workers keep glibc's defaults.
    # Work stealing stays off: `run` hands out tasks only to free threads, so there is nothing
    # to rebalance (with whole graphs submitted, stealing cost a 4x4 Quixo solve 3.5 s). Workers
    # do not sample their threads' stacks every 10 ms for the dashboard's profiles (4x4 Quixo
    # 1.4% faster on 2 workers without).
    # The scheduler's HTTP server takes any free port on loopback (a busy 8787 would print a
    # warning). Workers log only critical errors: a task's error reaches the driver through its
    # future, and a worker that loses the scheduler while the driver stops would log one.
    # The cluster starts in a thread (its worker processes take seconds to spawn and import)
    # while the caller goes on; the first use of the executor's client waits for it.
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn",
                          "distributed.nanny.pre-spawn-environ": worker_environment(),
                          "distributed.scheduler.work-stealing": False,
                          "distributed.worker.profile.enabled": False}), \
            ThreadPoolExecutor(1, thread_name_prefix="retrograde-cluster") as starter:
        earlier = _children()
        starting = starter.submit(_start_deaf_to_ctrl_c, LocalCluster, n_workers=n, threads_per_worker=1,
                                  processes=True, dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.CRITICAL)
        clients = []

        def connect():
            try:
                cluster = starting.result()
            except Exception as exc:  # dask raises what a dying worker process left: any error
                raise ClusterError(f"the local cluster of {n} worker processes failed to start "
                                   f"({type(exc).__name__}: {exc}); rerun the command to resume") from None
            clients.append(Client(cluster))
            return clients[0]

        try:
            yield DaskExecutor(connect)
        finally:
            for client in clients:
                client.close()
            _close_local_cluster(starting, earlier)


def _children() -> dict[int, Any]:
    """This process's live child processes but multiprocessing's resource tracker, by pid."""
    from multiprocessing import resource_tracker

    import psutil

    tracker = getattr(resource_tracker._resource_tracker, "_pid", None)
    return {child.pid: child for child in psutil.Process().children(recursive=True) if child.pid != tracker}


def _close_local_cluster(starting, earlier: dict[int, Any]) -> None:
    """Close the LocalCluster `starting` started (a failed start closed itself) and make sure
    none of its worker processes outlives it: one left running would go on writing into a store
    that a rerun is already resuming. A worker busy in a kernel can miss the close deadline on a
    loaded machine, its nanny may restart it meanwhile, and a start cut short can leave one being
    spawned; so every child process started since the cluster began starting is ended, until
    none is left, not only the workers the cluster knows."""
    import psutil

    if starting.exception() is None:
        try:
            starting.result().close(timeout=30)
        except TimeoutError:  # the workers are ended below all the same
            pass
    for _ in range(10):
        left = [child for pid, child in _children().items() if pid not in earlier]
        if not left:
            return
        for child in left:
            try:
                child.kill()
            except psutil.Error:  # it ended as it should
                pass
        psutil.wait_procs(left, timeout=10)
