"""A local dask cluster of worker processes, started and ended whole: its workers spawned in a
thread deaf to Ctrl-C (the driver alone stops the cluster), with glibc's defaults, no work
stealing and no profiling, and, once it closes, every process it started ended (reaped), so
that no worker goes on writing into a store that a rerun is resuming.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from retrograde.errors import ClusterError


def worker_environment() -> dict[str, str]:
    """One numba/BLAS thread per worker process (parallelism comes from chunks), set before
    the worker process starts so that numba reads it at import."""
    return {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1"}


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


@contextmanager
def local_cluster(n: int) -> Iterator[Callable[[], Any]]:
    """A LocalCluster of `n` worker processes of one thread each, starting in the background
    while the block runs: it yields a function returning a client of the cluster, which waits
    for the start on first use (`DaskExecutor` takes it). On leaving, the clients and the
    cluster close, and every process started since the cluster began starting is ended."""
    import dask
    from distributed import Client, LocalCluster

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
            yield connect
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
