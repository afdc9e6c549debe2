"""Retrograde analysis of a loopy group: tiers whose positions lead into each other.

Used for games with cycles (Quixo): a group's tiers are solved together once the
tiers they lead out to are solved. Positions are settled level by level, in
increasing remoteness, by propagating from each settled position to its parents
inside the group (a game's `parents` kernel):

* a loss at level r makes every parent a win at r + 1 (unless it already wins faster);
* a win at level r takes one off each undecided parent's count of unsettled children;
  a parent whose count reaches zero, with no drawing child, is a loss at
  1 + the slowest of its winning children.

What is never settled is a draw (endless play). Terminal positions (level 0) have
nothing to propagate when the game gives terminal children by value: their parents
took their values in the first pass. These are the kernels; the tasks
`settle_chunk` (first pass, chunk by chunk, in parallel) and `propagate_group` (the
levels, over the whole group) in `pipeline.tasks` run them. No I/O, no dask.
"""

import numpy as np

from retrograde.games.base import IN_GROUP, LOSING_CHILD, WINNING_CHILD
from retrograde.jit import njit
from retrograde.outcome import DRAW, ILLEGAL, LOSS, UNDECIDED, WIN

#: Low bits of `pending`: children inside the group not yet settled as wins.
COUNT = 0x7F
#: High bit of `pending`: a drawing child outside the group (the position can never be a loss).
HAS_DRAW = 0x80


@njit
def settle_from_outside(primitive, children, group_size, out_outcome, out_remoteness, base,
                        outcome, remoteness, pending):
    """First pass over rows base..: terminal values, children outside the group, and counts.

    Children with references below `group_size` (or IN_GROUP) are inside the group
    and only counted; terminal children given by value count as a win or a loss at 0;
    the others index `out_*` after subtracting `group_size`.
    For an undecided position, `remoteness` holds 1 + its slowest winning child so far.
    Returns the number of faults: non-terminal rows without moves (a game bug) and
    children outside the group without a value (not solved; a row is read up to its
    first losing child at remoteness 0, a win in one).
    """
    faults = 0
    for row in range(primitive.shape[0]):
        i = base + row
        p = primitive[row]
        if p == ILLEGAL:
            continue
        if p != 0:
            outcome[i] = p
            remoteness[i] = 0
            continue
        fastest_loss = -1
        slowest_win = -1
        draw = False
        inside = 0
        for j in range(children.shape[1]):
            c = children[row, j]
            if c == -1:
                break
            if c == LOSING_CHILD:
                o, r = LOSS, 0
            elif c == WINNING_CHILD:
                o, r = WIN, 0
            elif c == IN_GROUP or c < group_size:
                inside += 1
                continue
            else:
                o, r = out_outcome[c - group_size], np.int64(out_remoteness[c - group_size])
            if o == LOSS:
                if fastest_loss < 0 or r < fastest_loss:
                    fastest_loss = r
                if r == 0:
                    break  # a win in one: nothing faster, no other child matters
            elif o == WIN:
                slowest_win = max(slowest_win, r)
            elif o == DRAW:
                draw = True
            else:
                faults += 1  # an unsolved child outside the group
        if fastest_loss >= 0:
            outcome[i] = WIN  # tentative: a loss inside the group may give a faster win
            remoteness[i] = fastest_loss + 1
        elif inside == 0:
            if draw:
                outcome[i] = DRAW
            elif slowest_win >= 0:
                outcome[i] = LOSS
                remoteness[i] = slowest_win + 1
            else:
                faults += 1
        else:
            pending[i] = inside | (HAS_DRAW if draw else 0)
            remoteness[i] = slowest_win + 1
    return faults


@njit
def propagate(level, settled_outcome, parents, outcome, remoteness, pending):
    """Propagate positions settled at `level` to their parents; returns the highest level set."""
    highest = level
    for row in range(parents.shape[0]):
        settled = settled_outcome[row]
        for j in range(parents.shape[1]):
            q = parents[row, j]
            if q < 0:
                break
            if settled == LOSS:
                if outcome[q] == UNDECIDED or (outcome[q] == WIN and remoteness[q] > level + 1):
                    outcome[q] = WIN
                    remoteness[q] = level + 1
                    highest = max(highest, level + 1)
            elif outcome[q] == UNDECIDED:
                pending[q] -= 1
                if remoteness[q] < level + 1:
                    remoteness[q] = level + 1
                if pending[q] == 0:  # no drawing child and every child a win
                    outcome[q] = LOSS  # remoteness already holds 1 + its slowest winning child
                    highest = max(highest, np.int64(remoteness[q]))
    return highest


@njit
def settled_at(outcome, remoteness, level, start, stop):
    """Indices (relative to start) of wins and losses at exactly `level` in start..stop-1."""
    found = np.empty(stop - start, dtype=np.int64)
    n = 0
    for i in range(start, stop):
        if remoteness[i] == level and (outcome[i] == WIN or outcome[i] == LOSS):
            found[n] = i - start
            n += 1
    return found[:n]


@njit
def finish_draws(outcome, remoteness, pending):
    """Whatever is still undecided (and is a position) is a draw."""
    for i in range(outcome.shape[0]):
        if outcome[i] == UNDECIDED and pending[i] != 0:
            outcome[i] = DRAW
            remoteness[i] = 0
