"""Memory of a long match over time (issue 26): `match random random --game tictactoe --games N`
started, its resident memory (the process and its children) sampled every second, then killed.
Before the tournament was streamed, memory grew as long as the match ran (every batch task made
up front, every game's record kept); now it stays flat whatever N.

    python benchmarks/bench_bounds.py                        # this code, --games 10000000, 20 s
    python benchmarks/bench_bounds.py --base HEAD~1           # the same against a commit, one after the other
    python benchmarks/bench_bounds.py --base HEAD~1 --base-games 1000000000000 --workers 2

The base commit's `src` is exported with `git archive` into a temporary folder and put first on
PYTHONPATH (the repository is only read). Prints RSS over time for each side, then its growth
per second over the last `--window` seconds (a least-squares slope; the first seconds hold
imports, numba compilation and a cluster's start).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

from common import kill_group, print_options, report, start_group

REPOSITORY = Path(__file__).resolve().parents[1]
MB = 1 << 20


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and its children (a LocalCluster's workers)."""
    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += process.memory_info().rss
        except psutil.Error:  # a child that just ended
            pass
    return total


def sample(label: str, games: int, options, folder: Path, env: dict[str, str] | None = None) -> list[float]:
    """RSS in MB, once a second for `options.seconds` seconds, of a match of `games` games a seat."""
    args = ["match", "random", "random", "--game", "tictactoe", "--games", str(games), "--quiet",
            "--workers", str(options.workers)]
    proc = start_group(args, stdout=folder / f"{label}.out", stderr=folder / f"{label}.err", env=env)
    figures = []
    try:
        started = time.monotonic()
        for second in range(1, options.seconds + 1):
            time.sleep(max(0.0, started + second - time.monotonic()))
            if proc.poll() is not None:
                raise SystemExit(f"{label}: the match ended (status {proc.returncode}): "
                                 f"{(folder / f'{label}.err').read_text()[-500:]}")
            figures.append(tree_rss(proc.pid) / MB)
            print(f"  {label} {second:3d} s  {figures[-1]:8.1f} MB", flush=True)
    finally:
        kill_group(proc)
    return figures


def growth(figures: list[float], window: int) -> float:
    """MB per second over the last `window` samples (least-squares slope)."""
    last = figures[-window:]
    return float(np.polyfit(np.arange(len(last)), last, 1)[0])


def export(commit: str, folder: Path) -> Path:
    """The `src` folder of `commit`, exported into `folder`."""
    archive = folder / "base.tar"
    subprocess.run(["git", "-C", str(REPOSITORY), "archive", "--output", str(archive), commit, "src"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "base", filter="data")
    return folder / "base" / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000_000, help="games a seat, this code")
    parser.add_argument("--base", default=None, help="also run this commit (before the fix)")
    parser.add_argument("--base-games", type=int, default=None, help="games a seat, the base (default: --games)")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--window", type=int, default=10, help="last seconds the growth is measured over")
    parser.add_argument("--workers", type=int, default=0)
    options = parser.parse_args()
    print_options(options)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="bench-bounds-") as temporary:
        folder = Path(temporary)
        sides = [("this", options.games, None)]
        if options.base:
            base_src = export(options.base, folder)
            sides.insert(0, ("base", options.base_games or options.games,
                             {"PYTHONPATH": os.pathsep.join(filter(None, [str(base_src),
                                                                           os.environ.get("PYTHONPATH")]))}))
        for label, games, env in sides:
            rss = sample(label, games, options, folder, env)
            figures[f"{label}_games"] = games
            figures[f"{label}_rss_mb_at_{options.seconds - options.window + 1}s"] = round(rss[-options.window], 1)
            figures[f"{label}_rss_mb_at_{options.seconds}s"] = round(rss[-1], 1)
            figures[f"{label}_growth_mb_per_s"] = round(growth(rss, options.window), 2)
    report("bounds", figures)


if __name__ == "__main__":
    sys.exit(main())
