"""What runs inside dask workers: the plugin holding each worker's `WorkerState`, and the call
that hands it to a task (`DaskExecutor` submits every task through it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from distributed import WorkerPlugin, get_worker

from retrograde.pipeline.worker import WorkerState


class WorkerStatePlugin(WorkerPlugin):
    """Gives each worker its `WorkerState` when it joins the cluster (or at registration)."""

    name = "retrograde-worker-state"
    idempotent = True

    def setup(self, worker) -> None:
        self.state = WorkerState()


def call_with_state(fn: Callable, *args) -> Any:
    """`fn(worker, *args)` with this worker's state."""
    return fn(get_worker().plugins[WorkerStatePlugin.name].state, *args)
