"""Progress reports: rate and ETA only once measured, counting this run's work only; h:mm:ss times;
plain lines in logs, a tqdm bar on a terminal; nothing when quiet."""

from __future__ import annotations

import io

import pytest

from retrograde.pipeline.progress import Progress, clock, per_second


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    """A stream that says it is a terminal, so Progress draws its bar."""

    def isatty(self) -> bool:
        return True


def make(total: int = 1_000_000, *, stream=None, **options) -> tuple[Progress, FakeClock, io.StringIO]:
    fake = FakeClock()
    stream = io.StringIO() if stream is None else stream
    return Progress("solve", total, stream=stream, clock=fake, interval=0, **options), fake, stream


@pytest.mark.parametrize("seconds, text", [(0, "0:00:00"), (65, "0:01:05"), (3725, "1:02:05"),
                                           (59.6, "0:01:00"), (90_000, "25:00:00")])
def test_clock_formats_h_mm_ss(seconds, text):
    assert clock(seconds) == text


@pytest.mark.parametrize("rate, text", [(12, "12/s"), (951_000, "951k/s"), (1.9e6, "1.9M/s"),
                                        (999.9, "1.0k/s"), (2.5e9, "2.5G/s")])
def test_per_second_uses_human_units(rate, text):
    assert per_second(rate) == text


def test_no_rate_or_eta_before_the_rate_is_measured():
    """The first chunk arrives after compilation: its time must not make a rate or an ETA."""
    progress, fake, stream = make()
    fake.now += 60  # compiling
    progress.advance(10_000, "tier k1")
    line = stream.getvalue()
    assert line == "solve: 10,000/1,000,000 positions (1.0%), tier k1\n"


def test_rate_and_eta_count_from_the_first_chunk():
    progress, fake, stream = make()
    fake.now += 60
    progress.advance(10_000, "tier k1")
    fake.now += 10
    progress.advance(100_000, "tier k2")  # 100,000 in 10 s: 10k/s, 890,000 left: 89 s
    assert stream.getvalue().splitlines()[-1] == \
        "solve: 110,000/1,000,000 positions (11.0%), 10.0k/s, ETA 0:01:29, tier k2"


def test_after_a_resume_the_rate_counts_only_new_work():
    progress, fake, stream = make(done=900_000)
    progress.advance(10_000, "tier k1")
    fake.now += 4
    progress.advance(20_000, "tier k2")  # 20,000 in 4 s, not 930,000 in 4 s
    assert stream.getvalue().splitlines()[-1] == \
        "solve: 930,000/1,000,000 positions (93.0%), 5.0k/s, ETA 0:00:14, tier k2"


def test_log_lines_come_at_most_every_interval():
    fake = FakeClock()
    stream = io.StringIO()
    progress = Progress("verify", 100, stream=stream, clock=fake)  # a log: 10 s by default
    for _ in range(10):
        fake.now += 3
        progress.advance(1)
    assert len(stream.getvalue().splitlines()) == 3  # at 3 s, 15 s (>= 10 s later), 27 s


def test_finish_prints_this_runs_positions_elapsed_and_mean_rate():
    progress, fake, stream = make(done=500_000)
    fake.now += 30
    progress.advance(100_000)
    fake.now += 35
    progress.advance(200_000)
    progress.finish("done")
    assert stream.getvalue().splitlines()[-1] == "solve: done, 300,000 positions in 0:01:05 (4.6k/s)"


def test_finish_without_work_has_no_rate():
    progress, fake, stream = make()
    fake.now += 2
    progress.finish()
    assert stream.getvalue() == "solve: 0 positions in 0:00:02\n"


def test_quiet_prints_nothing():
    progress, fake, stream = make(stream=Terminal(), quiet=True)
    for _ in range(3):
        fake.now += 5
        progress.advance(1000, "tier k1")
    progress.finish("done")
    assert stream.getvalue() == ""


def test_terminal_gets_a_bar_with_rate_eta_and_tier():
    progress, fake, stream = make(stream=Terminal())
    fake.now += 60
    progress.advance(100_000, "tier k1")
    first = stream.getvalue()
    assert "--/s" in first and "ETA --:--:--" in first and "tier k1" in first
    fake.now += 2
    progress.advance(300_000, "tier k2")  # 150k/s, 600,000 left: 4 s
    drawn = stream.getvalue()[len(first):]
    assert "\r" in drawn and "|" in drawn  # redrawn in place, with a bar
    assert "40.0%" in drawn and "400k/1.00M positions" in drawn
    assert "150k/s, ETA 0:00:04, tier k2" in drawn
    assert "\n" not in stream.getvalue()  # no lines until the end
    progress.finish("done")
    assert stream.getvalue().endswith("\rsolve: done, 400,000 positions in 0:01:02 (6.5k/s)\n")
