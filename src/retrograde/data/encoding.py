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
from retrograde.games.base import LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1

#: The outcome and remoteness each one-ply class gives (by class number; STORED's are the arrays').
_OUTCOME = np.zeros(6, dtype=np.uint8)
_REMOTENESS = np.zeros(6, dtype=np.uint8)
_OUTCOME[[TERMINAL_WIN, TERMINAL_LOSS, WIN_IN_1, LOSS_IN_1]] = oc.WIN, oc.LOSS, oc.WIN, oc.LOSS
_REMOTENESS[[WIN_IN_1, LOSS_IN_1]] = 1


def encode(outcome: np.ndarray, remoteness: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(codes, s, half) of one chunk's decoded values: uint8 outcome codes, s in remoteness's
    dtype, and whether s is the half remoteness (see the module). Array work on the stored
    indices only (a chunk task writes a million of them)."""
    decided = (outcome & 1).astype(bool)  # WIN (3) and LOSS (1) are the odd codes
    where = np.flatnonzero((outcome == oc.DRAW) | (decided & (remoteness >= 2)))
    codes_at = outcome[where]
    r_at = remoteness[where].astype(np.int64)
    won = codes_at >> 1  # 1 for a win, 0 for a loss or a draw
    decided_at = (codes_at & 1).astype(bool)
    half = bool(np.all(~decided_at | ((r_at & 1) == won)))  # a win's r odd, a loss's even
    s_at = np.where(decided_at, (r_at - 2 - won) >> 1 if half else r_at, 0).astype(remoteness.dtype)
    codes = np.zeros(outcome.size, dtype=np.uint8)
    s = np.zeros(outcome.size, dtype=remoteness.dtype)
    if where.size:  # each stored index's code and s, repeated up to the next stored index
        lengths = np.diff(where, append=outcome.size)
        codes[where[0]:] = np.repeat(codes_at, lengths)
        s[where[0]:] = np.repeat(s_at, lengths)
    return codes, s, half


def decode(classes: np.ndarray, codes: np.ndarray, s: np.ndarray | None, half: bool
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """The outcome codes and remoteness (in s's dtype; None without `s`) of a chunk stored as
    `codes` and `s`, given each index's one-ply class."""
    stored = classes == STORED
    outcome = np.where(stored, codes, _OUTCOME[classes])
    if s is None:
        return outcome, None
    where = np.flatnonzero(stored)
    codes_at = codes[where]
    r_at = s[where].astype(np.int64)
    if half:
        r_at = 2 * r_at + 2 + (codes_at >> 1)
    remoteness = _REMOTENESS[classes].astype(s.dtype)
    remoteness[where] = np.where(codes_at & 1, r_at, 0)  # a draw's remoteness is 0
    return outcome, remoteness


def differs(stored: tuple[np.ndarray, ...], outcome: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """Where a chunk's arrays as stored (packed codes, s, half) are not the encoding of its values
    `outcome` and `remoteness` (every index, if the half flag is not theirs)."""
    codes, s, half = encode(outcome, remoteness)
    wrong = (packing.unpack(stored[0], outcome.size) != codes) | (stored[1] != s)
    return wrong | (bool(stored[2][0]) != half)
