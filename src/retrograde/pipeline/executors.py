"""Executors run tasks; they know nothing of games or stores.

`run(tasks)` takes `Task`s listed in dependency order (each after the tasks it
names in `after`) and yields (task, result) as tasks finish. The in-process
executor is the reference; the dask executor submits the same tasks as a graph
(so independent work runs as soon as what it reads is done) on a LocalCluster it
starts (worker processes, spawned) or on an existing scheduler.
"""

from __future__ import annotations

import logging
import os
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Iterator, Sequence

from retrograde.errors import BadOption

#: Games smaller than this run in-process unless workers are asked for.
IN_PROCESS_LIMIT = 4_000_000


@dataclass(frozen=True)
class Task:
    """One call `fn(*args)`, to run after the tasks whose keys are in `after`; `cost` estimates
    its work (e.g. positions it processes), for scheduling only."""

    key: str
    fn: Callable
    args: tuple[Any, ...] = ()
    after: tuple[str, ...] = ()
    cost: int = 0


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


def barrier() -> None:
    """A task that only waits for others (one dependency edge instead of many)."""


def _call(fn: Callable, args: tuple, *done: Any) -> Any:
    return fn(*args)


class InProcessExecutor:
    """Runs each task in this process, in the order given."""

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, Any]]:
        for task in tasks:
            yield task, task.fn(*task.args)


class DaskExecutor:
    """Submits the tasks as a dask graph and yields results as they complete."""

    def __init__(self, client):
        self.client = client

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, Any]]:
        from distributed import as_completed

        run_id = uuid.uuid4().hex[:8]
        chain = chain_costs(tasks)
        by_key: dict[str, Any] = {}
        tasks_of: dict[Any, Task] = {}
        for task in tasks:
            after = [by_key[key] for key in task.after if key in by_key]
            future = self.client.submit(_call, task.fn, task.args, *after, key=f"{task.key}-{run_id}",
                                        priority=chain[task.key], pure=False)
            by_key[task.key] = future
            tasks_of[future] = task
        try:
            for future in as_completed(list(tasks_of)):
                yield tasks_of[future], future.result()
        finally:
            self.client.cancel(list(tasks_of))


def worker_environment() -> dict[str, str]:
    """One numba/BLAS thread per worker process (parallelism comes from chunks), set before
    the worker process starts so that numba reads it at import."""
    return {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1"}


@contextmanager
def open_executor(*, workers: int | None = None, scheduler: str | None = None,
                  positions: int = 0) -> Iterator[InProcessExecutor | DaskExecutor]:
    """The executor a command asked for.

    `scheduler` connects to an existing dask cluster; `workers=0` runs in-process;
    otherwise a LocalCluster of `workers` processes (default: one per core) starts,
    except for games under IN_PROCESS_LIMIT positions when `workers` is not given.
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
    if workers == 0 or (workers is None and positions < IN_PROCESS_LIMIT):
        yield InProcessExecutor()
        return
    import dask
    from distributed import Client, LocalCluster

    n = workers or os.cpu_count() or 1
    # dask's default pre-spawn MALLOC_TRIM_THRESHOLD_ turns off glibc's adaptive mmap threshold:
    # every large array a task allocates is then a fresh mapping, page-faulted in again
    # (twice the system time of an in-process 4x4 Quixo solve). Workers keep glibc's defaults.
    # Work stealing moves queued chunk tasks between one-thread workers after the scheduler
    # placed them by priority; without it a 4x4 Quixo solve is 3.5 s (15%) faster on 2 workers.
    # The scheduler's HTTP server takes any free port (a busy 8787 would print a warning).
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn",
                          "distributed.nanny.pre-spawn-environ": worker_environment(),
                          "distributed.scheduler.work-stealing": False}):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                          silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            yield DaskExecutor(client)
