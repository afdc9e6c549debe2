"""The exact audit's speed (issue 34, point 1): move quality and tournament games of the agents
whose moves the kernels compute (lookup, greedy, random), on 4x4 Quixo and 5x4 Connect Four.

    python benchmarks/bench_audit.py                               # both games solved first (~30 s)
    python benchmarks/bench_audit.py --quixo4 Q4.zarr --connect4 C4.zarr --workers 2

For each store and agent, on --workers workers (threads: the agents' work is in kernels, which
release the interpreter's lock; --processes: a LocalCluster's processes, as `validate` runs them;
started before the clock runs): move quality of
that agent alone on --positions positions (`quality.measure`: the sample drawn, every move scored,
the agent's choices; positions a second), then --games games of the agent against itself with
each seat first (`tournament.play_match`: moves a second, the moves being the games' plies), twice:
the first run includes each worker's load of the store's tablebase (and of the kernels from numba's
cache), the second runs on workers that hold them. Minimax at depth 2, which has no kernel form,
is measured the same way for scale. `sample_s` times the sample's selection alone, warm (the store's
values read, the sample drawn, its weights), which `validate` does once for all its agents;
`positions_per_s_beside_the_sample` is the rate of the rest: the agent's own part.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from common import given_or_solved, print_options, report

from retrograde.agents.registry import resolve_agent
from retrograde.data.store import Store
from retrograde.pipeline.executors import open_executor
from retrograde.validation import quality
from retrograde.validation.tournament import play_match

AGENTS = ["lookup", "greedy", "random", "minimax:depth=2"]
GAMES = {"quixo4": ["quixo", "--size", "4"], "connect4": ["connect4", "--width", "5", "--height", "4"]}


def audit(store: Store, spec: str, *, positions: int, games: int, executor) -> dict[str, float]:
    """One agent's move quality and games against itself, timed."""
    agent = resolve_agent(spec, store.game)
    quality.select_positions(store, positions, seed=1)  # warm, as it is inside `measure` below
    started = time.perf_counter()
    quality.select_positions(store, positions, seed=1)
    sample_s = time.perf_counter() - started
    started = time.perf_counter()
    measured = quality.measure(store, [agent], positions=positions, seed=1, executor=executor, quiet=True)
    quality_s = time.perf_counter() - started
    counted = measured["sample"]["positions"]
    started = time.perf_counter()
    played = play_match(spec, spec, store.game, games=games, seed=1, store=store, executor=executor)
    games_s = time.perf_counter() - started
    moves = sum(entry["games"] * entry["mean_plies"] for entry in played["tournaments"])
    return {"positions": counted, "move_quality_s": quality_s, "positions_per_s": counted / quality_s,
            "sample_s": sample_s, "positions_per_s_beside_the_sample": counted / max(quality_s - sample_s, 1e-9),
            "games": 2 * games, "moves": int(moves), "games_s": games_s, "moves_per_s": moves / games_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quixo4", type=Path, help="a solved 4x4 Quixo store (else one is solved)")
    parser.add_argument("--connect4", type=Path, help="a solved 5x4 Connect Four store (else one is solved)")
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=1_000, help="games a seat")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--processes", action="store_true",
                        help="workers are processes (a LocalCluster), as validate's are, not threads")
    parser.add_argument("--agents", default=",".join(AGENTS))
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory() as folder, open_executor(workers=options.workers, positions=None,
                                                                 kernels=not options.processes) as executor:
        for name, game in GAMES.items():
            path = given_or_solved(getattr(options, name), Path(folder), f"{name}.zarr", game)
            store = Store.open(path)
            for spec in options.agents.split(","):
                for run in ("first", "again"):
                    report(f"audit {name} {spec} ({run})",
                           audit(store, spec, positions=options.positions, games=options.games, executor=executor))
            store.close()


if __name__ == "__main__":
    main()
