"""Progress of long stages on standard error: a tqdm bar on a terminal, plain lines in logs.

The rate counts only this run's work, from the first finished chunk on: the first
chunk's time holds numba compilation and start-up, and resumed positions were done
by an earlier run. No rate or ETA is shown until two chunks have been seen.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import TextIO

from tqdm import tqdm

#: Seconds between reports: a terminal bar redraws often, logs get a line now and then.
TERMINAL_INTERVAL = 0.5
LOG_INTERVAL = 10.0

_BAR_FORMAT = "{desc}: {percentage:5.1f}%|{bar}| {n_fmt}/{total_fmt} {unit}{postfix}"


def clock(seconds: float) -> str:
    """`seconds` as h:mm:ss, rounded to the second: 3725 -> "1:02:05", 65 -> "0:01:05"."""
    minutes, secs = divmod(max(0, round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def per_second(rate: float) -> str:
    """A rate in human units: 951 -> "951/s", 951000 -> "951k/s", 1.9e6 -> "1.9M/s"."""
    for unit in ("", "k", "M", "G"):
        if rate < 999.5 or unit == "G":
            break
        rate /= 1000
    return f"{rate:.1f}{unit}/s" if unit and rate < 99.95 else f"{rate:.0f}{unit}/s"


class Progress:
    """Counts the work done in a stage (positions, unless `unit` names another: games,
    episodes) and reports it at most every `interval` seconds.

    `done` is the work already done before this run (a resumed solve); it counts towards
    done/total but not towards the rate. `clock` is injectable for tests.
    """

    def __init__(self, stage: str, total: int, *, done: int = 0, stream: TextIO | None = None,
                 quiet: bool = False, interval: float | None = None, unit: str = "positions",
                 clock: Callable[[], float] = time.monotonic):
        self.stage = stage
        self.unit = unit
        self.total = total
        self.done = done
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self._clock = clock
        self._started = clock()
        self._tty = not quiet and self.stream.isatty()
        self.interval = interval if interval is not None else TERMINAL_INTERVAL if self._tty else LOG_INTERVAL
        self._run_start: int | None = None  # `done` when this run began (set at the first advance)
        self._first: tuple[float, int] | None = None  # (time, done) at the first advance
        self._shown = -math.inf
        self._where = ""
        # leave=False: finish() prints its own last line, and a bar left by Ctrl-C is cleared, not redrawn, at exit
        self._bar = (tqdm(total=total, initial=done, desc=stage, file=self.stream, unit_scale=True, unit=unit,
                          dynamic_ncols=True, leave=False, bar_format=_BAR_FORMAT,
                          postfix=", ".join(self._timing(None)))
                     if self._tty else None)

    def advance(self, positions: int, where: str = "") -> None:
        """Count `positions` more, finished at `where` (e.g. "tier m5o6"); report if one is due."""
        if self._run_start is None:
            self._run_start = self.done
        self.done += positions
        now = self._clock()
        if self._first is None:
            self._first = (now, self.done)
        self._where = where
        if not self.quiet and now - self._shown >= self.interval:
            self._shown = now
            self._show(now)

    def _rate(self, now: float) -> float | None:
        """Positions per second of this run since the first advance; None until a later advance
        has measured it (the first one's time holds compilation and start-up)."""
        since, done = self._first
        if now <= since:
            return None
        return (self.done - done) / (now - since)

    def _timing(self, rate: float | None) -> tuple[str, str]:
        """Rate and ETA as shown, or placeholders while the rate is not measured yet."""
        if not rate:
            return "--/s", "ETA --:--:--"
        return per_second(rate), f"ETA {clock((self.total - self.done) / rate)}"

    def _show(self, now: float) -> None:
        rate = self._rate(now)
        if self._bar is not None:
            self._bar.n = self.done
            self._bar.set_postfix_str(", ".join(filter(None, (*self._timing(rate), self._where))),
                                      refresh=False)
            self._bar.refresh()
            return
        parts = [f"{self.stage}: {self.done:,}/{self.total:,} {self.unit} "
                 f"({100 * self.done / max(self.total, 1):.1f}%)"]
        parts += [*self._timing(rate)] if rate else []
        parts += [self._where] if self._where else []
        self.stream.write(", ".join(parts) + "\n")
        self.stream.flush()

    def finish(self, message: str = "") -> None:
        """Clear the bar and print the run's total, elapsed time h:mm:ss and mean rate, with `message`."""
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.close()
        elapsed = self._clock() - self._started
        positions = 0 if self._run_start is None else self.done - self._run_start
        mean = f" ({per_second(positions / elapsed)})" if positions and elapsed > 0 else ""
        head = f"{self.stage}: {message}, " if message else f"{self.stage}: "
        self.stream.write(f"{head}{positions:,} {self.unit} in {clock(elapsed)}{mean}\n")
        self.stream.flush()
