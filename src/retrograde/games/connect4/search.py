"""Connect Four search: alpha-beta over (mover, opponent) bitboards (`game`'s layout).

Evaluations, from the side to move's view:

* `threats` (threat counting): the empty cells that would complete a line of the side to move,
  less those that would complete one of the opponent's (each cell counted once, whether it can
  be played now or only later);
* `zero`: 0 (only decided positions score; searched to the end of the game it is exact).

Moves are ordered from the centre column out (equal ones at random). A board with a line is
lost for the side to move, a full board without one is a draw, as in `Connect4.primitive`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from retrograde.games.connect4.kernels import (CONNECT, HEIGHT, STRIDE, WIDTH, board_at, board_index, has_line,
                                               mirror_index, pattern_of)
from retrograde.games.ranking_kernels import popcount
from retrograde.jit import njit
from retrograde.search.base import WIN_SCORE, Search, alpha_beta, exact_rows, expanded, greedy_rows, play_games, plug
from retrograde.search.tablebase import UNKNOWN, stored_score

THREATS, ZERO = range(2)
#: What the kernels read: the game's `kernel_tables` (dims, ways), the mask of every cell, the
#: leaf evaluation, the tablebase's arrays, and two rows of scratch (column heights, mirrored).
Context = namedtuple("Context", "dims ways board evaluation packed remoteness start heights mirrored")


@njit
def shifted(mask, step):
    return mask << step if step > 0 else mask >> -step


@njit
def completing(pieces, empty, dims):
    """The cells of `empty` that would complete a line of `pieces`: for each direction and each
    place of the gap in a line, the cells whose other CONNECT - 1 cells of the line are `pieces`'."""
    stride = dims[STRIDE]
    found = np.int64(0)
    for step in (1, stride, stride - 1, stride + 1):
        for gap in range(dims[CONNECT]):
            cells = empty
            for i in range(dims[CONNECT]):
                if i != gap:
                    cells &= shifted(pieces, (gap - i) * step)
            found |= cells
    return found


@njit
def evaluate(evaluation, mover, opponent, dims, board):
    """The heuristic score of a board for its side to move (see the module docstring)."""
    if evaluation == ZERO:
        return np.int64(0)
    empty = board & ~(mover | opponent)
    return np.int64(popcount(completing(mover, empty, dims)) - popcount(completing(opponent, empty, dims)))


@njit(inline="always")
def enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """Score the board states[ply] if it is decided, stored or a leaf (`depth` 0); else expand it
    into kids[ply] (the column of each move, in game.moves order; ordered in order[ply]) and
    return EXPANDED."""
    dims, ways, board, evaluation, packed, remoteness, start, heights, mirrored = context
    mover = states[ply, 0]
    opponent = states[ply, 1]
    filled = mover | opponent
    if has_line(opponent, dims) or has_line(mover, dims):
        return ply - WIN_SCORE
    pieces = popcount(filled)
    if filled == board:
        return np.int64(0)
    width, stride = dims[WIDTH], dims[STRIDE]
    for c in range(width):
        heights[c] = popcount((filled >> (c * stride)) & ((np.int64(1) << dims[HEIGHT]) - 1))
    if ply > 0 and start[pieces] >= 0:
        xs = mover if pieces % 2 == 0 else opponent
        pattern = pattern_of(dims, heights, xs)
        index = min(board_index(heights, pattern, ways, pieces), mirror_index(heights, pattern, ways, pieces, mirrored))
        known = stored_score(packed, remoteness, start, pieces, index, ply, WIN_SCORE)
        if known != UNKNOWN:
            return known
    if depth == 0:
        return evaluate(evaluation, mover, opponent, dims, board)
    count = 0
    for c in range(width):
        if heights[c] < dims[HEIGHT]:
            kids[ply, count] = c
            keys[ply, count] = width - abs(2 * c - (width - 1))  # the centre first
            count += 1
    return expanded(frames, keys, order, rng, ply, count)


@njit(inline="always")
def descend(context, states, kids, ply, child):
    """The board after a piece dropped in the column kids[ply, child], from its own side to
    move's view."""
    dims = context.dims
    filled = states[ply, 0] | states[ply, 1]
    column = kids[ply, child]
    cells = (filled >> (column * dims[STRIDE])) & ((np.int64(1) << dims[HEIGHT]) - 1)
    states[ply + 1, 0] = states[ply, 1]
    states[ply + 1, 1] = states[ply, 0] | (np.int64(1) << (column * dims[STRIDE] + popcount(cells)))


plug(Context, enter=enter, descend=descend)


@njit
def search(dims, ways, board, evaluation, packed, remoteness, start, mover, opponent, depth, exact, seed, root):
    """`alpha_beta` from (mover, opponent), `depth` plies deep; `board` is the mask of every cell."""
    width = dims[WIDTH]
    states = np.empty((depth + 1, 2), dtype=np.int64)
    kids = np.empty((depth + 1, width), dtype=np.int64)
    states[0, 0] = mover
    states[0, 1] = opponent
    context = Context(dims, ways, board, evaluation, packed, remoteness, start, np.empty(width, dtype=np.int64),
                      np.empty(width, dtype=np.int64))
    return alpha_beta(context, states, kids, depth, exact, seed, root)


