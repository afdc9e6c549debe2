"""What durability costs (issue 11): the 4x4 Quixo solve with every write flushed to the disk
(fsync of each file before its rename and of its folder after; the default) against the same
solve with RETROGRADE_FSYNC=0, alternating, in one run.

    python benchmarks/bench_durability.py               # 3 solves of each kind, 2 workers
    python benchmarks/bench_durability.py --repeat 5 --workers 0

Each solve runs the real CLI from an empty store in a temporary folder on the disk that holds
--folder (default: the system's temporary folder; fsync costs depend on that disk), after a
warm-up solve that fills numba's cache. Both kinds must end with the same bytes.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import measure, print_options, report, tree_difference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="solves of each kind (default 3)")
    parser.add_argument("--workers", type=int, default=2, help="local cluster workers (0: in-process)")
    parser.add_argument("--folder", type=Path, default=None, help="where the stores go (default: TMPDIR)")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory(dir=options.folder) as scratch:
        base = Path(scratch)
        measure(["solve", "quixo", "--size", "3", "--store", str(base / "warm.zarr"), "--workers", "0", "--quiet"])
        walls: dict[str, list[float]] = {"fsync": [], "no fsync": []}
        for run in range(options.repeat):
            for kind, flag in (("fsync", "1"), ("no fsync", "0")):
                store = base / f"{kind.replace(' ', '-')}-{run}.zarr"
                result = measure(["solve", "quixo", "--size", "4", "--store", str(store), "--workers",
                                  str(options.workers), "--quiet"], env={"RETROGRADE_FSYNC": flag})
                walls[kind].append(result["wall"])
                print(f"  run {run} {kind}: {result['wall']:.2f} s", flush=True)
        difference = tree_difference(base / "fsync-0.zarr", base / "no-fsync-0.zarr")
        if difference:
            raise SystemExit(f"the two kinds of solve wrote different stores: {difference}")
        with_sync, without = statistics.median(walls["fsync"]), statistics.median(walls["no fsync"])
        report("fsync cost, 4x4 Quixo solve", {
            "workers": options.workers,
            "solves of each kind": options.repeat,
            "median wall with fsync (s)": with_sync,
            "median wall without fsync (s)": without,
            "cost of fsync (s)": with_sync - without,
            "ratio with/without": with_sync / without,
            "same bytes": True,
        })


if __name__ == "__main__":
    main()
