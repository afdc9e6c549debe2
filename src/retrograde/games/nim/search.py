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

from collections import namedtuple

import numpy as np

from retrograde.games.ranking_kernels import rank_composition, unrank_composition
from retrograde.jit import njit
from retrograde.search.base import WIN_SCORE, Search, alpha_beta, expanded, play_games, plug
from retrograde.search.tablebase import UNKNOWN, stored_score

ZERO, PARITY = range(2)
#: Columns of the per-ply move buffer.
HEAP, TAKE = range(2)
#: What the kernels read: the rules (take at most `limit`, `misere` play), the ranking's
#: `ways`, the leaf evaluation and the tablebase's arrays.
Context = namedtuple("Context", "limit misere ways evaluation packed remoteness start")


@njit
def evaluate(evaluation, heaps, misere):
    """The heuristic score of a heap vector for its side to move (see the module docstring)."""
    if evaluation == ZERO:
        return np.int64(0)
    odd = np.count_nonzero(heaps) % 2 == 1
    return np.int64(1 if odd != misere else -1)


@njit(inline="always")
def enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """Score the heaps states[ply] if decided, stored or a leaf (`depth` 0); else expand them
    into kids[ply] (heap, take of each move, in game.moves order; shuffled in order[ply]) and
    return EXPANDED."""
    limit, misere, ways, evaluation, packed, remoteness, start = context
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
    return expanded(frames, keys, order, rng, ply, count)


@njit(inline="always")
def descend(context, states, kids, ply, child):
    """The heaps after the move kids[ply, child]."""
    states[ply + 1] = states[ply]
    states[ply + 1, kids[ply, child, HEAP]] -= kids[ply, child, TAKE]


plug(Context, enter=enter, descend=descend)


@njit
def search(limit, misere, ways, evaluation, packed, remoteness, start, heaps, depth, exact, seed, root):
    """`alpha_beta` from `heaps`, `depth` plies deep."""
    states = np.empty((depth + 1, heaps.shape[0]), dtype=np.int64)
    kids = np.empty((depth + 1, root.shape[0], 2), dtype=np.int64)
    states[0] = heaps
    return alpha_beta(Context(limit, misere, ways, evaluation, packed, remoteness, start), states, kids, depth, exact,
                      seed, root)


@njit
def search_many(limit, misere, ways, evaluation, packed, remoteness, start, rows, depth, scores):
    """`search` from each heap vector of `rows`, every move scored exactly, into the row of
    `scores`; returns the nodes visited."""
    nodes = 0
    for i in range(rows.shape[0]):
        nodes += search(limit, misere, ways, evaluation, packed, remoteness, start, rows[i], depth, True, np.uint64(i),
                        scores[i])
    return nodes


@njit
def play_many(limit, misere, ways, zero, evaluation, packed, remoteness, start, starts, kinds, first, second,
              max_plies, results):
    """`play_games` from each heap vector of `starts`; the lookup agent reads the tablebase."""
    empty = np.full(start.shape[0], -1, dtype=np.int64)
    width = max(1, starts.shape[1] * limit)  # the most moves: `limit` takes from each heap
    return play_games(Context(limit, misere, ways, zero, packed, remoteness, start),
                      Context(limit, misere, ways, zero, packed[:0], remoteness[:0], empty),
                      Context(limit, misere, ways, evaluation, packed[:0], remoteness[:0], empty),
                      np.empty((3, starts.shape[1]), dtype=np.int64), np.empty((3, width, 2), dtype=np.int64), starts,
                      kinds, first, second, max_plies, np.empty(width, dtype=np.int64), results)


@njit
def heaps_at(total, ways, heaps, indices):
    """The heap vector of each index of tier s{total} (`heaps` heaps)."""
    rows = np.empty((indices.shape[0], heaps), dtype=np.int64)
    for i in range(indices.shape[0]):
        unrank_composition(indices[i], total, ways, rows[i])
    return rows


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

    def rows_at(self, tier, indices):
        return heaps_at(tier.key[0], self.game._ways, len(self.game.heaps), np.asarray(indices, dtype=np.int64))

    def _run_many(self, rows, depth, evaluation, table, scores):
        return int(search_many(self.limit, self.game.misere, self.game._ways, evaluation, *table, rows, depth, scores))

    def row(self, position):
        return position

    def _play_many(self, starts, kinds, zero, evaluation, first, second, max_plies, table, results):
        play_many(self.limit, self.game.misere, self.game._ways, zero, evaluation, *table, starts, kinds, first, second,
                  max_plies, results)

    def _run(self, position, depth, evaluation, exact, seed, table, scores):
        return int(search(self.limit, self.game.misere, self.game._ways, evaluation, *table,
                          np.array(position, dtype=np.int64), depth, exact, np.uint64(seed), scores))
