"""Downstream figures (issue 9): `retrograde run quixo4` from nothing, `retrograde validate` on a
solved 4x4 store with 6 agents and 200 games per pairing and seat, and a 5x5 validation whose
tournaments set seed 001's 5x5 figures beside ours.

    python benchmarks/bench_downstream.py                       # all four, in a fresh temporary folder
    python benchmarks/bench_downstream.py --only validate --store q4.zarr
    python benchmarks/bench_downstream.py --only run
    python benchmarks/bench_downstream.py --only quixo5
    python benchmarks/bench_downstream.py --only stalls --store q4.zarr

The 5x5 part solves the full boards (`--down-to 25`) and validates a lookup agent that defers
to minimax depth 3 elsewhere, minimax depth 2 and 3 and random (GAMES_5X5 games per pairing and
seat from the start, as many from seeded openings); it prints each of the seeds' figures with ours.
The stalls part plays seed 001's way of using a solved store (`lookup:remoteness=0`: any move
that keeps the value) and ours against minimax depth 2 on 4x4, STALL_GAMES games a seat.

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

from common import folder_bytes, measure, print_options, print_published, report

WORKERS = 2
AGENTS = "lookup,random,greedy,minimax:depth=2,minimax:depth=3,mcts:iterations=500"
GAMES = 200
AGENTS_5X5 = "lookup:fallback=minimax:depth=3,minimax:depth=2,minimax:depth=3,random"
GAMES_5X5 = 50
STALL_GAMES = 100


def bench_run(folder: Path) -> Path:
    result = measure(["run", "quixo4", "--out", str(folder), "--workers", str(WORKERS)])
    out = folder / "quixo4"
    state = json.loads((out / "workflow.json").read_text())
    stages = json.loads((out / "timings.json").read_text())["stages_s"]  # each stage's wall seconds
    report("run quixo4 from nothing", {
        "workers": WORKERS, "wall_s": result["wall"], "peak_rss_bytes": result["peak_rss"],
        "stages": ",".join(stage for stage, done in state["stages"].items() if done == "done"),
        **{f"{stage}_s": seconds for stage, seconds in stages.items()},
        "validate / (solve + verify)": round(stages["validate"] / (stages["solve"] + stages["verify"]), 3),
        "folder_bytes": folder_bytes(out),
    })
    return out / "store.zarr"


def bench_validate(store: Path, folder: Path) -> None:
    out = folder / "validate"
    result = measure(["validate", "--store", str(store), "--out", str(out), "--agents", AGENTS,
                      "--games", str(GAMES), "--workers", str(WORKERS), "--seed", "0"])
    written = json.loads((out / "report.json").read_text())
    timings = json.loads((out / "timings.json").read_text())  # wall-clock figures: kept out of the report
    games = sum(entry["games"] for entry in written["tournaments"])
    report("validate quixo4", {
        "workers": WORKERS, "agents": len(written["agents"]), "games_per_pairing": GAMES,
        "games_played": games, "positions_measured": written["move_quality_sample"]["positions"],
        "wall_s": result["wall"], "peak_rss_bytes": result["peak_rss"],
        **{f"{stage}": seconds for stage, seconds in timings["stages"].items()},
    })


def bench_quixo5(folder: Path) -> None:
    store, out = folder / "q5.zarr", folder / "validate5"
    solved = measure(["solve", "quixo", "--size", "5", "--down-to", "25", "--store", str(store),
                      "--workers", str(WORKERS), "--quiet"])
    result = measure(["validate", "--store", str(store), "--out", str(out), "--agents", AGENTS_5X5,
                      "--games", str(GAMES_5X5), "--workers", str(WORKERS), "--seed", "0", "--quiet"])
    written = json.loads((out / "report.json").read_text())
    report("validate quixo5 (--down-to 25)", {
        "workers": WORKERS, "solve_wall_s": solved["wall"], "agents": len(written["agents"]),
        "games_per_pairing": GAMES_5X5, "games_played": sum(entry["games"] for entry in written["tournaments"]),
        "max_plies": written["max_plies"], "wall_s": result["wall"], "peak_rss_bytes": result["peak_rss"],
    })
    print_published(store_game(store), list(written["agents"]), written["tournaments"])


def store_game(store: Path):
    from retrograde.data.store import Store

    with Store.open(store) as opened:
        return opened.game


def bench_stalls(store: Path, folder: Path) -> None:
    for lookup in ("lookup:remoteness=0", "lookup"):
        out = folder / "match.json"
        args = ["match", lookup, "minimax:depth=2", "--store", str(store), "--games", str(STALL_GAMES),
                "--seed", "1", "--workers", str(WORKERS), "--json", "--quiet"]
        result = measure(args, stdout=out)
        played = json.loads(out.read_text())
        figures = {"workers": WORKERS, "games_per_seat": STALL_GAMES, "max_plies": played["max_plies"],
                   "wall_s": result["wall"]}
        for entry in played["tournaments"]:
            seat = "first" if entry["first"] == lookup else "second"
            won, lost = ("first_wins", "second_wins") if seat == "first" else ("second_wins", "first_wins")
            figures[f"as {seat}: win/draw/loss"] = f"{entry[won]}/{entry['draws']}/{entry[lost]}"
            figures[f"as {seat}: mean plies"] = entry["mean_plies"]
        report(f"{lookup} vs minimax:depth=2 on 4x4", figures)
        print_published(store_game(store), [lookup, "minimax:depth=2"], played["tournaments"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("run", "validate", "quixo5", "stalls"))
    parser.add_argument("--store", type=Path, help="a solved 4x4 store for validate (default: run's)")
    args = parser.parse_args()
    print_options(args, workers=WORKERS, agents=AGENTS, games=GAMES, agents_5x5=AGENTS_5X5, games_5x5=GAMES_5X5,
                  stall_games=STALL_GAMES)
    with tempfile.TemporaryDirectory(prefix="retrograde-downstream-") as tmp:
        folder = Path(tmp)
        store = args.store
        if args.only in (None, "quixo5"):
            bench_quixo5(folder)
        if args.only == "quixo5":
            return
        if args.only not in ("validate", "stalls"):
            store = bench_run(folder)
        if args.only != "run" and store is None:
            raise SystemExit(f"--only {args.only} needs --store PATH (a solved 4x4 Quixo store)")
        if args.only in (None, "validate"):
            bench_validate(store, folder)
        if args.only in (None, "stalls"):
            bench_stalls(store, folder)


if __name__ == "__main__":
    main()
