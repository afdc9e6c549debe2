"""How much memory this machine has available for work: what a local worker may use, for the
estimate and for splitting loopy groups' propagations to fit; and byte counts read and written
in decimal and binary units. Light (no numpy, no numba): the CLI checks --worker-memory with it
before it imports any machinery."""

from __future__ import annotations

import os

from retrograde.errors import BadOption


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


def human_bytes(count: float) -> str:
    """A byte count in decimal units: 7974780 -> "8.0 MB", 157e9 -> "157 GB", 512 -> "512 B"."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if count < 999.5 or unit == "PB":
            break
        count /= 1000
    return f"{count:.1f} {unit}" if unit != "B" and count < 9.95 else f"{count:.0f} {unit}"


#: Units `parse_bytes` reads, decimal and binary.
UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
         "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_bytes(text: str, option: str) -> int:
    """'4GB', '512 MiB', '2e9' -> bytes. :raises BadOption: not a positive size (one line naming `option`)."""
    number = text.strip().lower()
    unit = next((u for u in sorted(UNITS, key=len, reverse=True) if number.endswith(u)), "b" if number else "")
    try:
        count = float(number[:len(number) - len(unit)].strip() if number.endswith(unit) else number) * UNITS[unit]
    except (ValueError, KeyError):
        count = -1.0
    if not (1 <= count < 2**63):
        raise BadOption(f"{option} {text!r}: must be a size such as 4GB, 512MiB or 2000000000 (bytes)")
    return int(count)
