"""Quixo figures (issue 3): full 4x4 solve, 5x5 top tiers, probe latency.

    python benchmarks/bench_quixo.py              # 3 4x4 solves + probes (about 2 minutes)
    python benchmarks/bench_quixo.py --down-to 24 # also 5x5 with at least 24 cubes
    python benchmarks/bench_quixo.py --down-to 23 --skip-4x4   # the long 5x5 run
    python benchmarks/bench_quixo.py --workers 0 --repeat 3    # one core, in-process
    python benchmarks/bench_quixo.py --skip-4x4 --down-to 24 --deepen 25   # deepen 25 -> 24

Solves run the real CLI on a LocalCluster of --workers worker processes (default 2; 0: in
the driver's process) from an empty store, with a warm numba cache (a tiny 3x3 solve first).
Peak RSS is the largest single process (driver or worker), from getrusage of the waited process
tree. Probe latency: single random positions through `values`, first with the store's chunks
read on first touch, then again over the same positions once every chunk they touch is decoded.
With --deepen M, each 5x5 --down-to N is also reached the long way: a store solved with
--down-to M, then deepened by `solve --down-to N` on it (issue 11, point 10); the deepening's wall
time is printed, and its store must be byte-identical to the one solved with N from the start.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from common import folder_bytes, measure, print_options, report, tree_difference

WORKERS = 2


def solve(args: list[str], store: Path, workers: int = WORKERS) -> dict:
    return measure(["solve", "quixo", *args, "--store", str(store), "--workers", str(workers), "--quiet"])


def stored(store: Path) -> tuple[int, int]:
    """(positions the store's plan indexes, bytes on disk)."""
    from retrograde.data.store import Store

    with Store.open(store) as opened:
        return opened.plan.positions, folder_bytes(store)


def probe_latency(store: Path, n: int, seed: int) -> dict:
    """In-Python latency of probing single random positions (store opened once, warm)."""
    from retrograde.data.store import Store

    rng = np.random.default_rng(seed)
    with Store.open(store) as opened:
        game = opened.game
        boards = ["".join(rng.choice(list("xo."), game.cells)) for _ in range(n)]
        positions = [(cells, "x") for cells in boards]
        return timed_probes(opened, positions)


def timed_probes(opened, positions: list) -> dict:
    """Median, p90 and p99 milliseconds of probing each position alone (`probing.values`) in an
    open store, after a warm-up: a first pass, then a second that finds every chunk it needs
    decoded."""
    from retrograde.data.probing import values

    values(opened, positions[:50])  # warm: first chunk reads
    figures = {}
    for label in ("", " (chunks decoded)"):
        times = []
        for position in positions:
            start = time.perf_counter()
            values(opened, [position])
            times.append(time.perf_counter() - start)
        figures[f"median ms{label}"] = 1e3 * statistics.median(times)
        figures[f"p90 ms{label}"] = 1e3 * float(np.percentile(times, 90))
        figures[f"p99 ms{label}"] = 1e3 * float(np.percentile(times, 99))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--down-to", type=int, action="append", default=[])
    parser.add_argument("--skip-4x4", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="4x4 solves to run (median, min and max)")
    parser.add_argument("--workers", type=int, default=WORKERS, help="solve --workers (0: in-process, one core)")
    parser.add_argument("--deepen", type=int, metavar="M",
                        help="also solve 5x5 --down-to M, then deepen that store to each --down-to")
    options = parser.parse_args()
    print_options(options)
    cores = max(1, options.workers)
    figures: dict = {"workers": options.workers}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        solve(["--size", "3"], tmp / "warm.zarr", options.workers)  # compile or load every kernel once
        if not options.skip_4x4:
            runs = []
            for attempt in range(options.repeat):  # the machine is shared: report the spread
                store = tmp / f"q4-{attempt}.zarr"
                runs.append(solve(["--size", "4"], store, options.workers))
            walls = sorted(run["wall"] for run in runs)
            positions, size = stored(store)
            figures["4x4 solve wall s (median)"] = statistics.median(walls)
            figures["4x4 solve wall s (min, max)"] = (walls[0], walls[-1])
            figures["4x4 positions/s per core (median)"] = round(positions / statistics.median(walls) / cores)
            figures["4x4 peak RSS MB"] = round(max(run["peak_rss"] for run in runs) / 2**20)
            figures["4x4 store bytes"] = size
            figures["4x4 store bits a position"] = round(8 * size / positions, 3)
            for key, value in probe_latency(store, 2000, seed=1).items():
                figures[f"4x4 probe in Python {key}"] = value
            batch = tmp / "positions.txt"
            rng = np.random.default_rng(2)
            batch.write_text("".join("/".join("".join(rng.choice(list("xo."), 4)) for _ in range(4)) + " x\n"
                                     for _ in range(10_000)))
            figures["4x4 CLI batch probe of 10,000 positions wall s"] = measure_stdin(
                ["probe", "--store", str(store), "--json"], batch)
        for down_to in options.down_to:
            store = tmp / f"q5-{down_to}.zarr"
            run = solve(["--size", "5", "--down-to", str(down_to)], store, options.workers)
            positions, size = stored(store)
            figures[f"5x5 --down-to {down_to} positions"] = positions
            figures[f"5x5 --down-to {down_to} wall s"] = run["wall"]
            figures[f"5x5 --down-to {down_to} positions/s"] = round(positions / run["wall"])
            figures[f"5x5 --down-to {down_to} peak RSS MB"] = round(run["peak_rss"] / 2**20)
            figures[f"5x5 --down-to {down_to} store bytes"] = size
            figures[f"5x5 --down-to {down_to} store bits a position"] = round(8 * size / positions, 3)
            if options.deepen is not None and options.deepen > down_to:
                deepened = tmp / f"q5-{options.deepen}-{down_to}.zarr"
                first = solve(["--size", "5", "--down-to", str(options.deepen)], deepened, options.workers)
                deeper = solve(["--size", "5", "--down-to", str(down_to)], deepened, options.workers)
                difference = tree_difference(deepened, store)
                if difference:
                    raise SystemExit(f"the deepened store differs from the one solved directly: {difference}")
                key = f"5x5 --down-to {options.deepen} deepened to {down_to}"
                figures[f"{key}: first solve wall s"] = first["wall"]
                figures[f"{key}: deepening wall s"] = deeper["wall"]
                figures[f"{key}: byte-identical to --down-to {down_to} from the start"] = True
    report("quixo", figures)


def measure_stdin(args: list[str], stdin: Path) -> float:
    """Wall seconds of `retrograde ARGS < stdin`."""
    import subprocess
    import sys

    start = time.perf_counter()
    with open(stdin) as f:
        subprocess.run([sys.executable, "-m", "retrograde", *args], stdin=f, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
