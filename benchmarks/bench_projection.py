"""The full 5x5 Quixo solve projected from measured throughput (issue 12): every tier's kernel
cost sampled, scaled by a solve measured on this machine.

    python benchmarks/bench_projection.py                      # calibrate on --down-to 23 (~10 min)
    python benchmarks/bench_projection.py --calibrate 24 --windows 64
    python benchmarks/bench_projection.py --calibrate 21 --measured /data/q5/store.zarr.runs.json

Dividing the full game's indices by one solve's indices a second assumes every tier costs what
the calibration tiers cost; mid-board tiers have more blanks, so more moves a position and more
parents to reach. So each tier of the full game is sampled: `--windows` random windows of
`--width` indices (seeded) are expanded as the first pass does (children in the loopy group
counted, not ranked), and the parents of every position found in them are generated as the
propagation does. That gives each tier's kernel seconds: its size times the mean cost an index,
plus its positions times the cost of a position's parents (every position counted, draws
too, which the propagation never settles: an overestimate). Then the calibration solve runs
(`solve quixo --size 5 --down-to N`, a local cluster of `--workers` processes) and its core
seconds (wall times workers: idle time and cluster start included) are divided by the model's
seconds for its tiers (`--measured`: a solve already run, the segments bench_quixo_deep.py
records, their wall times added, instead of a new one). The full game's core-hours are the
model's seconds for all tiers times that factor. The plan's figures for the full game follow:
the largest task's memory a worker and the scratch disk at once (`retrograde plan`'s estimate,
with the scratch share measured by the calibration where given). Not modelled: a large tier's
cache misses in the propagation's state and in the values its first pass looks up (the windows
are small), and its scratch and checkpoint I/O.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from common import measure, print_options, report

from retrograde.games import make_game
from retrograde.outcome import ILLEGAL
from retrograde.data.plan import make_plan


def tier_costs(game, *, windows: int, width: int, seed: int) -> dict[str, dict]:
    """Per tier: size, mean first-pass kernel ns an index, positions a sampled index, parents
    kernel ns a position (sampled as the module says)."""
    rng = np.random.default_rng(seed)
    group_of = {name: step.tiers for step in make_plan(game).steps for name in step.tiers}
    costs = {}
    for tier in game.tiers():
        offsets = np.zeros(len(tier.children), dtype=np.int64)
        group = group_of[tier.name]
        group_offsets = {name: 0 for name in group}
        expand_seconds = parents_seconds = 0.0
        indices = positions = 0
        for start in rng.integers(0, max(tier.size - width, 0), windows, endpoint=True).tolist():
            stop = min(start + width, tier.size)
            began = time.perf_counter()
            expansion = game.expand(tier, start, stop, offsets, group=group)
            expand_seconds += time.perf_counter() - began
            found = np.flatnonzero(expansion.primitive != ILLEGAL) + start
            if found.size:
                began = time.perf_counter()
                game.loopy.parents(tier, found, group_offsets)
                parents_seconds += time.perf_counter() - began
            indices += stop - start
            positions += found.size
        costs[tier.name] = {"size": tier.size, "cubes": sum(tier.key), "expand_ns": 1e9 * expand_seconds / indices,
                            "share": positions / indices,
                            "parents_ns": 1e9 * parents_seconds / positions if positions else 0.0}
    return costs


def model_seconds(cost: dict) -> float:
    """A tier's kernel seconds: every index expanded, every position's parents generated."""
    return cost["size"] * (cost["expand_ns"] + cost["share"] * cost["parents_ns"]) / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calibrate", type=int, default=23, help="solve --down-to N to calibrate on (default 23)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the calibration solve")
    parser.add_argument("--windows", type=int, default=512, help="sampled windows a tier")
    parser.add_argument("--width", type=int, default=128,
                        help="indices a window (small windows, many: positions cluster in the index space)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the window starts")
    parser.add_argument("--measured", type=Path, default=None,
                        help="a solve --down-to CALIBRATE already run: bench_quixo_deep.py's <store>.runs.json")
    parser.add_argument("--worker-memory", default="16GB", help="the full game's plan: memory a worker")
    options = parser.parse_args()
    print_options(options)
    game = make_game("quixo", {"size": 5})
    warm = game.tiers()[-1]  # numba compiles (or loads) the kernels before anything is timed
    game.expand(warm, 0, 16, np.zeros(len(warm.children), dtype=np.int64))
    began = time.perf_counter()
    costs = tier_costs(game, windows=options.windows, width=options.width, seed=options.seed)
    sampling = time.perf_counter() - began
    print(f"  sampled {len(costs)} tiers in {sampling:.1f} s", flush=True)

    if options.measured:
        run = measured_solve(options.measured)
    else:
        with tempfile.TemporaryDirectory(prefix="retrograde-projection-") as tmp:
            store = Path(tmp) / "q5.zarr"
            run = measure(["solve", "quixo", "--size", "5", "--down-to", str(options.calibrate), "--store",
                           str(store), "--workers", str(options.workers), "--quiet"])
    calibration = [cost for cost in costs.values() if cost["cubes"] >= options.calibrate]
    workers = run.get("workers", options.workers)
    core_seconds = run["wall"] * workers
    factor = core_seconds / sum(model_seconds(cost) for cost in calibration)
    full = sum(model_seconds(cost) for cost in costs.values())
    indices = sum(cost["size"] for cost in costs.values())
    calibration_indices = sum(cost["size"] for cost in calibration)

    figures: dict = {"calibration solve": f"--down-to {options.calibrate}, {workers} workers",
                     "calibration wall s": round(run["wall"], 1),
                     "calibration peak RSS MB": round(run["peak_rss"] / 2**20),
                     "calibration indexed positions a core-second (M)":
                         round(calibration_indices / core_seconds / 1e6, 3),
                     "measured / modelled kernel seconds (calibration tiers)": round(factor, 3)}
    for cubes in range(25, -1, -5):  # the model's share by band of cubes on the board
        band = [cost for cost in costs.values() if cubes - 4 <= cost["cubes"] <= cubes]
        figures[f"tiers with {max(cubes - 4, 0)}-{cubes} cubes: projected core-hours"] = \
            round(factor * sum(model_seconds(cost) for cost in band) / 3600, 1)
    figures["full 5x5 indexed positions"] = indices
    figures["full 5x5 core-hours, the calibration's throughput an index"] = \
        round(indices / (calibration_indices / core_seconds) / 3600, 1)
    figures["full 5x5 core-hours, projected tier by tier"] = round(factor * full / 3600, 1)
    figures.update(full_plan(game, workers, options.worker_memory, run.get("scratch_peak"), options.calibrate))
    report("full 5x5 Quixo projection", figures)


def measured_solve(runs: Path) -> dict:
    """The solve segments bench_quixo_deep.py recorded (completed: the last one exits 0, all on
    one count of workers): wall seconds added, the workers, the largest process's peak, the
    scratch folder's peak."""
    segments = [run for run in json.loads(runs.read_text()) if run["command"] == "solve"]
    if not segments or segments[-1]["code"] != 0:
        raise SystemExit(f"{runs}: no completed solve recorded")
    workers = {run["workers"] for run in segments}
    if len(workers) != 1:
        raise SystemExit(f"{runs}: its segments ran on {sorted(workers)} workers, not one count")
    return {"wall": sum(run["wall"] for run in segments), "workers": workers.pop(),
            "peak_rss": max(max(run["peaks"].values(), default=0) for run in segments),
            "scratch_peak": max(run["scratch_peak"] for run in segments)}


