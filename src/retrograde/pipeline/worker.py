"""What a worker process keeps between the tasks it runs (child-tier values it read, the partitions
of a split propagation it holds, stores it opened): its `WorkerState`, which the executor running
the tasks makes and hands to each of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class WorkerState:
    """What one worker process keeps between the tasks it runs: a slot a user, made on first use
    (`slot`). The executor holds one for each process it runs tasks in."""

    def __init__(self):
        self._slots: dict[str, Any] = {}

    def slot(self, name: str, make: Callable[[], Any]) -> Any:
        """The object kept under `name`, `make()` the first time it is asked for."""
        if name not in self._slots:
            self._slots[name] = make()
        return self._slots[name]
