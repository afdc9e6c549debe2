"""Store density (issue 26, "a denser store"): chunk data of 4x4 Quixo and of 5x5 `--down-to 24`,
and single-probe latency, for the code on PYTHONPATH.

    python benchmarks/bench_density.py                     # 4x4: solve, bytes, probes (about 1 minute)
    python benchmarks/bench_density.py --down-to 24        # also 5x5 --down-to 24 (a few minutes, 2 workers)
    python benchmarks/bench_density.py --store4 S          # a store already solved (any format this code reads)

Before/after: run it once with this checkout and once with the base commit's source first on
PYTHONPATH (`git worktree add /tmp/base BASE; PYTHONPATH=/tmp/base/src python benchmarks/...`):
it uses only the store and probing API both have. Chunk data is the bytes of the tiers' chunk
files (`bench_versus.chunk_bytes`), by array; "store" is every file's. Probe latency: 2,000
seeded random boards through `probing.values`, in-process, store opened once, after a warm-up
(`bench_quixo.probe_latency`: median, p90 and p99, first pass and once every chunk touched is
read); on 5x5, 2,000 positions at seeded indices of the store's tiers instead
(`stored_probe_latency`).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_quixo import probe_latency, timed_probes
from bench_versus import chunk_bytes
from common import folder_bytes, given_or_solved, print_options, report


def array_bytes(store: Path) -> dict[str, int]:
    """Chunk file bytes by array (outcome, remoteness, and half where there is one)."""
    sizes: dict[str, int] = {}
    for path in store.glob("tiers/*/*/c/**/*"):
        if path.is_file():
            array = path.relative_to(store).parts[2]
            sizes[array] = sizes.get(array, 0) + path.stat().st_size
    return sizes


def stored_probe_latency(store: Path, n: int, seed: int) -> dict:
    """`bench_quixo.probe_latency` over positions at seeded indices of the store's tiers (a
    store of some tiers only, as 5x5 --down-to N, holds no random board)."""
    import numpy as np

    from retrograde.data.store import Store

    rng = np.random.default_rng(seed)
    with Store.open(store) as opened:
        tiers = opened.plan.tiers
        sizes = np.array([tier.size for tier in tiers], dtype=np.float64)
        picked = rng.choice(len(tiers), n, p=sizes / sizes.sum())
        positions = [opened.game.position_at(opened.game.tier(tiers[t].name), int(rng.integers(tiers[t].size)))
                     for t in picked.tolist()]
        return timed_probes(opened, positions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store4", type=Path, help="a solved 4x4 store (default: solve one in-process)")
    parser.add_argument("--down-to", type=int, default=None, help="also solve 5x5 --down-to N (2 workers)")
    parser.add_argument("--store5", type=Path, help="a solved 5x5 store (instead of solving --down-to)")
    parser.add_argument("--probes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    print_options(options)
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-density-") as folder:
        store = given_or_solved(options.store4, Path(folder), "q4.zarr", ["quixo", "--size", "4"], "--workers", "0")
        figures["4x4 chunk data B"] = chunk_bytes(store)
        figures["4x4 store B"] = folder_bytes(store)
        figures.update({f"4x4 {array} B": size for array, size in sorted(array_bytes(store).items())})
        figures.update({f"4x4 probe {key}": value
                        for key, value in probe_latency(store, options.probes, options.seed).items()})
        if options.down_to is not None or options.store5 is not None:
            store = given_or_solved(options.store5, Path(folder), "q5.zarr",
                                    ["quixo", "--size", "5", "--down-to", str(options.down_to)], "--workers", "2")
            figures["5x5 chunk data B"] = chunk_bytes(store)
            figures["5x5 store B"] = folder_bytes(store)
            figures.update({f"5x5 {array} B": size for array, size in sorted(array_bytes(store).items())})
            figures.update({f"5x5 probe {key}": value
                            for key, value in stored_probe_latency(store, options.probes, options.seed).items()})
    report("density", figures)


if __name__ == "__main__":
    main()