def full_plan(game, workers: int, worker_memory: str, scratch_peak: int | None, calibrate: int) -> dict:
    """The full game's plan on `workers` workers: the largest task's memory a
    worker and the scratch disk at once (the game's scratch share, and the one the calibration
    measured: its scratch peak over the raw bytes of its two largest groups of one wave)."""
    from retrograde.data.plan import make_plan as plan_of
    from retrograde.pipeline.estimate import estimate
    from retrograde.pipeline.memory import parse_bytes

    memory = parse_bytes(worker_memory, "--worker-memory")
    full = estimate(plan_of(game), workers=workers, worker_memory=memory)
    figures = {f"full 5x5 plan: largest task at --worker-memory {worker_memory}":
               f"{full.peak_bytes / 1e9:.1f} GB ({full.peak_task})",
               "full 5x5 plan: scratch at once (GB, the game's scratch share)": round(full.scratch_bytes / 1e9, 1)}
    if scratch_peak:
        part = make_game("quixo", {"size": 5, "down_to": calibrate})
        raw = estimate(plan_of(part), workers=workers, worker_memory=memory).scratch_bytes / part.costs.scratch_share
        share = scratch_peak / raw
        figures["calibration scratch peak GB"] = round(scratch_peak / 1e9, 2)
        figures["calibration scratch share (peak / raw 4 bytes a row at once)"] = round(share, 4)
        figures["full 5x5 plan: scratch at once (GB, the calibration's share)"] = \
            round(full.scratch_bytes / game.costs.scratch_share * share / 1e9, 1)
    return figures


if __name__ == "__main__":
    main()
