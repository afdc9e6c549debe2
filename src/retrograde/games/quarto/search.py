"""Quarto search: alpha-beta over nibble boards (`board`), depth-limited with the evaluations
below, or exact to the end of the game with a transposition table (the `endgame` agent).

A node is (board, occupied cells, piece in hand, pieces used); a move is (cell, piece handed
over), as `Quarto.moves` lists them and in its order: cells ascending, then pieces
ascending; a placement that ends the game hands nothing; the opening only hands a piece.

Some values are known without search and are scored exactly at every node: a mover whose
piece in hand completes a live line wins in one (WIN_SCORE - ply - 1), a mover placing the
last piece without a line draws (0), and, where the children are ordered (two or more plies
left), a mover every one of whose moves hands over a deadly piece loses in two. Other leaves
take the evaluation, from the side to move's view, with R the pieces it may hand over after
placing (neither on the board nor in hand) and D the deadly pieces of the board:

* `threats`: |R minus D| - |R and D|, safe pieces less deadly ones: the mover needs a safe
  piece to hand over, and so does its opponent a ply later;
* `parity`: +1 if |R minus D| is odd, else -1: if no placement changed the live lines, the
  two sides would hand the safe pieces over in turn and the one left without one would lose;
* `zero`: 0 (only what is known without search scores).

Ordering, at nodes with two or more plies left: winning placements first, then moves handing
over a piece that is safe on the board after the placement, equal ones in random order.

Searches to the end (`QuartoSearch.solve_scores`) look nodes up in a transposition table,
keyed by board, occupied cells and piece in hand, holding each searched value as exact or as
a bound of its window, decided scores counted from the node itself; the values of positions do
not depend on the root, so the table is kept from move to move.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from retrograde.games.quarto.board import FULL, completes, deadly, encode, line_tables, place
from retrograde.games.quarto.cells import MAX_MOVES
from retrograde.games.ranking_kernels import popcount
from retrograde.jit import njit
from retrograde.search.base import ALPHA, BEST, BETA, WIN_SCORE, Search, alpha_beta, expanded, plug
from retrograde.search.tablebase import UNKNOWN

THREATS, PARITY, ZERO = range(3)
#: Columns of a node's state: board nibbles, occupied cells, piece in hand (-1 none), pieces used,
#: and the kind of move that made it (below).
BOARD, OCCUPIED, HAND, USED, MADE = range(5)
#: Columns of a child: the cell placed on (-1 at the opening), the piece handed over (-1 none), its kind.
CELL, PIECE, KIND = range(3)
#: Kinds of child: the game goes on, the placement completes a line, it fills the board.
ON, WINS, FILLS = range(3)
#: Transposition-table bound kinds.
EXACT, LOWER, UPPER = 1, 2, 3
#: Scores beyond this are decided (a win or loss some plies away).
DECIDED = WIN_SCORE // 2
#: What the kernels read: the line tables, the leaf evaluation, the transposition table (keys,
#: values: one row each for none) and each node's alpha when it was entered.
Context = namedtuple("Context", "lines through evaluation table_keys table_values window")


@njit
def evaluate(evaluation, left, threats):
    """The heuristic score of a leaf (see the module docstring): `left` the pieces the mover
    may hand over, `threats` the board's deadly pieces."""
    if evaluation == ZERO:
        return np.int64(0)
    safe = popcount(left & ~threats)
    if evaluation == PARITY:
        return np.int64(1 if safe % 2 == 1 else -1)
    return np.int64(safe - popcount(left & threats))


@njit
def table_key(occupied, hand):
    """The second word of a node's transposition-table key (the first is its board)."""
    return occupied | ((hand + 1) << 16)


@njit
def _slot(board, rest, mask):
    z = np.uint64(board) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(rest) * np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(29)
    return np.int64(z & np.uint64(mask))


