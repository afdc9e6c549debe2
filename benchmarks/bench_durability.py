"""What durability costs (issue 11): the 4x4 Quixo solve with every write flushed to the disk
(fsync of each file before its rename and of its folder after; the default) against the same
solve with RETROGRADE_FSYNC=0, alternating, in one run; and what one durable write costs.

    python benchmarks/bench_durability.py               # 3 solves of each kind, 2 workers
    python benchmarks/bench_durability.py --repeat 5 --workers 0

Each solve runs the real CLI from an empty store in a temporary folder on the disk that holds
--folder (default: the system's temporary folder; fsync costs depend on that disk), after a
warm-up solve that fills numba's cache. Both kinds must end with the same bytes. Before the
solves, --writes single files of 64 KiB are written with `write_atomically` (the store's own
write: a temporary file, fsync, rename, fsync of the folder) in the same folder, with and
without the flushing: the cost of one durable write on that disk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from common import measure, print_options, report, tree_difference


def write_cost(folder: Path, writes: int) -> dict:
    """Median milliseconds of one `write_atomically` of 64 KiB, flushed and not."""
    from retrograde.data.durable import write_atomically

    payload = os.urandom(64 * 1024)
    figures = {}
    for kind, flag in (("with fsync", "1"), ("without fsync", "0")):
        os.environ["RETROGRADE_FSYNC"] = flag
        times = []
        for k in range(writes):
            began = time.perf_counter()
            write_atomically(folder / f"w{k % 8}", lambda file: file.write(payload))
            times.append(time.perf_counter() - began)
        figures[f"one 64 KiB write {kind} (median ms)"] = round(statistics.median(times) * 1000, 3)
    os.environ.pop("RETROGRADE_FSYNC")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="solves of each kind (default 3)")
    parser.add_argument("--workers", type=int, default=2, help="local cluster workers (0: in-process)")
    parser.add_argument("--folder", type=Path, default=None, help="where the stores go (default: TMPDIR)")
    parser.add_argument("--writes", type=int, default=200, help="single writes timed of each kind (default 200)")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory(dir=options.folder) as scratch:
        base = Path(scratch)
        report("one durable write", {"writes of each kind": options.writes, **write_cost(base, options.writes)})
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
            "files in the store": sum(1 for path in (base / "fsync-0.zarr").rglob("*") if path.is_file()),
        })


if __name__ == "__main__":
    main()
