"""Store format 4's "one-ply" encoding of a chunk's values (docs/STORE.md), numpy only.

A game that classifies its positions in one ply (`Game.one_ply`) needs no stored value where
one ply decides it: a chunk keeps the outcome code and a half remoteness `s` of its *stored*
positions only (draws, and wins and losses of remoteness >= 2):
  * a stored win holds s = (r - 3) / 2, a stored loss s = (r - 2) / 2, a draw 0 — when every
    stored win's r is odd and every stored loss's even (`half`); otherwise s = r (a chunk of a
    game where the parity fails is still exact);
  * every index not stored (a hole, a terminal position, a win or loss in 1) repeats the code
    and s of the last stored index before it in the chunk (0 and 0 before the first), so the
    arrays hold long runs that compress to little.
Decoding takes the one-ply class of each index (`games.base`: HOLE, STORED, TERMINAL_WIN, ...).
"""

from __future__ import annotations

import numpy as np

from retrograde import outcome as oc
from retrograde.data import packing
from retrograde.games.base import HOLE, LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1

#: The outcome and remoteness of each one-ply class that stores nothing.
_DECIDED = {HOLE: (oc.UNDECIDED, 0), TERMINAL_WIN: (oc.WIN, 0), TERMINAL_LOSS: (oc.LOSS, 0),
            WIN_IN_1: (oc.WIN, 1), LOSS_IN_1: (oc.LOSS, 1)}


def encode(outcome: np.ndarray, remoteness: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(codes, s, half) of one chunk's decoded values: uint8 outcome codes, s in remoteness's
    dtype, and whether s is the half remoteness (see the module)."""
    r = remoteness.astype(np.int64)
    decided = (outcome == oc.WIN) | (outcome == oc.LOSS)
    stored = (outcome == oc.DRAW) | (decided & (r >= 2))
    win, loss = stored & (outcome == oc.WIN), stored & (outcome == oc.LOSS)
    half = not (np.any(win & (r % 2 == 0)) or np.any(loss & (r % 2 == 1)))
    if half:
        s = np.where(win, (r - 3) >> 1, np.where(loss, (r - 2) >> 1, 0))
    else:
        s = np.where(stored & decided, r, 0)
    last = np.where(stored, np.arange(outcome.size), -1)
    np.maximum.accumulate(last, out=last)
    before = last < 0  # before the chunk's first stored index
    last = np.maximum(last, 0)
    codes = np.where(before, 0, outcome[last]).astype(np.uint8)
    return codes, np.where(before, 0, s[last]).astype(remoteness.dtype), bool(half)


def decode(classes: np.ndarray, codes: np.ndarray, s: np.ndarray | None, half: bool
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """The outcome codes and remoteness (in s's dtype; None without `s`) of a chunk stored as
    `codes` and `s`, given each index's one-ply class."""
    stored = classes == STORED
    outcome = np.where(stored, codes, np.uint8(0)).astype(np.uint8)
    for kind, (code, _) in _DECIDED.items():
        outcome[classes == kind] = code
    if s is None:
        return outcome, None
    wide = s.astype(np.int64)
    if half:
        wide = np.where(outcome == oc.WIN, 2 * wide + 3, 2 * wide + 2)
    remoteness = np.where(stored & (outcome != oc.DRAW), wide, 0)
    for kind, (_, r) in _DECIDED.items():
        if r:
            remoteness[classes == kind] = r
    return outcome, remoteness.astype(s.dtype)


def differs(stored: tuple[np.ndarray, ...], outcome: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """Where a chunk's arrays as stored (packed codes, s, half) are not the encoding of its values
    `outcome` and `remoteness` (every index, if the half flag is not theirs)."""
    codes, s, half = encode(outcome, remoteness)
    wrong = (packing.unpack(stored[0], outcome.size) != codes) | (stored[1] != s)
    return wrong | (bool(stored[2][0]) != half)