@njit
def probe(table_keys, table_values, board, rest, ply, alpha, beta):
    """A stored score of the node that settles it in the window (alpha, beta), or UNKNOWN.
    Decided scores are stored as seen from the node itself and shifted by `ply` here."""
    i = _slot(board, rest, table_values.shape[0] - 1)
    if table_keys[i, 0] != board or table_keys[i, 1] != rest:
        return UNKNOWN
    value = table_values[i, 0]
    if value > DECIDED:
        value -= ply
    elif value < -DECIDED:
        value += ply
    kind = table_values[i, 1]
    if kind == EXACT or (kind == LOWER and value >= beta) or (kind == UPPER and value <= alpha):
        return value
    return UNKNOWN


@njit
def store(table_keys, table_values, board, rest, ply, value, alpha, beta):
    """Record a node's searched value and whether it is exact or a bound of the window."""
    i = _slot(board, rest, table_values.shape[0] - 1)
    table_keys[i, 0] = board
    table_keys[i, 1] = rest
    kind = LOWER if value >= beta else UPPER if value <= alpha else EXACT
    if value > DECIDED:
        value += ply
    elif value < -DECIDED:
        value -= ply
    table_values[i, 0] = value
    table_values[i, 1] = kind


@njit(inline="always")
def enter(context, states, kids, keys, order, frames, rng, ply, depth):
    """Score the node states[ply] if its value is known, stored or it is a leaf (`depth` 0);
    else expand it into kids[ply] (ordered in order[ply]) and return EXPANDED."""
    lines, through, evaluation, table_keys, table_values, window = context
    if states[ply, MADE] == WINS:
        return ply - WIN_SCORE  # the mover has lost
    if states[ply, MADE] == FILLS:
        return np.int64(0)
    window[ply] = frames[ply, ALPHA]
    board = states[ply, BOARD]
    occupied = states[ply, OCCUPIED]
    hand = states[ply, HAND]
    left = ~states[ply, USED] & FULL
    here = kids[ply]
    count = 0
    if hand < 0:  # the opening: hand a piece over
        if depth == 0:
            return np.int64(0)
        for piece in range(16):
            if left >> piece & 1:
                here[count, CELL] = -1
                here[count, PIECE] = piece
                here[count, KIND] = ON
                count += 1
        return expanded(frames, keys, order, rng, ply, count, False)
    threats = deadly(board, occupied, lines)
    wins = threats >> hand & 1
    last = popcount(occupied) == 15
    if ply > 0:
        if wins:
            return WIN_SCORE - ply - 1
        if last:
            return np.int64(0)
        if table_values.shape[0] > 1:
            known = probe(table_keys, table_values, board, table_key(occupied, hand), ply, frames[ply, ALPHA],
                          frames[ply, BETA])
            if known != UNKNOWN:
                return known
    if depth == 0:
        return evaluate(evaluation, left, threats)
    ordered = depth > 1
    safe = 0
    for cell in range(16):
        if occupied >> cell & 1:
            continue
        if wins and completes(board, occupied, cell, hand, lines, through):
            kind = WINS
        elif last:
            kind = FILLS
        else:
            after = np.int64(0)
            if ordered:
                placed, filled = place(board, occupied, cell, hand)
                after = deadly(placed, filled, lines)
            for piece in range(16):
                if left >> piece & 1:
                    here[count, CELL] = cell
                    here[count, PIECE] = piece
                    here[count, KIND] = ON
                    keys[ply, count] = 0 if after >> piece & 1 else 1
                    safe += keys[ply, count]
                    count += 1
            continue
        here[count, CELL] = cell
        here[count, PIECE] = -1
        here[count, KIND] = kind
        keys[ply, count] = 2
        count += 1
    if ordered and ply > 0 and safe == 0:  # every move hands over a deadly piece
        return ply + 2 - WIN_SCORE
    return expanded(frames, keys, order, rng, ply, count, ordered)


@njit(inline="always")
def descend(context, states, kids, ply, child):
    """The node after the move kids[ply, child]; only its kind where the placement ends the game."""
    kind = kids[ply, child, KIND]
    states[ply + 1, MADE] = kind
    if kind != ON:
        return
    cell = kids[ply, child, CELL]
    piece = kids[ply, child, PIECE]
    if cell >= 0:
        states[ply + 1, BOARD], states[ply + 1, OCCUPIED] = place(states[ply, BOARD], states[ply, OCCUPIED], cell,
                                                                  states[ply, HAND])
    else:
        states[ply + 1, BOARD] = states[ply, BOARD]
        states[ply + 1, OCCUPIED] = states[ply, OCCUPIED]
    states[ply + 1, HAND] = piece
    states[ply + 1, USED] = states[ply, USED] | (np.int64(1) << piece)


