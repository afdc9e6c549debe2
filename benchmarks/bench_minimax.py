"""Minimax figures (issue 9): time per move and nodes per second on 5x5 Quixo, kernel
compile/load time, and lookup / store-probing minimax move times on a solved 4x4 store.

    python benchmarks/bench_minimax.py                 # 5x5 depths 2-4, /tmp/q4.zarr if present
    python benchmarks/bench_minimax.py --positions 40 --store PATH

Positions: seeded random plays of 4-10 plies from the empty 5x5 board. Each depth times
`MinimaxAgent.choose` (one search, one core) in this process after a warm-up move, so numba
compile time is excluded; it is measured apart in fresh processes: cold (an empty
NUMBA_CACHE_DIR, every kernel compiles) and warm (the same cache reused). Targets (issue 9):
depth 3 <= 50 ms, depth 4 <= 1 s a move, >= 1,000,000 nodes/s a core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import print_options, report

FIRST_SEARCH = """
import time
start = time.perf_counter()
from retrograde.agents.registry import build_agent
from retrograde.games import make_game
game = make_game("quixo", {"size": 5})
build_agent("minimax:depth=2", game, seed=0).choose(game.initial_position)
print(time.perf_counter() - start)
"""


def first_search_seconds(cache: Path) -> float:
    """Wall seconds of import + build + first 5x5 search in a fresh process using `cache`."""
    out = subprocess.run([sys.executable, "-c", FIRST_SEARCH], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    return float(out.stdout.strip().splitlines()[-1])


def openings(game, count: int, seed: int) -> list:
    """Non-terminal positions after 4..10 random plies."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        position = game.initial_position
        for _ in range(int(rng.integers(4, 11))):
            moves = game.moves(position)
            position = moves[int(rng.integers(len(moves)))][1]
            if game.primitive(position):
                break
        if not game.primitive(position):
            found.append(position)
    return found


def time_moves(agent, positions) -> tuple[list[float], int]:
    """Seconds per `choose` and the nodes searched over all positions."""
    agent.choose(positions[0])  # warm-up: kernels loaded, buffers touched
    seconds, nodes = [], 0
    for position in positions:
        start = time.perf_counter()
        agent.choose(position)
        seconds.append(time.perf_counter() - start)
        nodes += getattr(agent, "nodes", 0)
    return seconds, nodes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--store", type=Path, default=Path("/tmp/q4.zarr"), help="a solved 4x4 Quixo store")
    options = parser.parse_args()
    print_options(options, workers="none: one search at a time in this process (one core)")

    from retrograde.agents.registry import build_agent
    from retrograde.games import make_game

    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "numba-cache"
        figures["first 5x5 search, cold cache (compile) s"] = first_search_seconds(cache)
        figures["first 5x5 search, warm cache (load) s"] = first_search_seconds(cache)

    game = make_game("quixo", {"size": 5})
    positions = openings(game, options.positions, seed=2024)
    for depth in (2, 3, 4):
        agent = build_agent(f"minimax:depth={depth}", game, seed=depth)
        seconds, nodes = time_moves(agent, positions)
        figures[f"5x5 depth {depth} median ms"] = 1e3 * statistics.median(seconds)
        figures[f"5x5 depth {depth} max ms"] = 1e3 * max(seconds)
        figures[f"5x5 depth {depth} nodes/move (mean)"] = round(nodes / len(positions))
        figures[f"5x5 depth {depth} nodes/s"] = round(nodes / sum(seconds))
    agent = build_agent("minimax:depth=4,adaptive=1", game, seed=7)
    seconds, _ = time_moves(agent, positions)
    figures["5x5 depth<=4 adaptive median ms"] = 1e3 * statistics.median(seconds)
    figures["5x5 depth<=4 adaptive max ms"] = 1e3 * max(seconds)

    if options.store.is_dir():
        from retrograde.data.store import Store

        with Store.open(options.store) as store:
            four = store.game
            sample = openings(four, options.positions, seed=2025)
            seconds, _ = time_moves(build_agent("lookup", four, seed=1, store=store), sample)
            figures["4x4 lookup median ms"] = 1e3 * statistics.median(seconds)
            figures["4x4 lookup max ms"] = 1e3 * max(seconds)
            agent = build_agent("minimax:depth=1,tablebase=1", four, seed=1, store=store)
            start = time.perf_counter()
            agent.choose(four.initial_position)
            figures["4x4 minimax+store first move (loads tiers) s"] = time.perf_counter() - start
            seconds, _ = time_moves(agent, sample)
            figures["4x4 minimax+store depth 1 median ms"] = 1e3 * statistics.median(seconds)
            figures["4x4 minimax+store depth 1 max ms"] = 1e3 * max(seconds)
            tablebase = agent.search.tablebase
            figures["4x4 minimax+store tiers loaded"] = int((tablebase.start >= 0).sum())
            figures["4x4 minimax+store MB held"] = round(tablebase.held * tablebase.bytes_per_position / 2**20, 1)
    else:
        print(f"(no store at {options.store}: lookup and store-probing figures skipped)")
    report("minimax", figures)


if __name__ == "__main__":
    main()
