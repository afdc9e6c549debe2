"""Numpy (no numba) batch version of the one-ply classes, for probes and move analyses: a
position and its children are classified in a few array operations. Checked against the
numba kernel's classes on seeded stored positions, and timed for `analyse`-like use (a position
and all its children) against the plain-Python rules (`game.moves` + `game.primitive`).

    PYTHONPATH=/tmp/dense/repo/src:/tmp/dense/scripts /work/venv/bin/python one_ply_numpy.py STORE FEATURES.npz [N]
"""
import statistics
import sys
import time

import numpy as np

from retrograde.data.store import Store
from retrograde.games.quixo.kernels import DEST, SEG, SHIFT, SOURCE

STORED, TERMINAL_WIN, TERMINAL_LOSS, WIN_IN_1, LOSS_IN_1 = 1, 2, 3, 4, 5


def line_table(n):
    lines = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    lines += [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    lines += [sum(1 << (i * n + i) for i in range(n)), sum(1 << (i * n + n - 1 - i) for i in range(n))]
    return np.array(lines, dtype=np.int64)


def has_line(masks, lines):
    return ((masks[..., None] & lines) == lines).any(axis=-1)


def classes(n, moves, lines, mover, opponent):
    """One-ply class of each (mover, opponent) pair (int64 arrays; holes are not asked about)."""
    seg, src, shift, dest = moves[:, SEG], moves[:, SOURCE], moves[:, SHIFT], moves[:, DEST]
    m, o = mover[:, None], opponent[:, None]
    keep = ~(seg | src)

    def shifted(x):
        return np.where(shift > 0, (x & seg) << np.maximum(shift, 0), (x & seg) >> np.maximum(-shift, 0))

    new_mover = (m & keep) | shifted(m) | dest
    new_opponent = (o & keep) | shifted(o)
    legal = (o & src) == 0
    loses = has_line(new_opponent, lines)
    wins = legal & ~loses & has_line(new_mover, lines)
    out = np.full(mover.size, STORED, np.uint8)
    out[(legal & ~loses).sum(axis=1) == 0] = LOSS_IN_1
    out[wins.any(axis=1)] = WIN_IN_1
    out[has_line(opponent, lines)] = TERMINAL_LOSS
    out[has_line(mover, lines)] = TERMINAL_WIN
    return out


if __name__ == "__main__":
    from retrograde.games import ranking

    store = Store.open(sys.argv[1])
    features = np.load(sys.argv[2])
    n_positions = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    game, plan = store.game, store.plan
    lines, moves = line_table(game.size), game.move_table
    rng = np.random.default_rng(1)
    kind, code, rem, win1, offsets = features["kind"], features["code"], features["rem"], features["win1"], features["offsets"]
    chosen = rng.choice(np.flatnonzero(kind > 0), n_positions, replace=False)
    masks, expected = [], []
    for g in chosen.tolist():
        t = int(np.searchsorted(offsets, g, side="right")) - 1
        a, b = plan.tiers[t].key
        masks.append(ranking.unrank_pair(g - int(offsets[t]), a, b, game.cells))
        expected.append(TERMINAL_WIN if kind[g] == 1 and code[g] == 3 else TERMINAL_LOSS if kind[g] == 1 else
                        WIN_IN_1 if win1[g] else LOSS_IN_1 if code[g] == 1 and rem[g] == 1 else STORED)
    mover, opponent = (np.array(x, dtype=np.int64) for x in zip(*masks))
    got = classes(game.size, moves, lines, mover, opponent)
    print(f"numpy classes equal the features' on {n_positions} stored positions: {np.array_equal(got, expected)}")
    # analyse-like: one position and all its children, classified together
    positions = [game.position_at(plan.tiers[int(np.searchsorted(offsets, g, side='right')) - 1],
                                  g - int(offsets[int(np.searchsorted(offsets, g, side='right')) - 1]))
                 for g in chosen.tolist()]
    numpy_times, python_times = [], []
    for position in positions:
        start = time.thread_time()
        children = [child for _, child in game.moves(position)]
        both = [game._masks(p) for p in [position, *children]]
        classes(game.size, moves, lines, np.array([m for m, _ in both], dtype=np.int64),
                np.array([o for _, o in both], dtype=np.int64))
        numpy_times.append(time.thread_time() - start)
        start = time.thread_time()
        for p in [position, *children]:
            if not game.primitive(p):
                [game.primitive(c) for _, c in game.moves(p)]
        python_times.append(time.thread_time() - start)
    for name, times in (("numpy batch", numpy_times), ("python rules", python_times)):
        print(f"position + children one-ply classes, {name}: median {1e3 * statistics.median(times):.3f} ms, "
              f"p99 {1e3 * float(np.percentile(times, 99)):.3f} ms (thread CPU)")
