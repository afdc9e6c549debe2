"""Entropy and counts of the representatives' values (features.py output).

    /work/venv/bin/python stats.py FEATURES.npz
"""
import sys
import numpy as np

f = np.load(sys.argv[1])
code, rem, kind, win1, nchild = f["code"], f["rem"], f["kind"], f["win1"], f["nchild"]
reps = kind > 0
n = reps.sum()
print(f"indices {code.size:,}  representatives {n:,}  terminal {(kind == 1).sum():,}  non-terminal {(kind == 2).sum():,}")
for c, name in ((1, "loss"), (2, "draw"), (3, "win")):
    m = reps & (code == c)
    print(f"  {name}: {m.sum():,} ({m.sum() / n:.3f}); of them terminal {(m & (kind == 1)).sum():,}")
print(f"  win in 1 (non-terminal): {(win1 & (kind == 2)).sum():,} ({(win1 & (kind == 2)).sum() / n:.3f})")


def H(values):
    _, counts = np.unique(values, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def report(label, mask_keep, joint):
    """Zeroth-order entropy (bits per representative) of `joint` over representatives in mask_keep."""
    bits = H(joint[mask_keep]) * mask_keep.sum() / n
    print(f"{label:60s} {bits:6.3f} bits/rep  -> {bits * n / 8 / 1e6:6.3f} MB at order-0 entropy")


key_or = code.astype(np.int32) + 4 * rem.astype(np.int32)
report("outcome alone", reps, code)
report("remoteness alone", reps, rem)
report("outcome+remoteness jointly", reps, key_or)
nt = kind == 2
report("jointly, terminals recomputed (dropped)", nt, key_or)
report("jointly, terminals and wins in 1 dropped", nt & ~win1, key_or)
report("outcome only, terminals and wins in 1 dropped", nt & ~win1, code)
# loss remoteness recomputed from children: stored joint = code for losses
no_loss_r = np.where(code == 1, 1, key_or)
report("jointly, loss remoteness dropped (children)", nt & ~win1, no_loss_r)
no_win_r = np.where(code == 3, 3, key_or)
report("jointly, win remoteness dropped (children)", nt & ~win1, no_win_r)
# parity: wins odd, losses even?
m = nt & (code == 3)
print("non-terminal wins with even remoteness:", (m & (rem % 2 == 0)).sum())
m = nt & (code == 1)
print("non-terminal losses with odd remoteness:", (m & (rem % 2 == 1)).sum())
print("remoteness histogram (wins):", np.bincount(rem[reps & (code == 3)]).tolist())
print("remoteness histogram (losses):", np.bincount(rem[reps & (code == 1)]).tolist())
print("children per non-terminal: mean %.1f max %d" % (nchild[nt].mean(), nchild[nt].max()))
print("children of losses: mean %.1f" % nchild[nt & (code == 1)].mean())
