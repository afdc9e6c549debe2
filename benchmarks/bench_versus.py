"""This code against an earlier commit on the same machine, alternating, in one run (issue 12's
"measured side by side": a ratio, not two figures from different days).

    python benchmarks/bench_versus.py                         # 4x4 Quixo, against 8cd7ec4, 3 pairs
    python benchmarks/bench_versus.py --base 18a9fbf --workers 0 --repeat 2
    python benchmarks/bench_versus.py --size 5 --down-to 24 --repeat 1

The base commit is checked out into a temporary git worktree and put first on PYTHONPATH, so
its `python -m retrograde` runs with the same interpreter and libraries as this checkout's;
each side first solves 3x3 Quixo once (numba compiles or loads its kernels). Then the same
`solve quixo` runs from an empty store, base and this code in turn (the order swapped every
pair, so neither always runs on a machine warmed by the other); a base solve that fails is run
again (`BASE_RERUNS`, counted in the output), one of this code ends the benchmark. Prints each
side's wall times, medians, largest process, store and chunk-data bytes, and the ratio of the
medians.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import folder_bytes, measure, print_options, report

REPOSITORY = Path(__file__).resolve().parents[1]
#: Times a base solve that fails is run again from an empty store: 8cd7ec4 can fail removing its
#: scratch folder while another group writes there (a race fixed since), more often on a fast host.
BASE_RERUNS = 3


def chunk_bytes(store: Path) -> int:
    """Bytes of the tiers' chunk files (the values; not the documents)."""
    return sum(path.stat().st_size for path in store.glob("tiers/*/*/c/**/*") if path.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="8cd7ec4", help="the commit to compare with (default 8cd7ec4)")
    parser.add_argument("--size", type=int, default=4, help="Quixo board size")
    parser.add_argument("--down-to", type=int, default=None, help="solve --down-to N (5x5)")
    parser.add_argument("--workers", type=int, default=2, help="solve --workers (0: in-process)")
    parser.add_argument("--repeat", type=int, default=3, help="solves of each side")
    options = parser.parse_args()
    base = subprocess.run(["git", "-C", str(REPOSITORY), "rev-parse", "--short", options.base],
                          capture_output=True, text=True)
    if base.returncode:
        raise SystemExit(f"--base {options.base!r}: not a commit of {REPOSITORY}")
    print_options(options, base_commit=base.stdout.strip())
    game = ["quixo", "--size", str(options.size)] + ([] if options.down_to is None else
                                                      ["--down-to", str(options.down_to)])
    with tempfile.TemporaryDirectory(prefix="retrograde-versus-") as tmp:
        work = Path(tmp)
        checkout = work / "base"
        subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "add", "--detach", "--quiet", str(checkout),
                        options.base], check=True)
        try:
            sides = {"base": {"PYTHONPATH": str(checkout / "src")}, "this": {}}
            for side, env in sides.items():
                measure(["solve", "quixo", "--size", "3", "--store", str(work / f"warm-{side}.zarr"),
                         "--workers", "0", "--quiet"], env=env)
            runs: dict[str, list[dict]] = {side: [] for side in sides}
            reruns = 0
            for pair in range(options.repeat):
                for side in (("base", "this") if pair % 2 == 0 else ("this", "base")):
                    store = work / f"{side}-{pair}.zarr"
                    command = ["solve", *game, "--store", str(store), "--workers", str(options.workers), "--quiet"]
                    for attempt in range(BASE_RERUNS + 1):
                        try:
                            result = measure(command, env=sides[side])
                            break
                        except SystemExit as failure:  # this code's failures end the benchmark
                            if side == "this" or attempt == BASE_RERUNS:
                                raise
                            print(f"  pair {pair} base failed, rerun: {str(failure).splitlines()[-1]}", flush=True)
                            reruns += 1
                            shutil.rmtree(store, ignore_errors=True)
                    result["store"], result["chunks"] = folder_bytes(store), chunk_bytes(store)
                    runs[side].append(result)
                    print(f"  pair {pair} {side}: {result['wall']:.2f} s", flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(checkout)],
                           check=False)
    figures: dict = {"game": " ".join(game), "workers": options.workers, "solves of each side": options.repeat,
                     "base solves failed and rerun": reruns}
    medians = {}
    for side, results in runs.items():
        walls = [result["wall"] for result in results]
        medians[side] = statistics.median(walls)
        figures[f"{side}: wall s"] = [round(wall, 2) for wall in walls]
        figures[f"{side}: median wall s"] = medians[side]
        figures[f"{side}: peak RSS MB"] = round(max(result["peak_rss"] for result in results) / 2**20)
        figures[f"{side}: store bytes"] = results[-1]["store"]
        figures[f"{side}: chunk data bytes"] = results[-1]["chunks"]
    figures["this / base, median wall"] = medians["this"] / medians["base"]
    report(f"this code against {base.stdout.strip()}", figures)


if __name__ == "__main__":
    main()
