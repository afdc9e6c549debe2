"""A loopy group's propagation split into partitions gives the bytes of one task (issue 12,
point 3), at the scale the test suite cannot afford, and what the split costs or saves.

    python benchmarks/bench_partitions.py                          # 5x5 --down-to 24: about 15 minutes
    python benchmarks/bench_partitions.py --size 4 --parts 2 3     # full 4x4: about 4 minutes
    python benchmarks/bench_partitions.py --worker-memory 300MB    # the split --worker-memory picks

The reference solves with one propagation task a group (--partitions 1) on --workers
processes; then each --parts value solves on the same local cluster and, with --in-process,
in-process too (--workers 0). Every store is compared byte for byte with the reference.
Figures: wall time, peak RSS of the largest process, and the ratio of each wall time to the
reference's (measured in this run).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from common import folder_bytes, measure, print_options, report, tree_difference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--down-to", type=int, default=24, help="5x5 only: tiers with at least this many cubes")
    parser.add_argument("--parts", type=int, nargs="+", default=[2, 3], help="--partitions values to solve with")
    parser.add_argument("--worker-memory", default=None, help="also solve with this --worker-memory")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--in-process", action=argparse.BooleanOptionalAction, default=True,
                        help="also solve each split in-process (--workers 0)")
    options = parser.parse_args()
    print_options(options)
    figures: dict = {}
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        def args(path: Path, workers: int, *extra: str, size: int = options.size) -> list[str]:
            return (["solve", "quixo", "--size", str(size), "--store", str(path), "--workers", str(workers),
                     "--quiet", *extra] + (["--down-to", str(options.down_to)] if size == 5 else []))

        measure(args(tmp / "warm.zarr", 0, size=3))  # numba's cache warm: every solve below is an ordinary one
        reference = tmp / "one.zarr"
        base = measure(args(reference, options.workers, "--partitions", "1"))
        figures["one task a group: wall s"] = round(base["wall"], 1)
        figures["one task a group: peak MB"] = round(base["peak_rss"] / 1e6)
        figures["store bytes"] = folder_bytes(reference)
        runs = [(f"--partitions {parts} --workers {workers}", workers, ("--partitions", str(parts)))
                for parts in options.parts for workers in ([options.workers] + [0] * options.in_process)]
        if options.worker_memory:
            runs.append((f"--worker-memory {options.worker_memory} --workers {options.workers}", options.workers,
                         ("--worker-memory", options.worker_memory)))
        for i, (name, workers, extra) in enumerate(runs):
            store = tmp / f"split{i}.zarr"
            found = measure(args(store, workers, *extra))
            difference = tree_difference(store, reference)
            figures[f"{name}: wall s"] = round(found["wall"], 1)
            figures[f"{name}: peak MB"] = round(found["peak_rss"] / 1e6)
            if workers == options.workers:
                figures[f"{name}: wall / one task's"] = round(found["wall"] / base["wall"], 3)
            figures[f"{name}: byte-identical"] = difference is None
            if difference:
                failed.append(f"{name}: {difference}")
    report("split propagation", figures)
    if failed:
        raise SystemExit("; ".join(failed))


if __name__ == "__main__":
    main()
