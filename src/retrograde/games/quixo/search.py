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

The greedy agent's scores (`greedy`) need no search tree: a move changes at most one cell of any
line (`kernels.one_ply`), so after a move the two sides' longest lines tell whether it decides the
game, which side a reply could complete a line for (n - 1 cubes in a line), and the evaluation;
the replies are played only where a side holds n - 1 (`kernels.one_move`). On undecided 4x4
positions of a store's sample (CPU time, the machine busy): 2.2 us a position, against 71 us for
the 2-ply search alone (239 nodes).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from retrograde.games import symmetry
from retrograde.games.base import LOSS_IN_1, STORED, WIN_IN_1
from retrograde.games.quixo.kernels import SOURCE, has_line, longest_line, one_move, play
from retrograde.games.ranking_kernels import popcount, rank_counted, unrank_pair
from retrograde.games.symmetry_kernels import least_image
from retrograde.jit import njit
from retrograde.search.base import WIN_SCORE, Search, alpha_beta, exact_rows, expanded, greedy_rows, play_games, plug
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
    return evaluate_lines(evaluation, n, longest_line(mover, lines), longest_line(opponent, lines))


@njit
def evaluate_lines(evaluation, n, own, other):
    """The heuristic score of a position whose side to move holds at most `own` cubes in one line,
    its opponent `other`."""
    if evaluation == CMAX:
        return np.int64(n) ** own - np.int64(n) ** other
    if evaluation == INLINE:
        return np.int64(own - other)
    return np.int64(0)


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
def settled(n, ends, lines, symmetries, evaluation, packed, remoteness, start, mover, opponent, ply, depth):
    """The score of the position (mover, opponent) `ply` plies below the root where it is decided,
    stored or a leaf (`depth` 0), else UNKNOWN: `enter`'s, before it expands the position. (The
    context's arrays come one by one: a call that passes the context counts a reference to each.)"""
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
        known = stored_score(packed, remoteness, start, slot, rank_counted(stored_mover, stored_opponent, a, b, cells),
                             ply, WIN_SCORE)
        if known != UNKNOWN:
            return known
    if depth == 0:
        return evaluate(evaluation, n, mover, opponent, lines)
    return UNKNOWN


@njit(inline="always")
def enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """Score the position states[ply] if it is decided, stored or a leaf (`depth` 0); else expand
    it into kids[ply] (ordered in order[ply]) and return EXPANDED."""
    n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start = context
    mover = states[ply, 0]
    opponent = states[ply, 1]
    score = settled(n, ends, lines, symmetries, evaluation, packed, remoteness, start, mover, opponent, ply, depth)
    if score != UNKNOWN:
        return score
    count = children(moves, mover, opponent, kids[ply])
    if depth > 1:
        for i in range(count):
            keys[ply, i] = longest_line(kids[ply, i, NEXT_OPPONENT], lines) * 2 + kids[ply, i, BLANK]
    return expanded(frames, keys, order, rng, ply, count, depth > 1)


@njit(inline="always")
def leaves(context, states, kids, keys, order, frames, rng, count, root):
    """`enter` at each of the `count` children of states[0] as a leaf, in one loop: root[j] = minus
    the j-th child's score."""
    n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start = context
    for i in range(count):
        root[i] = -settled(n, ends, lines, symmetries, evaluation, packed, remoteness, start, kids[0, i, NEXT_MOVER],
                           kids[0, i, NEXT_OPPONENT], 1, 0)


@njit(inline="always")
def descend(context, states, kids, ply, child):
    """The position after the move kids[ply, child], from its own side to move's view."""
    states[ply + 1, 0] = kids[ply, child, NEXT_MOVER]
    states[ply + 1, 1] = kids[ply, child, NEXT_OPPONENT]


