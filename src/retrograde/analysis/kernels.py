"""The analysis kernel: each position's legal moves and the moves that keep its stored value,
from its children's stored values. No I/O, no dask: arrays in, arrays out."""

from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS, UNDECIDED, WIN


@njit
def moves_kept(outcome, children, child_outcome, moves, kept, first):
    """For rows 0.. of an expansion (`children`: references located to slots of
    `child_outcome`, each row ending at its first -1), fill `moves[first + i]` (legal moves)
    and `kept[first + i]` (moves whose child leaves the mover the value `outcome[first + i]`:
    a losing child for a win, a drawing one for a draw, any for a loss). A row without a
    stored value (a hole) gets 0 and 0."""
    for i in range(children.shape[0]):
        o = outcome[first + i]
        n = 0
        k = 0
        if o != UNDECIDED:
            for j in range(children.shape[1]):
                c = children[i, j]
                if c < 0:
                    break
                n += 1
                child = child_outcome[c]
                if o == LOSS or (o == WIN and child == LOSS) or (o == DRAW and child == DRAW):
                    k += 1
        moves[first + i] = n
        kept[first + i] = k
