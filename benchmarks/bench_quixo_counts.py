"""A deep 5x5 Quixo store's top tiers against an independent count (issue 34, point 4).

    python benchmarks/bench_quixo_counts.py --store /data/q5/store.zarr

The store's win/loss/draw counts of each tier (`retrograde status --json`: every position of the
tier counted) are compared with those of tests/quixo_reference.py, which imports nothing from
retrograde and solves, by its own rules: every full board (33,554,432 boards in 26 tiers; a loopy
set with draws, numpy over bit masks), and every board on which a side has at least --big cubes
(pure Python). The middle tiers (both sides between 5 and 20 cubes) are out of its reach; `verify`
checks every position of those. Prints the tiers compared, the positions they hold, the seconds
each part took, and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from common import print_options, report  # puts tests/ on the path

import quixo_reference as qref  # noqa: E402 - tests/quixo_reference.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a 5x5 Quixo store (its top tiers solved)")
    parser.add_argument("--big", type=int, default=20, help="also count every tier where a side has this many cubes")
    options = parser.parse_args()
    print_options(options)
    status = json.loads(subprocess.run([sys.executable, "-m", "retrograde", "status", "--store", str(options.store),
                                        "--json"], capture_output=True, text=True, check=True).stdout)
    stored = {tier["name"]: tier for tier in status["tiers"] if tier["status"] == "solved"}
    size = status["params"]["size"]
    started = time.perf_counter()
    full = qref.full_board_counts(size)
    full_seconds = time.perf_counter() - started
    started = time.perf_counter()
    sided = qref.tier_counts(size, options.big)
    sided_seconds = time.perf_counter() - started
    expected = {**sided, **full}
    compared = sorted(set(stored) & set(expected))
    differing = [tier for tier in compared
                 if any(stored[tier][kind] != expected[tier][kind] for kind in ("win", "loss", "draw"))]
    for tier in differing:
        print(f"  {tier}: store {[stored[tier][kind] for kind in ('win', 'loss', 'draw')]}, reference "
              f"{[expected[tier][kind] for kind in ('win', 'loss', 'draw')]}")
    report(f"{size}x{size} Quixo store against the reference's count", {
        "tiers in the store": len(stored),
        "tiers compared": len(compared),
        "positions compared": sum(stored[tier]["size"] for tier in compared),
        "draws compared": sum(stored[tier]["draw"] for tier in compared),
        "tiers differing": len(differing),
        "full boards, reference s": round(full_seconds, 1),
        f"a side with {options.big}+ cubes, reference s": round(sided_seconds, 1),
    })
    if differing:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
