"""How evenly a split propagation's partitions share a loopy group's positions: cut at equal
shares of the indices (as before f5ef8b5) and of the positions the first passes found (now),
read from the first-pass files of a store whose solve is under way (they are deleted once the
group is solved).

    python benchmarks/bench_partition_shares.py --store /tmp/q5d21/store.zarr --group m10o11 m11o10 --parts 4

Prints each partition's positions under both cuts, and the largest over the mean: the work of
a level, and the state a worker holds, follow the positions.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from common import print_options, report

from retrograde.data.store import Store
from retrograde.pipeline.propagation import group_bounds
from retrograde.pipeline.scratch import Scratch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", required=True)
    parser.add_argument("--group", nargs="+", required=True, help="the group's tiers, in the plan's order")
    parser.add_argument("--parts", type=int, nargs="+", default=[2, 4])
    options = parser.parse_args()
    print_options(options)
    with Store.open(options.store, mode="r") as store:
        group = tuple(options.group)
        began = time.perf_counter()
        positions = np.concatenate([Scratch(store).first_pass_positions(name) for name in group])
        figures: dict = {"chunks": positions.size, "positions": int(positions.sum()),
                         "counting_s": round(time.perf_counter() - began, 1)}
        starts = np.concatenate([[0], np.cumsum([store.plan.chunking(name).length(chunk) for name in group
                                                 for chunk in range(store.plan.chunking(name).count)])])
        for parts in options.parts:
            for cut, weights in (("indices", None), ("positions", positions)):
                bounds = group_bounds(store, group, parts, weights)
                chunks = np.searchsorted(starts, bounds)
                shares = [int(positions[a:b].sum()) for a, b in zip(chunks, chunks[1:])]
                figures[f"{parts} parts, cut by {cut}: positions a partition"] = shares
                figures[f"{parts} parts, cut by {cut}: largest / mean"] = round(max(shares) / np.mean(shares), 3)
    report(f"partition shares of {' '.join(group)}", figures)


if __name__ == "__main__":
    main()
