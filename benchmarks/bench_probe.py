"""`probe --json` over stdin, the batch interface scripts use (issue 34, point 1): positions a
second as a whole process, start-up included, on 4x4 Quixo. The goal is 20,000 a second on 2 cores.

The positions are met on seeded random walks from the start position (each walker plays a
uniformly random move a ply and starts over after a finished game or `--plies` plies), so each is
reachable and every position of a solved 4x4 store is stored. They are piped to
`python -m retrograde probe --store S --json` as a whole process; its output must hold a line a
position. Each run prints wall and CPU seconds (user and system: on a shared machine, the figure
that depends least on what else runs) and positions a second by each; a probe of the start position
alone is timed first, as the start-up the figure includes.

    python benchmarks/bench_probe.py                         # solves 4x4 Quixo first (about 30 s)
    python benchmarks/bench_probe.py --store q4.zarr --positions 5000 --repeat 3
"""

from __future__ import annotations

import argparse
import itertools
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import given_or_solved, print_options

from retrograde.games import make_game


def walked(game, wanted: int, seed: int, walkers: int, plies: int) -> list[str]:
    """`wanted` position texts met on random walks from the start (the batch hooks: one array step
    a ply for all walkers)."""
    rng = np.random.default_rng(seed)
    start = game.format(game.initial_position)
    texts, met = [start] * walkers, []
    for ply in itertools.count(1):
        batch, _ = game.parse_many(texts)
        counts, _, children = game.children_many(batch)
        child_texts = [text.decode() if isinstance(text, bytes) else text for text in game.format_many(children)]
        first = np.cumsum(counts) - counts
        picks = (first + (rng.random(walkers) * counts).astype(np.int64)).tolist()
        restart = (counts == 0) | (ply % plies == 0)
        texts = [start if over else child_texts[pick] for over, pick in zip(restart.tolist(), picks)]
        met += [text for text in texts if text != start]
        if len(met) >= wanted:
            return met[:wanted]


def timed(store: Path, stdin: Path, stdout: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `probe --store STORE --json` reading `stdin`, as a whole process."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(stdin, "rb") as given, open(stdout, "wb") as out:
        done = subprocess.run([sys.executable, "-m", "retrograde", "probe", "--store", str(store), "--json"],
                              stdin=given, stdout=out, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"probe failed: {done.stderr.decode().strip()}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a solved 4x4 Quixo store (default: solve one in a scratch folder)")
    parser.add_argument("--positions", type=int, default=100_000, help="positions piped to one probe")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random walks")
    parser.add_argument("--walkers", type=int, default=2000, help="random walks taken side by side")
    parser.add_argument("--plies", type=int, default=40, help="a walk starts over after so many plies")
    parser.add_argument("--repeat", type=int, default=1, help="probes of the same positions, each timed")
    args = parser.parse_args()
    print_options(args)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = given_or_solved(args.store, folder, "q4.zarr", ["quixo", "--size", "4"])
        game = make_game("quixo", {"size": 4})
        texts = walked(game, args.positions, args.seed, args.walkers, args.plies)
        given, one, out = folder / "positions.txt", folder / "start.txt", folder / "out.jsonl"
        given.write_text("\n".join(texts) + "\n")
        one.write_text(game.format(game.initial_position) + "\n")
        wall, cpu = timed(store, one, out)
        print(f"start-up (1 position):   {wall:6.2f} s wall {cpu:6.2f} s CPU", flush=True)
        for _ in range(args.repeat):
            wall, cpu = timed(store, given, out)
            with open(out, "rb") as answers:
                lines = sum(1 for _ in answers)
            if lines != len(texts):
                raise SystemExit(f"probe wrote {lines} lines for {len(texts)} positions")
            print(f"{len(texts):,} positions: {wall:6.2f} s wall {cpu:6.2f} s CPU; "
                  f"{len(texts) / wall:,.0f} a second of wall time, {len(texts) / cpu:,.0f} of CPU time; "
                  f"{out.stat().st_size / 1e6:.0f} MB of JSON lines", flush=True)


if __name__ == "__main__":
    main()
