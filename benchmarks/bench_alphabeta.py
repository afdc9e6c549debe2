"""The one alpha-beta driver (`search.base.alpha_beta`) against the per-game loops it replaced
(issue 32, point 5): nodes per second, old and new alternating in one run, on 4x4 Quixo and
Connect Four 5x4 at depth 4; and the first search's compile time, old and new, for 4x4 Quixo.

    python benchmarks/bench_alphabeta.py                  # against c8aae76's loops, 5 rounds, 3 compile pairs
    python benchmarks/bench_alphabeta.py --base c8aae76 --rounds 9 --positions 40 --compile-pairs 5

The old loop is the base commit's `games/<game>/search.py` (`git show`), imported as a module of
its own: its `search` kernel takes the same arguments as today's, so one `Search` object runs
either, with its module's `search` swapped. Each round times every position's `root_scores`
(the game's first evaluation, depth 4) once with each kernel, the order swapped every round, after
a warm-up that compiles both and checks that they give the same scores and node counts.
Compile time: a fresh process with an empty NUMBA_CACHE_DIR times its first 4x4 search (every
kernel it needs compiles), then a second process with the same cache (they load), old and new
alternating. The old loop is correct only against a tree whose kernels it still fits (it imports
today's search.base helpers and game kernels).
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_minimax import openings
from common import print_options, report

REPOSITORY = Path(__file__).resolve().parents[1]
#: (label, game, parameters, its Search class's module and name).
GAMES = (("4x4 Quixo", "quixo", {"size": 4}, "retrograde.games.quixo.search", "QuixoSearch"),
         ("Connect Four 5x4", "connect4", {"width": 5, "height": 4}, "retrograde.games.connect4.search",
          "Connect4Search"))
DEPTH = 4
FIRST_SEARCH = """
import importlib, sys, time
from retrograde.games import make_game
from retrograde.games.quixo import search as module
game = make_game("quixo", {"size": 4})
searcher = module.QuixoSearch(game)
if sys.argv[1] == "old":
    sys.path.insert(0, sys.argv[2])
    module.search = importlib.import_module("old_quixo_search").search
start = time.perf_counter()
searcher.root_scores(game.initial_position, 2, searcher.evals[0], seed=0)
print(time.perf_counter() - start)
"""


def old_module(base: str, name: str, folder: Path):
    """The base commit's search module of game `name`, written into `folder` (on sys.path: numba's
    cache finds a module by name) and imported as old_<name>_search."""
    source = subprocess.run(["git", "-C", str(REPOSITORY), "show", f"{base}:src/retrograde/games/{name}/search.py"],
                            capture_output=True, text=True, check=True).stdout
    (folder / f"old_{name}_search.py").write_text(source)
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return importlib.import_module(f"old_{name}_search")


def searched(module, kernel, searcher, positions) -> tuple[list, int, float]:
    """Every position's depth-4 scores, the nodes visited and the seconds taken, with `kernel`
    as the module's `search`."""
    module.search = kernel
    results, nodes = [], 0
    start = time.perf_counter()
    for i, position in enumerate(positions):
        results.append(searcher.root_scores(position, DEPTH, searcher.evals[0], seed=i).tolist())
        nodes += searcher.nodes
    return results, nodes, time.perf_counter() - start


def first_search_seconds(cache: Path, side: str, folder: Path) -> float:
    """Seconds of the first 4x4 Quixo search in a fresh process using `cache`, with the old loop
    (old_quixo_search in `folder`) or the new driver (`side`)."""
    out = subprocess.run([sys.executable, "-c", FIRST_SEARCH, side, str(folder)], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    if out.returncode:
        raise SystemExit(f"the first search failed:\n{out.stderr}")
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="c8aae76", help="the commit whose per-game loops are the old side")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--compile-pairs", type=int, default=3, help="fresh-cache first searches, old and new")
    options = parser.parse_args()
    print_options(options, depth=DEPTH, workers="none: one search at a time in this process (one core)")

    from retrograde.games import make_game

    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, name, params, module_name, class_name in GAMES:
            module = importlib.import_module(module_name)
            kernels = {"old": old_module(options.base, name, folder).search, "new": module.search}
            game = make_game(name, params)
            searcher = getattr(module, class_name)(game)
            positions = openings(game, options.positions, seed=2026)
            warm = {side: searched(module, kernel, searcher, positions) for side, kernel in kernels.items()}
            if warm["old"][:2] != warm["new"][:2]:
                raise SystemExit(f"{label}: the old and new loops differ in scores or nodes")
            seconds = {"old": 0.0, "new": 0.0}
            for round_ in range(options.rounds):
                for side in ("old", "new") if round_ % 2 == 0 else ("new", "old"):
                    seconds[side] += searched(module, kernels[side], searcher, positions)[2]
            module.search = kernels["new"]
            nodes = warm["new"][1] * options.rounds
            rates = {side: nodes / seconds[side] for side in seconds}
            figures[f"{label} depth {DEPTH} nodes a round"] = warm["new"][1]
            figures[f"{label} old nodes/s"] = round(rates["old"])
            figures[f"{label} new nodes/s"] = round(rates["new"])
            figures[f"{label} new/old"] = round(rates["new"] / rates["old"], 4)
        for side in ("old", "new") * options.compile_pairs:
            cache = folder / f"cache-{side}-{time.perf_counter_ns()}"
            cold = first_search_seconds(cache, side, folder)
            warm_load = first_search_seconds(cache, side, folder)
            figures.setdefault(f"4x4 Quixo first search {side}, cold cache (compile) s", []).append(round(cold, 2))
            figures.setdefault(f"4x4 Quixo first search {side}, warm cache (load) s", []).append(round(warm_load, 3))
    report("alphabeta", figures)


if __name__ == "__main__":
    main()
