"""Sizes and settings the driver's estimate shares with the workers' tasks: the rows a kernel
takes at a time, the child values a worker keeps, a scratch frame's messages, and the intervals
the environment may override. Free of numba, zarr and dask, so that a solve its estimate refuses
answers at once (`pipeline.estimate` imports this, not `pipeline.tasks` and its kernels)."""

from __future__ import annotations

import math
import os

from retrograde.errors import RetrogradeError

#: Rows a loopy group expands (or propagates from) at a time: bounds the child-reference buffer,
#: which stays in a core's cache between the expand, locate and settle passes over it (4x4 Quixo
#: in-process: first passes 2.3 s with 4,096 rows, 2.4 s with 8,192, 2.75 s with 65,536).
BATCH = 1 << 12

#: Bytes of child-tier values a worker process keeps from earlier tasks for later ones (the
#: chunks of a loopy group's tiers reach its workers in turn): up to 2 sets, this much in all,
#: the least recently used dropped before a new set is read. A larger set is held alone.
KEPT_VALUES_BYTES = 1 << 30

#: Messages a frame of a message file holds at most: a sender keeps up to this many for each
#: receiver (8 bytes each) before it sorts, encodes and writes them. The more a frame holds,
#: the closer its sorted parents and the smaller their differences.
FRAME_MESSAGES = 1 << 22

#: Seconds of propagation between two checkpoints of a loopy group's state (4 bytes a position
#: written, so small groups never pay for one); RETROGRADE_CHECKPOINT_SECONDS overrides it.
CHECKPOINT_SECONDS = 120.0

#: Chunks a loopy group may have to be solved in one task, first passes in memory (`solve_tasks`);
#: RETROGRADE_SMALL_GROUP_CHUNKS overrides it (0: every group through scratch files). 4x4 Quixo
#: solved faster with 4 (every group one task) than with 2 (20 first passes of its 5 largest
#: groups as tasks of their own, in parallel): 5.72 and 5.92 s against 6.35 and 6.04 s.
SMALL_GROUP_CHUNKS = 4


def values_bytes(size: int, share: float, value: int) -> int:
    """What `tasks.ChildValues` holds for a set of `size` indices, `share` of them positions of
    `value` bytes each (2 bits an index to number them): for the estimate, and for making room
    before a set is read."""
    return size // 4 + math.ceil(size * share) * value


def checkpoint_seconds() -> float:
    """The driver's checkpoint interval (tasks get it as an argument: workers may run elsewhere)."""
    return _setting("RETROGRADE_CHECKPOINT_SECONDS", CHECKPOINT_SECONDS, float, "a number of seconds")


def small_group_chunks() -> int:
    """The driver's SMALL_GROUP_CHUNKS."""
    return _setting("RETROGRADE_SMALL_GROUP_CHUNKS", SMALL_GROUP_CHUNKS, int, "a whole number")


def _setting(name: str, default, kind: type, what: str):
    """Environment variable `name` read as a `kind` >= 0, `default` where unset.

    :raises RetrogradeError: it is set to anything else."""
    text = os.environ.get(name, "")
    try:
        value = kind(text) if text else default
    except ValueError:
        value = -1
    if not value >= 0:
        raise RetrogradeError(f"{name}={text!r}: must be {what} >= 0")
    return value
