"""Nim search: alpha-beta over heap vectors, with the bound k and normal or misère play.

Evaluations, from the side to move's view:

* `zero`: 0 (only decided positions score; searched to the end, sum of the heaps plies,
  it is exact);
* `parity`: +1 if an odd number of heaps are non-empty, else -1, negated in misère play.
  Exact when every non-empty heap holds one object (the players then alternate taking one);
  a plain guess otherwise.

Moves are searched in random order: Nim has no move-ordering heuristic short of its theory.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.ranking_kernels import rank_composition
from retrograde.jit import njit
from retrograde.search.base import (EXPANDED, WIN_SCORE, Search, back_up, next_child, open_search, order_moves,
                                    start_node, take_child)
from retrograde.search.tablebase import UNKNOWN, stored_score

ZERO, PARITY = range(2)
#: Columns of the per-ply move buffer.
HEAP, TAKE = range(2)


@njit
def evaluate(evaluation, heaps, misere):
    """The heuristic score of a heap vector for its side to move (see the module docstring)."""
    if evaluation == ZERO:
        return np.int64(0)
    odd = np.count_nonzero(heaps) % 2 == 1
    return np.int64(1 if odd != misere else -1)


@njit
def enter(limit, misere, ways, evaluation, packed, remoteness, start, states, kids, keys, order, frames, rng, ply,
          depth):
    """Score the heaps states[ply] if decided, stored or a leaf (`depth` 0); else expand them
    into kids[ply] (heap, take of each move, in game.moves order; shuffled in order[ply]) and
    return EXPANDED."""
    heaps = states[ply]
    total = heaps.sum()
    if total == 0:  # the previous player took the last object
        return WIN_SCORE - ply if misere else ply - WIN_SCORE
    if ply > 0 and start[total] >= 0:
        known = stored_score(packed, remoteness, start, total, rank_composition(heaps, ways, total), ply, WIN_SCORE)
        if known != UNKNOWN:
            return known
    if depth == 0:
        return evaluate(evaluation, heaps, misere)
    count = 0
    for heap in range(heaps.shape[0]):
        for take in range(1, min(heaps[heap], limit) + 1):
            kids[ply, count, HEAP] = heap
            kids[ply, count, TAKE] = take
            keys[ply, count] = 0
            count += 1
    order_moves(keys[ply], count, order[ply], rng)
    start_node(frames, ply, count)
    return EXPANDED


@njit
def search(limit, misere, ways, evaluation, packed, remoteness, start, heaps, depth, exact, seed, root):
    """Alpha-beta (negamax) `depth` plies deep: root[j] gets the score of the j-th move of
    game.moves (see `next_child`); returns the number of nodes visited."""
    keys, order, frames, rng = open_search(depth, root.shape[0], seed)
    states = np.empty((depth + 1, heaps.shape[0]), dtype=np.int64)
    kids = np.empty((depth + 1, root.shape[0], 2), dtype=np.int64)
    states[0] = heaps
    enter(limit, misere, ways, evaluation, packed, remoteness, start, states, kids, keys, order, frames, rng, 0, depth)
    nodes = 1
    ply = 0
    while ply >= 0:
        child = next_child(frames, order, ply, exact)
        if child < 0:
            ply = back_up(frames, ply, root)
            continue
        states[ply + 1] = states[ply]
        states[ply + 1, kids[ply, child, HEAP]] -= kids[ply, child, TAKE]
        nodes += 1
        value = enter(limit, misere, ways, evaluation, packed, remoteness, start, states, kids, keys, order,
                      frames, rng, ply + 1, depth - ply - 1)
        ply = take_child(frames, ply, value, root)
    return nodes


class NimSearch(Search):
    evals = ("zero", "parity")

    def __init__(self, game):
        self.slots = sum(game.heaps) + 1
        super().__init__(game)
        self.limit = max(game.heaps) if game.max_take is None else game.max_take

    def slot(self, key):
        return key[0]

    def tiers_within(self, position, depth):
        total = sum(position)
        return [f"s{t}" for t in range(max(0, total - depth * self.limit), total)]

    def _run(self, position, depth, evaluation, exact, seed, table, scores):
        return int(search(self.limit, self.game.misere, self.game._ways, evaluation, *table,
                          np.array(position, dtype=np.int64), depth, exact, np.uint64(seed), scores))
