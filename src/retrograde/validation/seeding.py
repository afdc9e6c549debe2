"""Seeds of validation tasks, derived from the run's seed and what the task is, never from the
order tasks run in or how many workers there are: the same --seed gives the same report."""

from __future__ import annotations

import zlib

import numpy as np


def task_seed(seed: int, *labels: str | int) -> int:
    """A 63-bit seed for the task named by `labels` (texts, e.g. agent specs, and numbers)."""
    words = [int(seed) & 0xFFFFFFFF, int(seed) >> 32 & 0xFFFFFFFF]
    words += [zlib.crc32(label.encode()) if isinstance(label, str) else int(label) & 0xFFFFFFFF
              for label in labels]
    high, low = np.random.SeedSequence(words).generate_state(2, dtype=np.uint32).tolist()
    return (high << 31) ^ low