@njit(inline="always")
def leave(context, states, frames, ply):
    """Record the searched node in the transposition table, if there is one (the opening is never
    looked up)."""
    if context.table_values.shape[0] > 1 and states[ply, HAND] >= 0:
        store(context.table_keys, context.table_values, states[ply, BOARD],
              table_key(states[ply, OCCUPIED], states[ply, HAND]), ply, frames[ply, BEST], context.window[ply],
              frames[ply, BETA])


plug(Context, enter=enter, descend=descend, leave=leave)


@njit
def search(lines, through, evaluation, board, occupied, hand, used, depth, exact, seed, table_keys, table_values,
           root):
    """`alpha_beta` from the node (board, occupied, hand, used), `depth` plies deep. With a table
    (table_values of more than one row) nodes are looked up and recorded in it: only for
    searches to the end of the game, whose values do not depend on the depth left."""
    states = np.empty((depth + 1, 5), dtype=np.int64)
    states[0, BOARD] = board
    states[0, OCCUPIED] = occupied
    states[0, HAND] = hand
    states[0, USED] = used
    states[0, MADE] = ON
    context = Context(lines, through, evaluation, table_keys, table_values, np.empty(depth + 1, dtype=np.int64))
    return alpha_beta(context, states, np.empty((depth + 1, MAX_MOVES, 3), dtype=np.int64), depth, exact, seed, root)


class QuartoSearch(Search):
    """Search over any Quarto position of the instance's rules (below its root or not)."""

    evals = ("threats", "parity", "zero")
    slots = 1
    reads_no_store = "its exact endgame search (the endgame agent) needs none"
    #: log2 of the transposition table's rows (16 bytes each) for searches to the end.
    table_bits = 20

    def __init__(self, game):
        super().__init__(game)
        self.lines, self.through = line_tables(game.squares)
        self._no_table = (np.zeros((1, 2), dtype=np.int64), np.zeros((1, 2), dtype=np.int64))
        self._table: tuple[np.ndarray, np.ndarray] | None = None

    def slot(self, key):
        return 0

    def tiers_within(self, position, depth):
        return []

    @staticmethod
    def plies_left(position) -> int:
        """The most plies a game can still last from `position`."""
        cells, hand = position
        return cells.count(-1) + (hand < 0)

    def root_scores(self, position, depth, evaluation, *, seed, exact=False):
        """As `Search.root_scores`, for any Quarto position (one off the instance's root may have
        more moves than `game.max_moves`)."""
        depth = min(depth, self.plies_left(position))
        return self._scores(position, depth, self.evals.index(evaluation), exact, seed, self._no_table)

    def solve_scores(self, position, *, seed: int, exact: bool = False) -> np.ndarray:
        """Scores of the moves (game.moves order) by alpha-beta to the end of the game with a
        transposition table, kept across calls (its values do not depend on the root)."""
        if self._table is None:
            rows = 1 << self.table_bits
            self._table = (np.full((rows, 2), -1, dtype=np.int64), np.zeros((rows, 2), dtype=np.int64))
        return self._scores(position, self.plies_left(position), ZERO, exact, seed, self._table)

    def _scores(self, position, depth, evaluation, exact, seed, table) -> np.ndarray:
        scores = np.full(MAX_MOVES, UNKNOWN, dtype=np.int64)
        self.nodes = 0 if self.game.primitive(position) else self._run(position, depth, evaluation, exact, seed,
                                                                       table, scores)
        return scores[:np.count_nonzero(scores != UNKNOWN)]

    def _run(self, position, depth, evaluation, exact, seed, table, scores):
        """`table`: the transposition table (keys, values), or one-row arrays for none."""
        return int(search(self.lines, self.through, evaluation, *encode(position), depth, exact, np.uint64(seed),
                          *table, scores))
