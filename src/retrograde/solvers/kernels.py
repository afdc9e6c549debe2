"""The generic value kernel: a position's outcome and remoteness from its children's.

One rule serves solving and verifying (SPEC §5): a position with a losing child
is a win, 1 + the fastest such child; else with a drawing child a draw; else a
loss, 1 + the slowest winning child. Terminal positions take the game's verdict
at remoteness 0. No I/O, no dask: arrays in, arrays out.
"""

import numpy as np

from retrograde.jit import njit
from retrograde.outcome import DRAW, ILLEGAL, LOSS, UNDECIDED, WIN

#: Returned in `faults` for a non-terminal position without moves (a game bug).
NO_MOVES = 1
#: Returned in `faults` for a child that has no value (an unsolved or illegal child).
UNDECIDED_CHILD = 2
#: Returned in `faults` when a remoteness does not fit the output array's dtype.
OVERFLOW = 3


@njit
def combine(primitive, children, child_outcome, child_remoteness, outcome, remoteness, faults, limit):
    """Fill outcome/remoteness of each row from its primitive code and child references.

    `faults[i]` is set to NO_MOVES, UNDECIDED_CHILD or OVERFLOW (remoteness above
    `limit`) where the inputs break the rules; those rows keep outcome 0.
    """
    for i in range(primitive.shape[0]):
        p = primitive[i]
        outcome[i] = UNDECIDED
        remoteness[i] = 0
        faults[i] = 0
        if p == ILLEGAL:
            continue
        if p != 0:
            outcome[i] = p
            continue
        fastest_loss = -1
        slowest_win = -1
        draw = False
        for j in range(children.shape[1]):
            c = children[i, j]
            if c < 0:
                break
            o = child_outcome[c]
            r = child_remoteness[c]
            if o == LOSS:
                if fastest_loss < 0 or r < fastest_loss:
                    fastest_loss = r
            elif o == WIN:
                if r > slowest_win:
                    slowest_win = r
            elif o == DRAW:
                draw = True
            else:
                faults[i] = UNDECIDED_CHILD
        if faults[i] != 0:
            continue
        if fastest_loss >= 0:
            if fastest_loss >= limit:
                faults[i] = OVERFLOW
            else:
                outcome[i] = WIN
                remoteness[i] = fastest_loss + 1
        elif draw:
            outcome[i] = DRAW
        elif slowest_win >= 0:
            if slowest_win >= limit:
                faults[i] = OVERFLOW
            else:
                outcome[i] = LOSS
                remoteness[i] = slowest_win + 1
        else:
            faults[i] = NO_MOVES


def solve_rows(primitive, children, child_outcome, child_remoteness, remoteness_dtype):
    """Allocate outputs and run `combine`; returns (outcome, remoteness, faults)."""
    n = primitive.shape[0]
    outcome = np.zeros(n, dtype=np.uint8)
    remoteness = np.zeros(n, dtype=remoteness_dtype)
    faults = np.zeros(n, dtype=np.uint8)
    limit = np.iinfo(remoteness.dtype).max
    combine(primitive, children, child_outcome, child_remoteness, outcome, remoteness, faults, limit)
    return outcome, remoteness, faults
