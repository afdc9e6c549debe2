"""The task graph the executors share: a `Task` (one call, the tasks it waits for, its cost),
the bookkeeping of which tasks are ready (`TaskGraph`, the longest chain of work first, or
`TaskStream` for an iterator of independent tasks), and `fill`, which hands ready tasks out
while an executor has room. It knows nothing of processes, threads or clusters.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


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


class TaskGraph:
    """The bookkeeping the executors share: which tasks wait for which, which are ready (the
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


class TaskStream:
    """`TaskGraph`'s part for independent tasks drawn from an iterator: the next one when a thread
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


def schedule(tasks: Sequence[Task] | Iterable[Task], *, critical_path: bool,
              fetch: Callable[[Any], Any] = lambda x: x) -> TaskGraph | TaskStream:
    """The graph of a list of tasks, or the stream of an iterator of independent ones."""
    if isinstance(tasks, Sequence):
        return TaskGraph(tasks, critical_path=critical_path, fetch=fetch)
    return TaskStream(tasks)


def fill(graph: TaskGraph | TaskStream, room: Callable[[], bool], dispatch: Callable[[Task], None]) -> list[Task]:
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
