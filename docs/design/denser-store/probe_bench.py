"""Single-probe latency of today's read path against the two proposed ones, in-process, warm.

    PYTHONPATH=/tmp/dense/repo/src /work/venv/bin/python probe_bench.py STORE [N] [SEED] [FEATURES.npz]
    (CACHE_MB=2048 in the environment: a larger decoded-chunk cache)

Positions: N seeded random boards of x, o and . with x to move (as benchmarks/bench_quixo.py).
  today   : values(store, [p])
  A (one ply): primitive(p); else moves(p) and primitive of each child (a win in 1 / loss in 1
            needs no read); else values(store, [p]) (the stored value, remoteness from half).
  B (loss from children): A, and when the stored value is a loss, values(store, children) too
            (remoteness = 1 + max over the children).
Each is timed over all N positions twice; the second pass (every chunk decoded) is reported:
median and p99 in ms. The work matches the proposal; values come from today's store.
"""
import os
import statistics
import sys
import time

import numpy as np

from retrograde import outcome as oc
from retrograde.data.probing import values
from retrograde.data.store import Store

if os.environ.get("CACHE_MB"):  # decoded-chunk cache of the store (default 256 MiB)
    Store.cache_bytes = int(os.environ["CACHE_MB"]) << 20
store = Store.open(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
game = store.game
if len(sys.argv) > 4:  # FEATURES.npz: stored non-terminal representatives, uniformly (seeded)
    features = np.load(sys.argv[4])
    offsets = features["offsets"]
    chosen = np.sort(rng.choice(np.flatnonzero(features["kind"] == 2), n, replace=False))
    positions = []
    for g in chosen.tolist():
        t = int(np.searchsorted(offsets, g, side="right")) - 1
        tier = store.plan.tiers[t]
        positions.append(game.position_at(tier, g - int(offsets[t])))
    rng.shuffle(positions)
else:
    positions = [("".join(rng.choice(list("xo."), game.cells)), "x") for _ in range(n)]
print(f"{len(positions)} positions in the store's tiers")


def today(p):
    return values(store, [p])[0]


def one_ply(p):
    """Value decided by one ply, or None."""
    terminal = game.primitive(p)
    if terminal:
        return (terminal, 0)
    children = [child for _, child in game.moves(p)]
    prims = [game.primitive(child) for child in children]
    if oc.LOSS in prims:
        return (oc.WIN, 1)
    if all(q == oc.WIN for q in prims):
        return (oc.LOSS, 1)
    return children


def route_a(p):
    got = one_ply(p)
    if isinstance(got, tuple):
        return got
    return values(store, [p])[0]


def route_b(p):
    got = one_ply(p)
    if isinstance(got, tuple):
        return got
    value = values(store, [p])[0]
    if value.outcome == oc.LOSS:
        child_values = values(store, got)
        return (oc.LOSS, 1 + max(v.remoteness for v in child_values if v.outcome == oc.WIN))
    return value


stats = {}
for name, probe in (("today", today), ("A one ply", route_a), ("B loss from children", route_b)):
    for label in ("cold", "warm"):
        times, cpu = [], []
        for p in positions:
            start, start_cpu = time.perf_counter(), time.thread_time()
            probe(p)
            times.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
    print(f"{name:22s} wall median {1e3 * statistics.median(times):.3f} p99 {1e3 * float(np.percentile(times, 99)):.3f}"
          f" | thread CPU median {1e3 * statistics.median(cpu):.3f} p99 {1e3 * float(np.percentile(cpu, 99)):.3f}"
          f" max {1e3 * max(cpu):.3f} ms")
print("positions one ply decides (no store read):", sum(isinstance(one_ply(p), tuple) for p in positions))
