"""Dump a solved Quixo store's values plus per-position features (one ply of children) to an npz.

    PYTHONPATH=/tmp/dense/repo/src /work/venv/bin/python features.py STORE OUT.npz

Per index of every tier (global order = plan order): code (0 hole,1 loss,2 draw,3 win), remoteness,
kind (0 hole, 1 terminal, 2 non-terminal), derived remoteness from the children's stored values
(win: 1 + min over losing children; loss: 1 + max over winning children; -1 draw), the number of
children and win1 (a terminal losing child exists). Asserts derived == stored at every position.
"""
import sys

import numba
import numpy as np

from retrograde.data.store import Store

store = Store.open(sys.argv[1])
plan, game = store.plan, store.game
offsets, total = {}, 0
for tier in plan.tiers:
    offsets[tier.name] = total
    total += tier.size
code = np.zeros(total, np.uint8)
rem = np.zeros(total, np.uint16)
for tier in plan.tiers:
    o, r = store.read_tier(tier.name)
    code[offsets[tier.name]:offsets[tier.name] + tier.size] = o
    rem[offsets[tier.name]:offsets[tier.name] + tier.size] = r
print("loaded", total, "max remoteness", rem.max())


@numba.njit
def features(children, primitive, code, rem, start, kind, derived, nchild, win1, nloss_children, minwin_child):
    for row in range(children.shape[0]):
        i = start + row
        if primitive[row] == 99 or code[i] == 0:
            kind[i] = 0
            continue
        if primitive[row] != 0:
            kind[i] = 1
            derived[i] = 0
            continue
        kind[i] = 2
        best_loss = 1 << 30  # min r over losing children
        best_win = -1  # max r over winning children
        n = 0
        nl = 0
        draw = False
        for j in range(children.shape[1]):
            c = children[row, j]
            if c < 0:
                break
            n += 1
            cc = code[c]
            if cc == 1:
                nl += 1
                if rem[c] < best_loss:
                    best_loss = rem[c]
            elif cc == 3:
                if rem[c] > best_win:
                    best_win = rem[c]
            elif cc == 2:
                draw = True
        nchild[i] = n
        nloss_children[i] = nl
        if nl > 0:
            derived[i] = 1 + best_loss
            win1[i] = best_loss == 0
        elif draw:
            derived[i] = -1
        else:
            derived[i] = 1 + best_win
        pass


kind = np.zeros(total, np.uint8)
derived = np.full(total, -2, np.int16)
nchild = np.zeros(total, np.uint8)
win1 = np.zeros(total, np.bool_)
nloss = np.zeros(total, np.uint8)  # children that lose (kept in memory only)
maxwin = np.full(1, -1, np.int32)
from retrograde.outcome import ILLEGAL  # noqa: E402

for tier in plan.tiers:
    chunking = plan.chunking(tier.name)
    child_offsets = np.array([offsets.get(c, -1) for c in tier.children], dtype=np.int64)
    for chunk in range(chunking.count):
        start, stop = chunking.bounds(chunk)
        ex = game.expand(tier, start, stop, child_offsets)
        prim = ex.primitive.astype(np.int32).copy()
        prim[ex.primitive == ILLEGAL] = 99
        features(ex.children, prim, code, rem, offsets[tier.name] + start, kind, derived, nchild, win1, nloss, maxwin)
    print(tier.name, end=" ", flush=True)
print()
reps = kind > 0
ok = (derived[reps] == np.where(code[reps] == 2, -1, rem[reps].astype(np.int32)))
print("derived == stored:", ok.all(), (~ok).sum())
np.savez(sys.argv[2], code=code, rem=rem, kind=kind, derived=derived, nchild=nchild, win1=win1, nloss=nloss[:1],
         maxwin=maxwin, offsets=np.array([offsets[t.name] for t in plan.tiers]),
         sizes=np.array([t.size for t in plan.tiers]), chunk_sizes=np.array([plan.chunking(t.name).chunk_size
                                                                              for t in plan.tiers]))
