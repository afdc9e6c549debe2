"""Progress lines for long stages: done/total, rate and ETA, on standard error."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Counts positions done in a stage and reports them at most every `interval` seconds.

    On a terminal the line is redrawn in place; otherwise one line is printed per report.
    """

    def __init__(self, stage: str, total: int, *, stream: TextIO | None = None,
                 quiet: bool = False, interval: float = 1.0):
        self.stage = stage
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.interval = interval
        self.started = time.monotonic()
        self._last = 0.0
        self._tty = self.stream.isatty()

    def advance(self, positions: int, where: str = "") -> None:
        self.done += positions
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._show(where)

    def _show(self, where: str, end: str = "") -> None:
        if self.quiet:
            return
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        line = (f"{self.stage}: {self.done:,}/{self.total:,} positions "
                f"({100 * self.done / max(self.total, 1):.1f}%), {rate:,.0f}/s, "
                f"ETA {eta:.0f}s {where}".rstrip())
        if self._tty:
            self.stream.write("\r\033[K" + line + end)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self, message: str = "") -> None:
        if self.quiet:
            return
        self._show(message, end="\n" if self._tty else "")
