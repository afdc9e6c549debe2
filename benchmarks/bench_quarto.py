"""Quarto figures (issue 10): exact solves below roots with 8, 9, 10 (11) empty cells.

    python benchmarks/bench_quarto.py                  # 8 and 9 empty cells (about a minute)
    python benchmarks/bench_quarto.py --empty 10       # about 8 minutes on 2 workers
    python benchmarks/bench_quarto.py --empty 11 --workers 1   # hours; 2 workers need 40 GB
    python benchmarks/bench_quarto.py --stabilisers 200        # symmetry: roots' stabilisers only
    python benchmarks/bench_quarto.py --matches 500            # the seeds' Quarto pairings, N games a seat
    python benchmarks/bench_quarto.py --run                    # `retrograde run quarto` (about 5 minutes)
    python benchmarks/bench_quarto.py --estimate --empty 11 --workers 2   # what `solve` would need

Each root comes from seeded random play from the empty board without a line
(`games.quarto.game.random_position`, --seed). Solves run the real CLI from an empty store
(default workers: a LocalCluster with one process a core from 4 million positions), after a
tiny solve that loads every kernel. Peak RSS is the largest single process (driver or
worker), from getrusage of the waited process tree. Probe latency is the Python API
(`retrograde.open_store(...).probe`, every move's value) and `values` (the value alone) on
random stored positions, median over --probes, with the store opened once.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from common import folder_bytes, measure, print_options, print_published, report

from retrograde.games import make_game
from retrograde.games.quarto.game import Quarto, random_position
from retrograde.games.quarto.symmetry import stabiliser_order


def root_text(empty: int, seed: int, squares: bool) -> str:
    return Quarto(squares=squares).format(random_position(empty, seed=seed, squares=squares))


def solve_args(root: str, store: Path, workers: int | None, squares: bool) -> list[str]:
    return (["solve", "quarto", "--from", root, "--store", str(store), "--quiet"]
            + (["--squares"] if squares else []) + ([] if workers is None else ["--workers", str(workers)]))


def legal_positions(store: Path) -> int:
    status = subprocess.run([sys.executable, "-m", "retrograde", "status", "--store", str(store), "--json"],
                            capture_output=True, text=True, check=True)
    return sum(t["win"] + t["loss"] + t["draw"] for t in json.loads(status.stdout)["tiers"])


def probe_latency(store: Path, n: int, seed: int) -> dict:
    """Median and 90th percentile of probing single random stored positions through the API."""
    import retrograde

    rng = np.random.default_rng(seed)
    with retrograde.open_store(store) as opened:
        tiers = [info for info in opened.tiers.values() if info.win + info.loss + info.draw]
        weights = np.array([info.size for info in tiers], dtype=float)
        positions = []
        while len(positions) < n:
            info = tiers[rng.choice(len(tiers), p=weights / weights.sum())]
            position = opened.position_at(info.name, int(rng.integers(info.size)))
            if position is not None:
                positions.append(str(position))
        opened.values(positions[:50])  # warm: first chunk reads
        figures = {}
        for name, call in (("probe", lambda text: opened.probe(text)),
                           ("value", lambda text: opened.values([text]))):
            times = []
            for text in positions:
                start = time.perf_counter()
                call(text)
                times.append(time.perf_counter() - start)
            figures[f"{name} median ms"] = 1e3 * statistics.median(times)
            figures[f"{name} p90 ms"] = 1e3 * float(np.percentile(times, 90))
    return figures


#: The pairings the seeds report (002: GA, GA+minimax hybrid; 000: the per-move GA), agent first.
PAIRINGS = (
    ("ga:alpha=0.1,beta=0.2", "random"),
    ("ga:alpha=0.1,beta=0.3,minimax=1", "random"),
    ("ga:alpha=0.1,beta=0.3,minimax=2", "random"),
    ("ga:alpha=0.1,beta=0.3,minimax=1", "ga:alpha=0.1,beta=0.2"),
    ("ga:alpha=0.1,beta=0.3,minimax=2", "ga:alpha=0.1,beta=0.3,minimax=1"),
    ("lookahead", "random"),
    ("endgame", "ga:alpha=0.1,beta=0.3,minimax=2"),
)


def bench_matches(games: int, seed: int, workers: int | None) -> None:
    """`retrograde match` on each of PAIRINGS: the agent's wins/draws/losses in each seat."""
    figures: dict = {"games per seat": games, "seed": seed}
    tournaments: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "match.json"
        for agent, opponent in PAIRINGS:
            args = ["match", agent, opponent, "--game", "quarto", "--games", str(games), "--seed", str(seed),
                    "--json", "--quiet", *(["--workers", str(workers)] if workers is not None else [])]
            run = measure(args, stdout=out)
            for entry in json.loads(out.read_text())["tournaments"]:
                first = entry["first"] == agent
                won, lost = (entry["first_wins"], entry["second_wins"]) if first else \
                    (entry["second_wins"], entry["first_wins"])
                figures[f"{agent} vs {opponent}, {'first' if first else 'second'}: W/D/L"] = \
                    f"{won}/{entry['draws']}/{lost}"
            figures[f"{agent} vs {opponent}: wall s"] = run["wall"]
            tournaments.extend(json.loads(out.read_text())["tournaments"])
    report("quarto matches", figures)
    print_published(make_game("quarto"), sorted({spec for pairing in PAIRINGS for spec in pairing}), tournaments)


