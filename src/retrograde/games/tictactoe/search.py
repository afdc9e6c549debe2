"""Tic-tac-toe search: alpha-beta over (mover, opponent) masks, bit r*3+c.

Evaluations, from the side to move's view:

* `lines`: over the 8 lines, +1, +10, +100 for a line holding 1, 2, 3 of the mover's marks
  and none of the opponent's, the same subtracted for the opponent's open lines;
* `zero`: 0 (only decided positions score; at depth 9 the search is exact).

Moves are ordered by the `lines` score of the board they make (equal ones at random).
A board with a line is lost for the side to move (its opponent made it), a full board
without one is a draw, as in `TicTacToe.primitive`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from retrograde.games.ranking_kernels import popcount, rank_pair, unrank_pair
from retrograde.games.symmetry_kernels import least_image
from retrograde.games.tictactoe.kernels import CELLS, FULL, LINES, SYMMETRIES, has_line
from retrograde.jit import njit
from retrograde.search.base import WIN_SCORE, Search, alpha_beta, expanded, play_games, plug
from retrograde.search.tablebase import UNKNOWN, stored_score

LINES_EVAL, ZERO = range(2)
#: Score of an open line by the number of marks in it.
WEIGHTS = np.array([0, 1, 10, 100], dtype=np.int64)
#: Added to ordering keys so that they are never negative.
KEY_OFFSET = 1 << 10
#: What the kernels read: the leaf evaluation and the tablebase's arrays.
Context = namedtuple("Context", "evaluation packed remoteness start")


@njit
def open_lines(mover, opponent):
    """The `lines` evaluation of a board for its side to move."""
    score = 0
    for line in LINES:
        own = popcount(mover & line)
        other = popcount(opponent & line)
        if other == 0:
            score += WEIGHTS[own]
        elif own == 0:
            score -= WEIGHTS[other]
    return score


@njit(inline="always")
def enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """Score the board states[ply] if it is decided, stored or a leaf (`depth` 0); else expand it
    into kids[ply] (the cell bit of each move, in game.moves order; ordered in order[ply]) and
    return EXPANDED."""
    evaluation, packed, remoteness, start = context
    mover = states[ply, 0]
    opponent = states[ply, 1]
    if has_line(mover) or has_line(opponent):
        return ply - WIN_SCORE
    if mover | opponent == FULL:
        return np.int64(0)
    if ply > 0:
        marks = popcount(mover | opponent)
        if start[marks] >= 0:
            x_to_move = popcount(mover) == popcount(opponent)
            xs, os = (mover, opponent) if x_to_move else (opponent, mover)
            xs, os, _ = least_image(SYMMETRIES, xs, os)  # the value is stored at the representative
            known = stored_score(packed, remoteness, start, marks, rank_pair(xs, os, CELLS), ply, WIN_SCORE)
            if known != UNKNOWN:
                return known
    if depth == 0:
        return np.int64(0) if evaluation == ZERO else np.int64(open_lines(mover, opponent))
    count = 0
    for cell in range(CELLS):
        bit = 1 << cell
        if not (mover | opponent) & bit:
            kids[ply, count] = bit
            keys[ply, count] = KEY_OFFSET - open_lines(opponent, mover | bit)
            count += 1
    return expanded(frames, keys, order, rng, ply, count)


@njit(inline="always")
def descend(context, states, kids, ply, child):
    """The board after the move kids[ply, child], from its own side to move's view."""
    states[ply + 1, 0] = states[ply, 1]
    states[ply + 1, 1] = states[ply, 0] | kids[ply, child]


plug(Context, enter=enter, descend=descend)


@njit
def search(evaluation, packed, remoteness, start, mover, opponent, depth, exact, seed, root):
    """`alpha_beta` from (mover, opponent), `depth` plies deep."""
    states = np.empty((depth + 1, 2), dtype=np.int64)
    kids = np.empty((depth + 1, CELLS), dtype=np.int64)
    states[0, 0] = mover
    states[0, 1] = opponent
    return alpha_beta(Context(evaluation, packed, remoteness, start), states, kids, depth, exact, seed, root)


@njit
def search_many(evaluation, packed, remoteness, start, rows, depth, scores):
    """`search` from each (mover, opponent) row of `rows`, every move scored exactly, into the row
    of `scores`; returns the nodes visited."""
    nodes = 0
    for i in range(rows.shape[0]):
        nodes += search(evaluation, packed, remoteness, start, rows[i, 0], rows[i, 1], depth, True, np.uint64(i),
                        scores[i])
    return nodes


@njit
def play_many(zero, evaluation, packed, remoteness, start, starts, kinds, first, second, max_plies, results):
    """`play_games` from each (mover, opponent) row of `starts`; the lookup agent reads the tablebase."""
    empty = np.full(start.shape[0], -1, dtype=np.int64)
    return play_games(Context(zero, packed, remoteness, start), Context(zero, packed[:0], remoteness[:0], empty),
                      Context(evaluation, packed[:0], remoteness[:0], empty), np.empty((3, 2), dtype=np.int64),
                      np.empty((3, CELLS), dtype=np.int64), starts, kinds, first, second, max_plies,
                      np.empty(CELLS, dtype=np.int64), results)


@njit
def boards_at(marks, indices):
    """(mover, opponent) of each index of tier k{marks}."""
    rows = np.empty((indices.shape[0], 2), dtype=np.int64)
    for i in range(indices.shape[0]):
        xs, os = unrank_pair(indices[i], (marks + 1) // 2, marks // 2, CELLS)
        rows[i, 0], rows[i, 1] = (xs, os) if marks % 2 == 0 else (os, xs)
    return rows


class TicTacToeSearch(Search):
    evals = ("lines", "zero")
    slots = CELLS + 1

    def slot(self, key):
        return key[0]

    def tiers_within(self, position, depth):
        marks = (position[0] | position[1]).bit_count()
        return [f"k{k}" for k in range(marks + 1, min(marks + depth, CELLS) + 1)]

    def row(self, position):
        xs, os = position
        return (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)

    def _play_many(self, starts, kinds, zero, evaluation, first, second, max_plies, table, results):
        play_many(zero, evaluation, *table, starts, kinds, first, second, max_plies, results)

    def _run(self, position, depth, evaluation, exact, seed, table, scores):
        mover, opponent = self.row(position)
        return int(search(evaluation, *table, mover, opponent, depth, exact, np.uint64(seed), scores))

    def rows_at(self, tier, indices):
        return boards_at(tier.key[0], np.asarray(indices, dtype=np.int64))

    def _run_many(self, rows, depth, evaluation, table, scores):
        return int(search_many(evaluation, *table, rows, depth, scores))
