"""Quixo search: alpha-beta over (mover, opponent) bitboards with the seeds' evaluations.

Evaluations, from the side to move's view, with C and O the most cubes of the side to
move / of the opponent in one row, column or diagonal:

* `cmax` (seed 001): N**C - N**O, N the board size;
* `inline` (seed 004's "max in-line" difference): C - O;
* `zero`: 0 (only decided positions score).

Move ordering (seed 004): moves making the longer own line first, among equals those that
took a blank cube first, equal keys in random order; at nodes one ply above the leaves
the children are searched in move order (ordering them would cost as much as evaluating them).
A move is applied as in `games.quixo.kernels`: with the move table's segment and shift.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from retrograde.games import symmetry
from retrograde.games.quixo.kernels import SOURCE, has_line, longest_line, play
from retrograde.games.ranking_kernels import popcount, rank_counted, unrank_pair
from retrograde.games.symmetry_kernels import least_image
from retrograde.jit import njit
from retrograde.search.base import WIN_SCORE, Search, alpha_beta, expanded, play_games, plug
from retrograde.search.tablebase import UNKNOWN, stored_score

CMAX, INLINE, ZERO = range(3)
#: Columns of the per-ply child buffer: the child's side to move, its opponent, took a blank.
NEXT_MOVER, NEXT_OPPONENT, BLANK = range(3)
#: What the kernels read: the board size, the move table, `kernels.line_masks` (for `has_line`),
#: every line's mask (for evaluations), the symmetry tables (a stored value is read at the
#: position's representative), the leaf evaluation and the tablebase's arrays.
Context = namedtuple("Context", "n moves ends lines symmetries evaluation packed remoteness start")


@njit
def evaluate(evaluation, n, mover, opponent, lines):
    """The heuristic score of a position for its side to move (see the module docstring)."""
    if evaluation == ZERO:
        return np.int64(0)
    own = longest_line(mover, lines)
    other = longest_line(opponent, lines)
    if evaluation == CMAX:
        return np.int64(n) ** own - np.int64(n) ** other
    return np.int64(own - other)


@njit
def children(moves, mover, opponent, out):
    """Write every child into out[:, NEXT_MOVER/NEXT_OPPONENT/BLANK] in game.moves order;
    return how many there are."""
    count = 0
    for k in range(moves.shape[0]):
        source = moves[k, SOURCE]
        if opponent & source:
            continue
        out[count, NEXT_OPPONENT], out[count, NEXT_MOVER] = play(moves, k, mover, opponent)
        out[count, BLANK] = 0 if mover & source else 1
        count += 1
    return count


@njit(inline="always")
def enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """Score the position states[ply] if it is decided, stored or a leaf (`depth` 0); else expand
    it into kids[ply] (ordered in order[ply]) and return EXPANDED."""
    n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start = context
    mover = states[ply, 0]
    opponent = states[ply, 1]
    if has_line(mover, n, ends):
        return WIN_SCORE - ply
    if has_line(opponent, n, ends):
        return ply - WIN_SCORE
    cells = n * n
    a = popcount(mover)
    b = popcount(opponent)
    slot = a * (cells + 1) + b
    if ply > 0 and start[slot] >= 0:
        stored_mover, stored_opponent, _ = least_image(symmetries, mover, opponent)
        known = stored_score(packed, remoteness, start, slot,
                             rank_counted(stored_mover, stored_opponent, a, b, cells), ply, WIN_SCORE)
        if known != UNKNOWN:
            return known
    if depth == 0:
        return evaluate(evaluation, n, mover, opponent, lines)
    here = kids[ply]
    count = children(moves, mover, opponent, here)
    if depth > 1:
        for i in range(count):
            keys[ply, i] = longest_line(here[i, NEXT_OPPONENT], lines) * 2 + here[i, BLANK]
    return expanded(frames, keys, order, rng, ply, count, depth > 1)


@njit(inline="always")
def descend(context, states, kids, ply, child):
    """The position after the move kids[ply, child], from its own side to move's view."""
    states[ply + 1, 0] = kids[ply, child, NEXT_MOVER]
    states[ply + 1, 1] = kids[ply, child, NEXT_OPPONENT]


plug(Context, enter=enter, descend=descend)


