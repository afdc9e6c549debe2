"""The one way into a solve, for every command that solves (`solve`, `run`, `run seeds`) and the
Python API's `retrograde.solve`: under the store's writer lock, the store is opened (or its plan
made) and the work left estimated, refused where it will not fit; then an executor and the store,
created or deepened, are ready, and what is left is solved. Each of these happens once a solve,
so once per process. A refusal imports neither zarr (unless a store is there) nor numba: the
stages, tasks and kernels are imported once the solve is accepted, so that it answers at once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrograde.data.lock import writer_lock
from retrograde.data.plan import Plan
from retrograde.errors import BadOption
from retrograde.games import Game
from retrograde.pipeline.estimate import MAX_SECONDS, Estimate, check_fits, estimate, human_bytes, this_machine
from retrograde.pipeline.executors import open_executor, worker_processes
from retrograde.pipeline.planning import open_planned, plan_store

if TYPE_CHECKING:
    from retrograde.data.store import Store


@dataclass(frozen=True)
class SolveOptions:
    """How a solve runs; the defaults are `solve`'s."""

    #: Positions per chunk of a new store (None: the default; a store keeps the chunking it has).
    chunk_size: int | None = None
    #: Local workers (0: in-process; None: in-process for small games, else one per core).
    workers: int | None = None
    #: An existing dask cluster's address (its workers see the store's path).
    scheduler: str | None = None
    #: Every loopy group's propagation split into at least this many partitions.
    partitions: int = 1
    #: Bytes one worker may use (None: what the workers report, or a local worker's share).
    worker_memory: int | None = None
    #: Start even where the estimate says the solve will not fit this machine.
    force: bool = False
    #: The longest estimated solve started without `force` (a store a workflow solves for its
    #: own rows allows less than `solve` does).
    max_seconds: float = MAX_SECONDS
    #: No progress lines.
    quiet: bool = False
    #: Local workers are threads of this process (`solve`: the solve's numba kernels release the
    #: GIL, and threads start at once, share the values they read and pickle nothing; 4x4 Quixo
    #: 1.5 times as fast as two processes). `run` passes False: the executor it opens here serves
    #: its train and validate stages too, whose Python work holds the GIL, so its local workers
    #: are processes of a dask LocalCluster. The store's bytes are the same either way.
    kernel_threads: bool = True


@dataclass
class Solve:
    """A solve under way: its store (open for writing, planned), the executor its tasks run on,
    the estimate it started from, and the seconds it took to solve (None: solved before)."""

    store: Store
    executor: Any
    estimate: Estimate
    seconds: float | None = None


@contextmanager
def solve(game: Game, path: str | Path, options: SolveOptions = SolveOptions(), *, executor=None,
          locked: bool = False, planned: Callable[[Solve], None] | None = None) -> Iterator[Solve]:
    """Solve `game` into the store at `path`: a new store, a partial solve resumed, or a store
    deepened (`planning.plan_store`). Under the store's writer lock (unless `locked`: the caller
    holds it), the store is opened once and the work left estimated; what will not fit is
    refused before anything is written (BadOption). Then `executor` (None: one opened for
    `options`) and the store are ready, `planned` is told, and what is left is solved. Yields the
    solve, its store open and its executor running, for the stages that follow (run's verify,
    train and validate); both close on leaving."""
    with ExitStack() as stack:
        if not locked:
            stack.enter_context(writer_lock(path))
        found, plan = open_planned(game, path, chunk_size=options.chunk_size)
        if found is not None:
            stack.callback(found.close)
        fits = _estimate(plan, found, path, options)
        from retrograde.pipeline.stages import solve_stage  # numba's kernels: the solve is accepted

        started = time.monotonic()
        if executor is None:
            executor = stack.enter_context(open_executor(workers=options.workers, scheduler=options.scheduler,
                                                         positions=fits.positions, kernels=options.kernel_threads))
        store = stack.enter_context(plan_store(game, found, plan, path))
        solving = Solve(store, executor, fits)
        if planned is not None:
            planned(solving)
        if not store.complete:
            solve_stage(store, executor, quiet=options.quiet, partitions=options.partitions,
                        worker_memory=options.worker_memory)
            solving.seconds = time.monotonic() - started
        yield solving


def _estimate(plan: Plan, store: Store | None, path: str | Path, options: SolveOptions) -> Estimate:
    """What the solve of `plan` (or what `store` has left of it) takes, loopy groups' propagations
    split into `options.partitions` or more to fit `options.worker_memory` (default: a local
    worker's share of the available memory); refused, unless `options.force`, where this machine
    cannot do it or a task that cannot be split needs more than `options.worker_memory`.

    :raises BadOption: the solve does not fit (one line: the estimate and how to go on)."""
    machine = this_machine(path)
    if options.scheduler:  # the workers' memory is on the cluster's machines, not this one
        machine = replace(machine, memory=sys.maxsize)
    limit = options.worker_memory or (None if options.scheduler else
                                      machine.memory // worker_processes(options.workers, plan.positions))
    if store is None:
        done = 0
    else:
        from retrograde.pipeline.stages import positions_done

        done = positions_done(store)
    found = estimate(plan, workers=options.workers, done_positions=done,
                     worker_memory=limit, partitions=options.partitions)
    check_fits(found, store_path=path, force=options.force, machine=machine, max_seconds=options.max_seconds)
    if options.worker_memory and found.peak_bytes > options.worker_memory and not options.force:
        raise BadOption(f"{found.game}: its {found.peak_task} needs {human_bytes(found.peak_bytes)}, more than "
                        f"--worker-memory {human_bytes(options.worker_memory)} (only a loopy group's propagation is "
                        f"split to fit); raise --worker-memory or pass --force to start anyway")
    return found
