"""Our 4x4 Quixo solve against GamesCrafters' GamesmanOne (issue 26; ../shared/peers/GAMESMANONE.md
says how to build it, outside the project in `.peers/`), on the same cores, rounds alternating.

    python benchmarks/bench_gamesman.py                          # --workers 2 against 2 OpenMP threads
    python benchmarks/bench_gamesman.py --kinds ours-0,ours-2,gamesman-1,gamesman-2 --repeat 3

Kinds: `ours-N` is `retrograde solve quixo --size 4 --workers N` (a new store each run), and
`gamesman-T` is `gamesman solve quixo 1` with OMP_NUM_THREADS=T (its `data` folder deleted before
each run, or it skips the solve). Each run from a fresh process, a warm-up round first. Prints every
wall time, the medians, ours against GamesmanOne at the same thread count, and each solver's
speedup from 1 to 2 threads where both ran. Both solvers' answers for the start position are
checked: a win in 21.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import measure, measure_command, print_options, report

ROOT = Path(__file__).resolve().parents[1]
START = "1_----------------"  # GamesmanOne's 4x4 start position: player 1 to move, every cell blank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", default="ours-2,gamesman-2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gamesman", type=Path, default=ROOT / ".peers" / "GamesmanOne" / "bin" / "gamesman",
                        help="GamesmanOne's binary (default: the one built in .peers/)")
    options = parser.parse_args()
    print_options(options)
    if not options.gamesman.is_file():
        raise SystemExit(f"bench_gamesman: no GamesmanOne at {options.gamesman} (../shared/peers/GAMESMANONE.md)")
    kinds = options.kinds.split(",")
    walls: dict[str, list[float]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "gamesman"  # its database goes to ./data, relative to where it runs
        work.mkdir()
        for round_ in range(options.repeat + 1):  # round 0 warms the caches
            for kind in kinds:
                solver, threads = kind.rsplit("-", 1)
                if solver == "ours":
                    store = Path(tmp) / f"store-{round_}-{kind}.zarr"
                    wall = measure(["solve", "quixo", "--size", "4", "--store", str(store), "--workers", threads,
                                    "--quiet"])["wall"]
                else:
                    shutil.rmtree(work / "data", ignore_errors=True)
                    wall = measure_command([str(options.gamesman), "solve", "quixo", "1"], cwd=work,
                                           env={"OMP_NUM_THREADS": threads})["wall"]
                if round_:
                    walls[kind].append(round(wall, 2))
                    print(f"  round {round_}: {kind} {wall:.2f} s", flush=True)
        answers = _answers(options.gamesman, work, Path(tmp), kinds)
    medians = {kind: statistics.median(times) for kind, times in walls.items()}
    figures: dict = {f"{kind}_s": times for kind, times in walls.items()}
    figures.update({f"{kind}_median_s": round(median, 2) for kind, median in medians.items()})
    for threads in ("1", "2"):
        if f"ours-{threads}" in medians and f"gamesman-{threads}" in medians:
            figures[f"gamesman / ours, {threads} thread(s)"] = round(medians[f"gamesman-{threads}"]
                                                                      / medians[f"ours-{threads}"], 2)
    for solver, one in (("ours", "ours-0"), ("gamesman", "gamesman-1")):
        if one in medians and f"{solver}-2" in medians:
            figures[f"{solver} speedup, 2 threads"] = round(medians[one] / medians[f"{solver}-2"], 3)
    figures["start position"] = answers
    report("4x4 Quixo against GamesmanOne", figures)


def _answers(gamesman: Path, work: Path, tmp: Path, kinds: list[str]) -> dict[str, str]:
    """Each solver's value of the start position, from its last store (both must say a win in 21)."""
    answers = {}
    if any(kind.startswith("gamesman") for kind in kinds):
        query = subprocess.run([str(gamesman), "query", "quixo", "1", START], cwd=work, capture_output=True,
                               text=True, check=True)
        found = json.loads(query.stdout.strip().splitlines()[-1])
        answers["gamesman"] = f"{found['positionValue']} in {found['remoteness']}"
    stores = sorted(tmp.glob("store-*-ours-*.zarr"))
    if stores:
        probe = subprocess.run([sys.executable, "-m", "retrograde", "probe", "--store", str(stores[-1]), "--json",
                                "..../..../..../.... x"], capture_output=True, text=True, check=True)
        found = json.loads(probe.stdout)
        answers["ours"] = f"{found['value']} in {found['remoteness']}"
    if set(answers.values()) - {"win in 21"}:
        raise SystemExit(f"bench_gamesman: the start position is not a win in 21: {answers}")
    return answers


if __name__ == "__main__":
    main()
