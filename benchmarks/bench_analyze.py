"""`retrograde analyze` against `retrograde verify` on a solved 4x4 Quixo store (issue 25: analyze
must take no more wall time than verify on the same store).

    python benchmarks/bench_analyze.py                    # solve 4x4 into a temporary folder
    python benchmarks/bench_analyze.py --store q4.zarr    # an existing solved store
    python benchmarks/bench_analyze.py --repeat 5 --workers 2

Each round runs the real CLI, `verify --quiet` and `analyze --json --quiet`, one after the other
(in alternating order, with a warm numba cache: a first untimed round of each), each at its
default executor unless --workers is given (verify starts a local cluster of one worker per core
for 4x4 Quixo; analyze works in-process below 100M indices). Prints each round's wall times,
their medians and the ratio analyze / verify of the medians.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from common import given_or_solved, measure, print_options, report


def rounds(store: Path, repeat: int, workers: int | None) -> dict[str, list[float]]:
    """Wall seconds of verify and analyze, `repeat` times each, after an untimed warm-up of each."""
    extra = [] if workers is None else ["--workers", str(workers)]
    commands = {"verify": ["verify", "--store", str(store), "--quiet", *extra],
                "analyze": ["analyze", "--store", str(store), "--json", "--quiet", *extra]}
    for args in commands.values():
        measure(args)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for n in range(repeat):
        for name in (("verify", "analyze") if n % 2 == 0 else ("analyze", "verify")):
            times[name].append(measure(commands[name])["wall"])
            print(f"  round {n + 1}: {name} {times[name][-1]:.2f} s", flush=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=None, help="A solved 4x4 Quixo store (default: solve one).")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None, help="Both commands' --workers (default: each its own).")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory() as tmp:
        store = given_or_solved(options.store, Path(tmp), "q4.zarr", ["quixo", "--size", "4"])
        times = rounds(store, options.repeat, options.workers)
    verify, analyze = (statistics.median(times[name]) for name in ("verify", "analyze"))
    report("analyze against verify on 4x4 Quixo",
           {"rounds": options.repeat, **{f"{name}_s": [round(t, 2) for t in times[name]] for name in times},
            "verify_median_s": verify, "analyze_median_s": analyze, "analyze_over_verify": analyze / verify})


if __name__ == "__main__":
    main()
