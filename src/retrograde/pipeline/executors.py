"""Executors run tasks; they know nothing of games or stores.

`run(tasks)` takes `Task`s listed in dependency order (each after the tasks it
names in `after`) and yields (task, result) as tasks finish. The in-process
executor is the reference; the dask executor runs the same tasks on a LocalCluster
it starts (worker processes, spawned) or on an existing scheduler, each as soon as
what it reads is done and a worker thread is free, the longest chain of work first;
`threads.ThreadExecutor` does the same on worker threads of the driver (kernel work).
`open_executor` picks the executor a command asked for. Which tasks are ready is the task
graph's (`graph`); the local cluster's processes are `local_cluster`'s.

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

import os
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import Any

from retrograde.errors import BadOption, ClusterError
from retrograde.pipeline.graph import Task, fill, schedule
from retrograde.pipeline.memory import available_memory
from retrograde.pipeline.worker import WorkerState

#: Games smaller than this run in-process unless workers are asked for.
IN_PROCESS_LIMIT = 4_000_000
#: How often a run recounts the cluster's threads (an existing cluster may scale).
THREADS_RECOUNT_SECONDS = 5.0


class InProcessExecutor:
    """Runs each task in this process, in the order given (spawned tasks when they are ready)."""

    def __init__(self):
        self.worker = WorkerState()

    def worker_memory(self) -> int | None:
        """This process works alone: the machine's available memory."""
        return available_memory()

    def worker_count(self) -> int:
        """Workers, each holding its own partitions of a split propagation: this process."""
        return 1

    def run(self, tasks: Sequence[Task] | Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        graph = schedule(tasks, critical_path=False)
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
        graph = schedule(tasks, critical_path=True,
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

    def worker_count(self) -> int:
        """Workers, each holding its own partitions of a split propagation: the cluster's worker
        processes."""
        self.client.wait_for_workers(1)
        return len(self.client.nthreads())

    def worker_memory(self) -> int | None:
        """The least memory limit the cluster's workers report (None: none set)."""
        self.client.wait_for_workers(1)
        limits = self.client.run(lambda dask_worker: dask_worker.memory_manager.memory_limit or 0).values()
        return min(limits) if limits and min(limits) > 0 else None


#: The least memory a local worker holds (its interpreter, numba's kernels, a chunk's buffers):
#: --workers beyond the machine's available memory over it is refused before any starts.
WORKER_FLOOR = 64 << 20
#: How long --scheduler's address may take to answer before it is refused (a command answers
#: within 10 s, the connection attempt included).
CONNECT_SECONDS = 5


def runs_in_process(workers: int | None, positions: int | None) -> bool:
    """Whether a local run works in this process: --workers 0, or a game under
    IN_PROCESS_LIMIT positions when --workers is not given (None: work not counted in
    positions, and worth a cluster)."""
    return workers == 0 or (workers is None and positions is not None and positions < IN_PROCESS_LIMIT)


def worker_processes(workers: int | None, positions: int | None) -> int:
    """Processes a local run works in: this one, or `workers` (default one per core)."""
    return 1 if runs_in_process(workers, positions) else workers or os.cpu_count() or 1


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
    if workers is not None and workers > (most := max(1, available_memory() // WORKER_FLOOR)):
        raise BadOption(f"--workers {workers}: at most {most:,} local workers on this machine (each holds "
                        f"{WORKER_FLOOR >> 20} MiB at least)")
    if scheduler:
        from distributed import Client

        try:
            client = Client(scheduler, timeout=f"{CONNECT_SECONDS}s")
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
    from retrograde.pipeline.local_cluster import local_cluster

    with local_cluster(worker_processes(workers, positions)) as connect:
        yield DaskExecutor(connect)
