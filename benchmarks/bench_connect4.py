"""Connect Four figures (issue 23): solves of W x H boards, every position checked against the
independent reference where that is affordable, and the solve rate and store size.

    python benchmarks/bench_connect4.py                         # 5x4: solve, then every position vs the reference
    python benchmarks/bench_connect4.py --width 6 --height 4 --no-reference --workers 2
    python benchmarks/bench_connect4.py --width 4 --height 7 --no-reference --workers 2

Each solve runs the real CLI from an empty store after a tiny solve that loads every kernel.
Peak RSS is the largest single process (driver or worker). The reference
(tests/connect4_reference.py) shares no code with the package: it enumerates the positions
reachable from the empty board and solves them in plain Python; every one of them is then read
from the store through the Python API (value and remoteness), and the store's count of positions
is held to the reference's. On 5x4 the check takes about 15 minutes on this machine's 2 cores:
the reference 1.5 minutes, then the API's parsing of 3.9 million positions in Python, each of
them checked reachable (`Connect4.unreachable`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import folder_bytes, measure, print_options, report

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import connect4_reference as reference  # noqa: E402 - tests/connect4_reference.py


def positions_counted(store: Path) -> int:
    status = subprocess.run([sys.executable, "-m", "retrograde", "status", "--store", str(store), "--json"],
                            capture_output=True, text=True, check=True)
    return sum(t["win"] + t["loss"] + t["draw"] for t in json.loads(status.stdout)["tiers"])


def check_against_reference(store: Path, width: int, height: int, connect: int) -> dict:
    """Every reachable position's value and remoteness from the store against the reference's."""
    import retrograde

    started = time.perf_counter()
    truth = reference.reachable(width, height, connect)
    reference_seconds = time.perf_counter() - started
    texts = sorted(truth)
    wrong = 0
    with retrograde.open_store(store) as opened:
        for begin in range(0, len(texts), 200_000):
            batch = texts[begin:begin + 200_000]
            for text, found in zip(batch, opened.values(batch)):
                value, remoteness = truth[text]
                wrong += (found.value, found.remoteness) != (value, None if value == "draw" else remoteness)
    return {"reference positions": len(truth), "reference seconds": round(reference_seconds, 1),
            "positions checked": len(texts), "wrong": wrong}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=5)
    parser.add_argument("--height", type=int, default=4)
    parser.add_argument("--connect", type=int, default=4)
    parser.add_argument("--workers", type=int, default=None, help="solve --workers (default: as solve picks)")
    parser.add_argument("--no-reference", action="store_true", help="skip the check against the reference")
    options = parser.parse_args()
    print_options(options)
    game = ["connect4", "--width", str(options.width), "--height", str(options.height),
            "--connect", str(options.connect)]
    workers = [] if options.workers is None else ["--workers", str(options.workers)]
    with tempfile.TemporaryDirectory(prefix="retrograde-connect4-") as tmp:
        work = Path(tmp)
        measure(["solve", "connect4", "--width", "4", "--height", "4", "--store", str(work / "warm.zarr"),
                 "--workers", "0", "--quiet"])
        store = work / "store.zarr"
        run = measure(["solve", *game, "--store", str(store), "--quiet", *workers])
        plan = json.loads(subprocess.run([sys.executable, "-m", "retrograde", "plan", *game, "--json", *workers],
                                         capture_output=True, text=True, check=True).stdout)
        stored = folder_bytes(store)
        reachable = positions_counted(store)
        figures = {"board": f"{options.width}x{options.height}, {options.connect} in a row",
                   "workers": plan["workers"], "indexed positions": plan["positions"],
                   "positions (reachable, each counted once)": reachable,
                   "solve wall s": round(run["wall"], 2),
                   "positions a second": round(reachable / run["wall"]),
                   "indexed positions a second": round(plan["positions"] / run["wall"]),
                   "peak RSS MB": round(run["peak_rss"] / 2**20), "store bytes": stored,
                   "store bytes a position": round(stored / reachable, 4),
                   "store bytes an indexed position": round(stored / plan["positions"], 4)}
        if not options.no_reference:
            figures.update(check_against_reference(store, options.width, options.height, options.connect))
    report(f"connect4 {options.width}x{options.height} k{options.connect}", figures)
    if figures.get("wrong"):
        raise SystemExit(f"{figures['wrong']} positions differ from the reference")
    if figures.get("reference positions", reachable) != reachable:
        raise SystemExit(f"the store counts {reachable} positions, the reference {figures['reference positions']}")


if __name__ == "__main__":
    main()
