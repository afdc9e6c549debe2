"""Nim lab strategy: the nim-sum player, honouring the bound k on a take (with k, each row
counts modulo k + 1). It defines its own Nimply, as most students did."""

from collections import namedtuple
from functools import reduce
from operator import xor

Nimply = namedtuple("Nimply", "row, num_objects")


def nim_sum(rows, k):
    return reduce(xor, (row if k is None else row % (k + 1) for row in rows), 0)


def optimal(state):
    """The first take (rows in order, fewest objects first) that leaves a nim-sum of 0;
    where there is none, one object from the first row that has any."""
    takes = [(row, n) for row, count in enumerate(state.rows)
             for n in range(1, (count if state.k is None else min(count, state.k)) + 1)]
    for row, n in takes:
        after = list(state.rows)
        after[row] -= n
        if nim_sum(after, state.k) == 0:
            return Nimply(row, n)
    return Nimply(*takes[0])
