"""An executor of worker threads in this process: the kernels are numba's, compiled with the GIL
released, so two threads work on two cores without a cluster to start, results to pickle or
scheduler round trips (what kept two worker processes from doubling a 4x4 Quixo solve's speed).

Each thread is a worker with its own `WorkerState` (what a worker process would keep), and
tasks sharing an `affinity` run on one thread. Ready tasks go out longest chain first
(`chain_costs`), never more than there are threads, each to the least loaded thread. The
threads are daemons: a Ctrl-C in the driver ends the process at once, and what a task was
writing is left as a killed worker leaves it (the store's writes are atomic; a rerun resumes).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from retrograde.pipeline.graph import Task, fill, schedule
from retrograde.pipeline.memory import available_memory
from retrograde.pipeline.worker import WorkerState

#: Seconds the driver waits for a result before it looks again (so that Ctrl-C is seen).
POLL_SECONDS = 0.1


class _Worker(threading.Thread):
    """A daemon thread running the tasks put on its queue, with its own worker state."""

    def __init__(self, number: int):
        super().__init__(name=f"retrograde-worker-{number}", daemon=True)
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.state = WorkerState()

    def run(self) -> None:
        while (item := self.tasks.get()) is not None:
            task, done = item
            try:
                done.put((task, task.fn(self.state, *task.args), None))
            except BaseException as exc:  # the driver raises it
                done.put((task, None, exc))


class ThreadExecutor:
    """Runs tasks on `threads` worker threads of this process; `close()` stops them."""

    def __init__(self, threads: int):
        self.workers = [_Worker(k) for k in range(threads)]
        for worker in self.workers:
            worker.start()
        self._homes: dict[str, int] = {}

    def close(self) -> None:
        for worker in self.workers:
            worker.tasks.put(None)

    def worker_memory(self) -> int | None:
        """The threads share this process's memory: the available memory, split between them."""
        return available_memory() // len(self.workers)

    def worker_count(self) -> int:
        """Workers, each holding its own partitions of a split propagation: the threads."""
        return len(self.workers)

    def run(self, tasks: Sequence[Task] | Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        """Yield (task, result) as tasks finish; a task's error is raised here."""
        graph = schedule(tasks, critical_path=True)
        done: queue.SimpleQueue = queue.SimpleQueue()
        running: dict[str, int] = {}  # task key -> its worker
        free_running: set[str] = set()  # those without an affinity: at most one a thread
        load = [0] * len(self.workers)

        def dispatch(task: Task) -> None:
            k = (self._home(task.affinity, load) if task.affinity is not None
                 else min(range(len(load)), key=lambda i: (load[i], i)))
            load[k] += 1
            running[task.key] = k
            if task.affinity is None:
                free_running.add(task.key)
            self.workers[k].tasks.put((task, done))

        def submit() -> list[Task]:
            """Fill the free threads; returns the in-driver tasks done meanwhile."""
            return fill(graph, lambda: len(free_running) < len(self.workers), dispatch)

        passed = submit()
        while True:
            for task in passed:
                yield task, None
            if not running:
                return
            while True:
                try:
                    task, result, error = done.get(timeout=POLL_SECONDS)
                    break
                except queue.Empty:
                    continue
            load[running.pop(task.key)] -= 1
            free_running.discard(task.key)
            if error is not None:
                raise error
            graph.done(task, result)
            passed = submit()
            yield task, result

    def _home(self, affinity: str, load: list[int]) -> int:
        """The thread of `affinity`: the one it was given, or (new) the one with the fewest affinities."""
        if affinity not in self._homes:
            homes = list(self._homes.values())
            self._homes[affinity] = min(range(len(load)), key=lambda i: (homes.count(i), i))
        return self._homes[affinity]
