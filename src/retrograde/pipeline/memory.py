"""How much memory this machine has available for work: what a local worker may use, for the
estimate and for splitting loopy groups' propagations to fit."""

from __future__ import annotations

import os


def available_memory() -> int:
    """MemAvailable of /proc/meminfo (Linux), else the machine's physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
