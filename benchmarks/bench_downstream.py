"""Downstream figures (issue 9): `retrograde run quixo4` from nothing, and `retrograde validate` on a
solved 4x4 store with 6 agents and 200 games per pairing and seat.

    python benchmarks/bench_downstream.py                       # both, in a fresh temporary folder
    python benchmarks/bench_downstream.py --only validate --store q4.zarr
    python benchmarks/bench_downstream.py --only run

Each command runs as a user runs it (`python -m retrograde ...`, output to pipes). `run` starts
from an empty folder (plan, solve, verify, train ga and rl, validate 8 agents); its store is then
reused by `validate` unless --store names one. Prints wall seconds, peak memory and, for
validate, the report's own stage timings and game count.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import folder_bytes, measure, report

WORKERS = 2
AGENTS = "lookup,random,greedy,minimax:depth=2,minimax:depth=3,mcts:iterations=500"
GAMES = 200


def bench_run(folder: Path) -> Path:
    result = measure(["run", "quixo4", "--out", str(folder), "--workers", str(WORKERS)])
    out = folder / "quixo4"
    state = json.loads((out / "workflow.json").read_text())
    report("run quixo4 from nothing", {
        "workers": WORKERS, "wall_s": result["wall"], "peak_rss_bytes": result["peak_rss"],
        "stages": ",".join(stage for stage, done in state["stages"].items() if done == "done"),
        "folder_bytes": folder_bytes(out),
    })
    return out / "store.zarr"


def bench_validate(store: Path, folder: Path) -> None:
    out = folder / "validate"
    result = measure(["validate", "--store", str(store), "--out", str(out), "--agents", AGENTS,
                      "--games", str(GAMES), "--workers", str(WORKERS), "--seed", "0"])
    written = json.loads((out / "report.json").read_text())
    games = sum(entry["games"] for entry in written["tournaments"])
    report("validate quixo4", {
        "workers": WORKERS, "agents": len(written["agents"]), "games_per_pairing": GAMES,
        "games_played": games, "positions_measured": written["move_quality_sample"]["positions"],
        "wall_s": result["wall"], "peak_rss_bytes": result["peak_rss"],
        **{f"{stage}": seconds for stage, seconds in written["timings"].items()},
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("run", "validate"))
    parser.add_argument("--store", type=Path, help="a solved 4x4 store for validate (default: run's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="retrograde-downstream-") as tmp:
        folder = Path(tmp)
        store = args.store
        if args.only != "validate":
            store = bench_run(folder)
        if args.only != "run":
            if store is None:
                raise SystemExit("--only validate needs --store PATH (a solved 4x4 Quixo store)")
            bench_validate(store, folder)


if __name__ == "__main__":
    main()