@njit
def search_many(dims, ways, board, evaluation, packed, remoteness, start, rows, depth, scores):
    """`exact_rows`: `search` from each (mover, opponent) row of `rows`, every move scored exactly,
    into the row of `scores`; returns the nodes visited."""
    width = dims[WIDTH]
    context = Context(dims, ways, board, evaluation, packed, remoteness, start, np.empty(width, dtype=np.int64),
                      np.empty(width, dtype=np.int64))
    return exact_rows(context, np.empty((depth + 1, 2), dtype=np.int64), np.empty((depth + 1, width), dtype=np.int64),
                      rows, depth, scores)


@njit
def agents(dims, ways, board, zero, evaluation, packed, remoteness, start):
    """The contexts of the agents' searches: the exact one (reads the tablebase, the evaluation
    numbered `zero`), the greedy agent's tactics (`zero`) and heuristic (`evaluation`), reading none."""
    width = dims[WIDTH]
    empty = np.full(start.shape[0], -1, dtype=np.int64)
    heights, mirrored = np.empty(width, dtype=np.int64), np.empty(width, dtype=np.int64)
    return (Context(dims, ways, board, zero, packed, remoteness, start, heights, mirrored),
            Context(dims, ways, board, zero, packed[:0], remoteness[:0], empty, heights, mirrored),
            Context(dims, ways, board, evaluation, packed[:0], remoteness[:0], empty, heights, mirrored))


@njit
def play_many(dims, ways, board, zero, evaluation, packed, remoteness, start, starts, kinds, first, second, max_plies,
              results):
    """`play_games` from each (mover, opponent) row of `starts`; the lookup agent reads the tablebase."""
    width = dims[WIDTH]
    exact, tactics, heuristic = agents(dims, ways, board, zero, evaluation, packed, remoteness, start)
    return play_games(exact, tactics, heuristic, np.empty((3, 2), dtype=np.int64), np.empty((3, width), dtype=np.int64),
                      starts, kinds, first, second, max_plies, np.empty(width, dtype=np.int64), results)


@njit
def greedy_many(dims, ways, board, zero, evaluation, packed, remoteness, start, rows, scores):
    """`greedy_rows`: the greedy agent's scores at each (mover, opponent) row of `rows`."""
    _, tactics, heuristic = agents(dims, ways, board, zero, evaluation, packed, remoteness, start)
    greedy_rows(tactics, heuristic, np.empty((3, 2), dtype=np.int64), np.empty((3, dims[WIDTH]), dtype=np.int64), rows,
                scores)


@njit
def boards_at(dims, ways, pieces, indices):
    """(mover, opponent) of each index of tier p{pieces}."""
    rows = np.empty((indices.shape[0], 2), dtype=np.int64)
    heights = np.empty(dims[WIDTH], dtype=np.int64)
    for i in range(indices.shape[0]):
        xs, os = board_at(dims, ways, pieces, indices[i], heights)
        rows[i, 0], rows[i, 1] = (xs, os) if pieces % 2 == 0 else (os, xs)
    return rows


class Connect4Search(Search):
    evals = ("threats", "zero")

    def __init__(self, game):
        self.slots = game.cells + 1
        super().__init__(game)
        self.board = sum(game.bit(c, r) for c in range(game.width) for r in range(game.height))

    def slot(self, key):
        return key[0]

    def tiers_within(self, position, depth):
        pieces = (position[0] | position[1]).bit_count()
        return [f"p{k}" for k in range(pieces + 1, min(pieces + depth, self.game.cells) + 1)]

    def row(self, position):
        xs, os = position
        return (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)

    def _play_many(self, starts, kinds, zero, evaluation, first, second, max_plies, table, results):
        play_many(*self.game.kernel_tables, self.board, zero, evaluation, *table, starts, kinds, first, second,
                  max_plies, results)

    def _greedy_many(self, rows, zero, evaluation, scores):
        greedy_many(*self.game.kernel_tables, self.board, zero, evaluation, *self.tablebase.arrays(), rows, scores)

    def _run(self, position, depth, evaluation, exact, seed, table, scores):
        mover, opponent = self.row(position)
        return int(search(*self.game.kernel_tables, self.board, evaluation, *table, mover, opponent, depth, exact,
                          np.uint64(seed), scores))

    def rows_at(self, tier, indices):
        return boards_at(*self.game.kernel_tables, tier.key[0], np.asarray(indices, dtype=np.int64))

    def _run_many(self, rows, depth, evaluation, table, scores):
        return int(search_many(*self.game.kernel_tables, self.board, evaluation, *table, rows, depth, scores))
