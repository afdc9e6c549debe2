"""What a first pass holds of the solved tiers it reads (issue 12, point 2): the values of the
tiers a loopy tier leads out to, positions only, read chunk by chunk and held once
(`tasks.ChildValues`). Checks the plan's model of that memory against a measurement.

    python benchmarks/bench_child_values.py                      # solves 5x5 --down-to 24 first
    python benchmarks/bench_child_values.py --store q5-22.zarr   # a solved store

For the largest sets the store's first passes read (the solved tier each of the deepest loopy
tiers leads out to), a fresh process opens the store, reads the set with `solved_values`, and
reports: seconds, the set's bytes (`nbytes`), the model's bytes (`sizing.values_bytes`
with the game's position share, what `retrograde plan` counts), and how much the process's peak
RSS grew while reading (the set and the reading's temporaries: at most one chunk's arrays).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from common import given_or_solved, print_options, report

_READ = r"""
import json, resource, sys, time
import numpy as np
from retrograde.data.store import Store
from retrograde.pipeline.sizing import values_bytes
from retrograde.pipeline.tasks import ChildValues, solved_values
with Store.open(sys.argv[1]) as store:
    names = tuple(sys.argv[2:])
    ChildValues(store, (min(store.plan.tiers, key=lambda tier: tier.size).name,))  # numba, codecs: warm
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    start = time.perf_counter()
    values = solved_values(store, names)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    size = sum(store.plan.tier(name).size for name in names)
    model = values_bytes(size, store.game.position_share, 1 + np.dtype(store.plan.remoteness_dtype).itemsize)
    print(json.dumps({"indices": size, "positions": int(values.outcome.size - 1), "seconds": seconds,
                      "nbytes": values.nbytes, "model": model, "rss_growth": after - before}))
"""


def deepest_outside_sets(store: Path, count: int) -> list[tuple[str, ...]]:
    """The `count` largest sets of solved tiers the store's loopy first passes read."""
    from retrograde.data.store import Store

    with Store.open(store) as opened:
        plan = opened.plan
        sets = {tuple(child for child in plan.tier(name).children if child not in step.tiers)
                for step in plan.steps if step.loopy for name in step.tiers}
        sized = sorted((sum(plan.tier(name).size for name in names), names) for names in sets if names)
    return [names for _, names in sized[-count:][::-1]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a solved store (default: solve 5x5 --down-to 24 first)")
    parser.add_argument("--sets", type=int, default=2, help="how many of the largest sets to read")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory() as tmp:
        store = given_or_solved(options.store, Path(tmp), "q5-24.zarr", ["quixo", "--size", "5", "--down-to", "24"],
                                "--workers", "2")
        figures = {}
        for names in deepest_outside_sets(store, options.sets):
            out = subprocess.run([sys.executable, "-c", _READ, str(store.resolve()), *names],
                                 capture_output=True, text=True, check=True)
            found = json.loads(out.stdout)
            label = "+".join(names)
            figures[f"{label}: indices"] = found["indices"]
            figures[f"{label}: positions"] = found["positions"]
            figures[f"{label}: read s"] = round(found["seconds"], 2)
            figures[f"{label}: held MB"] = round(found["nbytes"] / 1e6, 1)
            figures[f"{label}: plan's model MB"] = round(found["model"] / 1e6, 1)
            figures[f"{label}: peak RSS growth MB"] = round(found["rss_growth"] / 1e6, 1)
    report("child values", figures)


if __name__ == "__main__":
    main()