@njit(inline="always")
def greedy(tactics, heuristic, states, kids, count, root):
    """The greedy agent's score of each of the `count` moves at states[0] (its children in kids[0])
    into root[:count], as `search.base.greedy_by_search` scores them (see the module docstring):
    a move completing the opponent's line 1 - WIN_SCORE (first: completing both lines loses), only
    its own WIN_SCORE - 1, one the opponent can answer by completing its line alone 2 - WIN_SCORE,
    one after which every reply completes our line WIN_SCORE - 2, else the negated evaluation of
    the position after it with `heuristic`'s evaluation."""
    n, moves, ends, lines = tactics.n, tactics.moves, tactics.ends, tactics.lines
    here = kids[0]
    for i in range(count):
        mover, opponent = here[i, NEXT_MOVER], here[i, NEXT_OPPONENT]  # the child's: the root's opponent moves
        own, other = longest_line(mover, lines), longest_line(opponent, lines)
        if own == n:
            root[i] = 1 - WIN_SCORE
        elif other == n:
            root[i] = WIN_SCORE - 1
        else:
            reply = one_move(n, moves, ends, mover, opponent, own == n - 1, other == n - 1) \
                if own == n - 1 or other == n - 1 else STORED
            root[i] = 2 - WIN_SCORE if reply == WIN_IN_1 else WIN_SCORE - 2 if reply == LOSS_IN_1 else \
                -evaluate_lines(heuristic.evaluation, n, own, other)


plug(Context, enter=enter, descend=descend, leaves=leaves, greedy=greedy)


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
    """`exact_rows`: `search` from each (mover, opponent) row of `rows`, every move scored exactly,
    into the row of `scores`; returns the nodes visited."""
    kids = np.empty((depth + 1, moves.shape[0], 3), dtype=np.int64)
    return exact_rows(Context(n, moves, ends, lines, symmetries, evaluation, packed, remoteness, start),
                      np.empty((depth + 1, 2), dtype=np.int64), kids, rows, depth, scores)


@njit
def agents(n, moves, ends, lines, symmetries, zero, evaluation, packed, remoteness, start):
    """The contexts of the agents' searches: the exact one (reads the tablebase, the evaluation
    numbered `zero`), the greedy agent's tactics (`zero`) and heuristic (`evaluation`), reading none."""
    empty = np.full(start.shape[0], -1, dtype=np.int64)
    return (Context(n, moves, ends, lines, symmetries, zero, packed, remoteness, start),
            Context(n, moves, ends, lines, symmetries, zero, packed[:0], remoteness[:0], empty),
            Context(n, moves, ends, lines, symmetries, evaluation, packed[:0], remoteness[:0], empty))


@njit
def play_many(n, moves, ends, lines, symmetries, zero, evaluation, packed, remoteness, start, starts, kinds, first,
              second, max_plies, results):
    """`play_games` from each (mover, opponent) row of `starts`; the lookup agent reads the tablebase."""
    exact, tactics, heuristic = agents(n, moves, ends, lines, symmetries, zero, evaluation, packed, remoteness, start)
    return play_games(exact, tactics, heuristic, np.empty((3, 2), dtype=np.int64),
                      np.empty((3, moves.shape[0], 3), dtype=np.int64), starts, kinds, first, second, max_plies,
                      np.empty(moves.shape[0], dtype=np.int64), results)


@njit
def greedy_many(n, moves, ends, lines, symmetries, zero, evaluation, packed, remoteness, start, rows, scores):
    """`greedy_rows`: the greedy agent's scores at each (mover, opponent) row of `rows`."""
    _, tactics, heuristic = agents(n, moves, ends, lines, symmetries, zero, evaluation, packed, remoteness, start)
    greedy_rows(tactics, heuristic, np.empty((3, 2), dtype=np.int64), np.empty((3, moves.shape[0], 3), dtype=np.int64),
                rows, scores)


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

    def _greedy_many(self, rows, zero, evaluation, scores):
        greedy_many(self.game.size, self.game.move_table, self.game.line_masks, self.lines,
                    symmetry.tables(self.game.size), zero, evaluation, *self.tablebase.arrays(), rows, scores)

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
