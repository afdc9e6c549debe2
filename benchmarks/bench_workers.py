"""Two cores as two (issue 26): a solve in-process (`--workers 0`) against `--workers 2` (worker
threads of the driver) and against a LocalCluster of 2 worker processes
(`RETROGRADE_WORKER_PROCESSES=1 --workers 2`), rounds alternating, from fresh stores, with warm
numba caches (an untimed solve of each kind first).

    python benchmarks/bench_workers.py                        # 4x4 Quixo, 3 rounds
    python benchmarks/bench_workers.py --repeat 5 --cores 0,1 # pinned to two cores of a bigger host
    python benchmarks/bench_workers.py --size 5 --down-to 24 --kinds threads,processes

Each run is the real CLI from a fresh process (imports and planning included). Prints every
wall time, the medians, and the speedups of threads and processes over in-process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from common import measure, print_options, report

KINDS = {"in-process": ("0", {}), "threads": ("2", {"RETROGRADE_WORKER_PROCESSES": "0"}),
         "processes": ("2", {"RETROGRADE_WORKER_PROCESSES": "1"})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--down-to", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(KINDS), help="Which of in-process, threads, processes.")
    parser.add_argument("--cores", default=None, help="Pin every run to these cores (e.g. 0,1).")
    options = parser.parse_args()
    print_options(options)
    if options.cores:
        os.sched_setaffinity(0, {int(core) for core in options.cores.split(",")})  # the runs inherit it
    kinds = options.kinds.split(",")
    game = ["quixo", "--size", str(options.size)] + (["--down-to", str(options.down_to)] if options.down_to else [])
    walls: dict[str, list[float]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(options.repeat + 1):
            for kind in kinds:
                workers, env = KINDS[kind]
                # A new store each run, the old ones deleted at the end: deleting a store's files
                # just before a run made its fsyncs wait for that deletion's journal commits.
                store = Path(tmp) / f"store-{round_}-{kind}.zarr"
                wall = measure(["solve", *game, "--store", str(store), "--workers", workers, "--quiet"], env=env)["wall"]
                if round_:  # round 0 warms the caches
                    walls[kind].append(round(wall, 2))
                    print(f"  round {round_}: {kind} {wall:.2f} s", flush=True)
    medians = {kind: statistics.median(times) for kind, times in walls.items()}
    figures = {f"{kind}_s": times for kind, times in walls.items()}
    figures.update({f"{kind}_median_s": round(median, 2) for kind, median in medians.items()})
    if "in-process" in medians:
        figures.update({f"speedup_{kind}": round(medians["in-process"] / medians[kind], 3)
                        for kind in kinds if kind != "in-process"})
    report(f"in-process against 2 workers, {' '.join(game)}", figures)


if __name__ == "__main__":
    main()