def bench_run(workers: int | None) -> None:
    """`retrograde run quarto` from nothing: wall time, peak memory, the stages' timings, the
    exact search's seconds a sampled position by tier, each agent's value kept and blunders."""
    with tempfile.TemporaryDirectory() as tmp:
        run = measure(["run", "quarto", "--out", tmp, "--quiet", *(["--workers", str(workers)] if workers else [])])
        written = json.loads((Path(tmp) / "quarto" / "report" / "report.json").read_text())
        timings = json.loads((Path(tmp) / "quarto" / "report" / "timings.json").read_text())
    sample = written["move_quality_sample"]
    figures: dict = {"wall s": run["wall"], "peak RSS MB": round(run["peak_rss"] / 2**20),
                     **{f"validate {stage}": seconds for stage, seconds in timings["stages"].items()},
                     "positions": sample["positions"], "baseline games sampled": sample["games"],
                     "games played": sum(entry["games"] for entry in written["tournaments"])}
    for tier, entry in timings["search_s_a_position"].items():
        figures[f"{tier}: exact search s a position, mean / max"] = f"{entry['mean']} / {entry['max']}"
    for spec, entry in written["agents"].items():
        blunders = entry["blunders"]
        figures[f"{spec.replace(tmp, 'OUT')}: value kept, placement / piece blunders"] = (
            f"{entry['move_quality']['value_kept']:.3f}, {blunders['placement']['rate']:.3f} / "
            f"{blunders['piece']['rate']:.3f}")
    report("run quarto", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--empty", type=int, action="append", help="empty cells of a root (repeat; default 8, 9)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the roots' random play")
    parser.add_argument("--squares", action="store_true", help="the 2x2-square variant")
    parser.add_argument("--workers", type=int, default=None, help="solve --workers (default: solve's own)")
    parser.add_argument("--probes", type=int, default=1000)
    parser.add_argument("--stabilisers", type=int, default=0, metavar="N",
                        help="only count the symmetries fixing N seeded roots of each size")
    parser.add_argument("--matches", type=int, default=0, metavar="N",
                        help="only play the seeds' pairings, N games a seat")
    parser.add_argument("--run", action="store_true", help="only time `retrograde run quarto`")
    parser.add_argument("--estimate", action="store_true",
                        help="only print the estimate `solve` checks before it starts, for each --empty")
    options = parser.parse_args()
    print_options(options, workers_used=options.workers if options.workers is not None else
                  "each command's default: a LocalCluster of one worker a core (here "
                  f"{os.cpu_count()}) from 4 million positions, else in-process")
    if options.run:
        bench_run(options.workers)
        return
    if options.matches:
        bench_matches(options.matches, options.seed, options.workers)
        return
    sizes = options.empty or [8, 9]
    figures: dict = {}
    if options.estimate:
        from retrograde.pipeline.estimate import estimate, human_bytes
        from retrograde.data.plan import make_plan

        for empty in sizes:
            root = root_text(empty, options.seed, options.squares)
            plan = make_plan(Quarto(root=root, squares=options.squares))
            planned = estimate(plan, workers=options.workers)
            figures[f"{empty} empty ({root}): positions indexed"] = plan.positions
            figures[f"{empty} empty: largest tier"] = max((tier.size, tier.name) for tier in plan.tiers)
            figures[f"{empty} empty: peak per worker"] = f"{human_bytes(planned.peak_bytes)} ({planned.peak_task})"
            figures[f"{empty} empty: memory on {planned.workers} workers"] = human_bytes(planned.memory_needed)
            figures[f"{empty} empty: estimated time"] = planned.on_workers
        report("quarto estimates", figures)
        return
    if options.stabilisers:
        for empty in sizes:
            orders = Counter(stabiliser_order(random_position(empty, seed=seed, squares=options.squares),
                                              options.squares) for seed in range(options.stabilisers))
            figures[f"{empty} empty: roots by stabiliser order"] = dict(sorted(orders.items()))
            figures[f"{empty} empty: mean share symmetry could remove (at most)"] = \
                sum(count * (1 - 1 / order) for order, count in orders.items()) / options.stabilisers
        report("quarto symmetry", figures)
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        measure(solve_args(root_text(4, options.seed, options.squares), tmp / "warm.zarr", 0, options.squares))
        for empty in sizes:
            root = root_text(empty, options.seed, options.squares)
            store = tmp / f"quarto-{empty}.zarr"
            run = measure(solve_args(root, store, options.workers, options.squares))
            indexed = sum(tier.size for tier in Quarto(root=root, squares=options.squares).tiers())
            legal = legal_positions(store)
            prefix = f"{empty} empty"
            figures[f"{prefix}: root"] = root
            figures[f"{prefix}: solve wall s"] = run["wall"]
            figures[f"{prefix}: positions indexed"] = indexed
            figures[f"{prefix}: positions legal"] = legal
            figures[f"{prefix}: indexed positions/s"] = round(indexed / run["wall"])
            figures[f"{prefix}: legal positions/s"] = round(legal / run["wall"])
            figures[f"{prefix}: peak RSS MB"] = round(run["peak_rss"] / 2**20)
            figures[f"{prefix}: store bytes"] = folder_bytes(store)
            order = stabiliser_order(Quarto(squares=options.squares).parse(root), options.squares)
            figures[f"{prefix}: root stabiliser order"] = order
            figures[f"{prefix}: share symmetry could remove (at most)"] = 1 - 1 / order
            for key, value in probe_latency(store, options.probes, seed=options.seed).items():
                figures[f"{prefix}: {key}"] = value
    report("quarto", figures)


if __name__ == "__main__":
    main()
