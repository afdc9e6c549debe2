"""Check the one-ply kernel (one_ply_kernel_lib.py) against features.py's classes for every index
of a Quixo store, and time it.

    PYTHONPATH=/tmp/dense/repo/src:/tmp/dense/scripts /work/venv/bin/python one_ply_kernel.py STORE FEATURES.npz
"""
import sys
import time

import numpy as np

from one_ply_kernel_lib import HOLE, LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1, one_ply
from retrograde.data.store import Store
from retrograde.games import symmetry

store = Store.open(sys.argv[1])
features = np.load(sys.argv[2])
game, plan = store.game, store.plan
kind, code, rem = features["kind"], features["code"], features["rem"]
expected = np.full(kind.size, STORED, np.uint8)
expected[kind == 0] = HOLE
expected[(kind == 1) & (code == 3)] = TERMINAL_WIN
expected[(kind == 1) & (code == 1)] = TERMINAL_LOSS
expected[(kind == 2) & features["win1"]] = WIN_IN_1
expected[(kind == 2) & (code == 1) & (rem == 1)] = LOSS_IN_1
table = symmetry.tables(game.size)
out = np.empty(plan.chunk_size, np.uint8)
one_ply(game.size, game.move_table, game.line_masks, table, 1, 1, 0, 4, out)  # compile
elapsed, mismatches = 0.0, 0
for tier, offset in zip(plan.tiers, features["offsets"]):
    chunking = plan.chunking(tier.name)
    for chunk in range(chunking.count):
        start, stop = chunking.bounds(chunk)
        t = time.thread_time()
        one_ply(game.size, game.move_table, game.line_masks, table, *tier.key, start, stop, out)
        elapsed += time.thread_time() - t
        mismatches += int((out[:stop - start] != expected[offset + start:offset + stop]).sum())
print(f"indices {kind.size:,}: one-ply classes equal features.py's: {mismatches == 0} ({mismatches} differ); "
      f"kernel CPU {elapsed:.2f} s ({1e9 * elapsed / kind.size:.1f} ns an index)")
print("classes:", {name: int((expected == v).sum()) for v, name in enumerate(
    ("hole", "stored", "terminal win", "terminal loss", "win in 1", "loss in 1"))})