@njit
def search(n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start, mover, opponent, depth, exact,
           seed, root):
    """`alpha_beta` from (mover, opponent), `depth` plies deep."""
    states = np.empty((depth + 1, 2), dtype=np.int64)
    kids = np.empty((depth + 1, moves.shape[0], 3), dtype=np.int64)
    states[0, 0] = mover
    states[0, 1] = opponent
    return alpha_beta(Context(n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start), states, kids,
                      depth, exact, seed, root)


@njit
def search_many(n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start, rows, depth, scores):
    """`search` from each (mover, opponent) row of `rows`, every move scored exactly, into the row
    of `scores`; returns the nodes visited."""
    nodes = 0
    for i in range(rows.shape[0]):
        nodes += search(n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start, rows[i, 0],
                        rows[i, 1], depth, True, np.uint64(i), scores[i])
    return nodes


@njit
def play_many(n, moves, ends, lines, symmetries, zero, evaluation, packed, remoteness, start, starts, kinds, first,
              second, max_plies, results):
    """`play_games` from each (mover, opponent) row of `starts`; the lookup agent reads the tablebase."""
    empty = np.full(start.shape[0], -1, dtype=np.int64)
    return play_games(Context(n, moves, ends, lines, symmetries, zero, packed, remoteness, start),
                      Context(n, moves, ends, lines, symmetries, zero, packed[:0], remoteness[:0], empty),
                      Context(n, moves, ends, lines, symmetries, evaluation, packed[:0], remoteness[:0], empty),
                      np.empty((3, 2), dtype=np.int64), np.empty((3, moves.shape[0], 3), dtype=np.int64), starts,
                      kinds, first, second, max_plies, np.empty(moves.shape[0], dtype=np.int64), results)


@njit
def boards_at(a, b, cells, indices):
    """(mover, opponent) of each index of tier m{a}o{b}."""
    rows = np.empty((indices.shape[0], 2), dtype=np.int64)
    for i in range(indices.shape[0]):
        rows[i, 0], rows[i, 1] = unrank_pair(indices[i], a, b, cells)
    return rows


class QuixoSearch(Search):
    evals = ("cmax", "inline", "zero")
    variable_depth = "seed 004's: min(|C - O| + 1, O) plies, C and O the longest lines of the two sides"

    def __init__(self, game):
        self.slots = (game.cells + 1) ** 2
        super().__init__(game)
        self.lines = game.every_line

    def slot(self, key):
        a, b = key
        return a * (self.game.cells + 1) + b

    def tiers_within(self, position, depth):
        """After p plies the root mover has gained at most ceil(p/2) cubes, the other side
        floor(p/2) (a move adds at most one cube of the side that made it, never removes one)."""
        a, b = (mask.bit_count() for mask in self.game._masks(position))
        names = []
        for ply in range(1, depth + 1):
            for x in range(a, min(a + (ply + 1) // 2, self.game.cells) + 1):
                for y in range(b, min(b + ply // 2, self.game.cells - x) + 1):
                    names.append(f"m{y}o{x}" if ply % 2 else f"m{x}o{y}")
        return list(dict.fromkeys(names))

    def adaptive_depth(self, position, depth):
        """Seed 004's variable depth: min(|C - O| + 1, O) within 1..`depth`, C and O the most cubes
        of the side to move / of the opponent in one line."""
        mover, opponent = self.game._masks(position)
        own, other = int(longest_line(mover, self.lines)), int(longest_line(opponent, self.lines))
        return max(1, min(abs(own - other) + 1, other, depth))

    def row(self, position):
        return self.game._masks(position)

    def _play_many(self, starts, kinds, zero, evaluation, first, second, max_plies, table, results):
        play_many(self.game.size, self.game.move_table, self.game.line_masks, self.lines, symmetry.tables(self.game.size),
                  zero, evaluation, *table, starts, kinds, first, second, max_plies, results)

    def _run(self, position, depth, evaluation, exact, seed, table, scores):
        mover, opponent = self.row(position)
        return int(search(self.game.size, self.game.move_table, self.game.line_masks, self.lines,
                          symmetry.tables(self.game.size), evaluation, *table, mover, opponent, depth, exact,
                          np.uint64(seed), scores))

    def rows_at(self, tier, indices):
        return boards_at(*tier.key, self.game.cells, np.asarray(indices, dtype=np.int64))

    def _run_many(self, rows, depth, evaluation, table, scores):
        return int(search_many(self.game.size, self.game.move_table, self.game.line_masks, self.lines,
                               symmetry.tables(self.game.size), evaluation, *table, rows, depth, scores))
