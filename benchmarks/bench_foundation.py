"""Foundation figures (issue 2): end-to-end wall time cold and warm, probe latency.

    python benchmarks/bench_foundation.py

Cold = an empty numba cache (NUMBA_CACHE_DIR in a fresh folder, so every kernel
compiles); warm = the same cache reused. Each figure runs the real CLI in a fresh
process, as a user would.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import folder_bytes, measure, print_options, report

NIM = ["nim", "--heaps", "1,3,5,7,9,11,13", "--max-take", "4"]
NIM_POSITIONS = 2 * 4 * 6 * 8 * 10 * 12 * 14


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print_options(options, workers="run tictactoe: its default (in-process); solve nim: 0 and 2, each measured")
    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cache = {"NUMBA_CACHE_DIR": str(tmp / "numba-cache")}
        for label in ("cold", "warm"):
            run = measure(["run", "tictactoe", "--out", str(tmp / f"ttt-{label}"), "--quiet"], env=cache)
            figures[f"run tictactoe {label} wall s"] = run["wall"]
        for workers in ("0", "2"):
            cache = {"NUMBA_CACHE_DIR": str(tmp / f"numba-cache-nim-{workers}")}
            for label in ("cold", "warm"):
                store = tmp / f"nim-{workers}-{label}.zarr"
                run = measure(["solve", *NIM, "--store", str(store), "--workers", workers, "--quiet"], env=cache)
                figures[f"solve nim 1..13 k4 workers={workers} {label} wall s"] = run["wall"]
                figures[f"solve nim 1..13 k4 workers={workers} {label} positions/s"] = round(NIM_POSITIONS / run["wall"])
                figures[f"solve nim 1..13 k4 workers={workers} {label} peak RSS MB"] = round(run["peak_rss"] / 2**20)
        figures["nim store bytes"] = folder_bytes(store)
        probes = [measure(["probe", "--store", str(store), "1,3,5,7,9,11,13"], env=cache)["wall"] for _ in range(7)]
        figures["probe one nim position warm wall s (median of 7)"] = statistics.median(probes)
        ttt = tmp / "ttt-warm" / "store.zarr"
        probes = [measure(["probe", "--store", str(ttt), "x../.o./..."], env=cache)["wall"] for _ in range(7)]
        figures["probe one tictactoe position warm wall s (median of 7)"] = statistics.median(probes)
    report("foundation", figures)


if __name__ == "__main__":
    main()
