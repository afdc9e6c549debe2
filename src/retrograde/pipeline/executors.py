"""Executors run chunk tasks; they know nothing of games or stores.

`map_unordered(calls)` takes (function, arguments) pairs and yields
(arguments, result) as tasks finish. The
in-process executor is the reference; the dask executor runs the same calls on a
LocalCluster it starts (worker processes, spawned) or on an existing scheduler.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from retrograde.errors import BadOption

#: Games smaller than this run in-process unless workers are asked for.
IN_PROCESS_LIMIT = 4_000_000

Call = tuple[Callable, tuple[Any, ...]]


class InProcessExecutor:
    """Runs each call in this process, in order."""

    workers = 1

    def map_unordered(self, calls: Iterable[Call]) -> Iterator[tuple[tuple, Any]]:
        for fn, args in calls:
            yield args, fn(*args)


class DaskExecutor:
    """Submits each call as a dask task and yields results as they complete."""

    def __init__(self, client):
        self.client = client

    @property
    def workers(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def map_unordered(self, calls: Iterable[Call]) -> Iterator[tuple[tuple, Any]]:
        from distributed import as_completed

        futures = {self.client.submit(fn, *args, pure=False): args for fn, args in calls}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            self.client.cancel(list(futures))


def worker_environment() -> dict[str, str]:
    """One numba/BLAS thread per worker process: parallelism comes from chunks."""
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
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.ERROR, env=worker_environment()) as cluster, \
                Client(cluster) as client:
            yield DaskExecutor(client)
