"""Game rules on compact states for search agents, as numba kernels: terminal outcomes,
children in `game.moves` order, and uniformly random playouts (for `mcts`).

A state is two int64 (a, b):

* quixo, tictactoe: a = the cells of the side to move, b = the opponent's (bit r*N + c);
  a child is written from its own mover's view, so the two masks swap;
* nim: a = the heap vector in mixed radix (heap i times stride i, the product of
  H_j + 1 over the heaps j < i of the start position H; below 2**40 as Nim refuses
  larger instances), b = 0.

`SearchRules.of(game)` gathers what the kernels read: `rules` int64[4] (game kind, board
size N, nim take limit k, misère flag), `table` (quixo: `game.move_table`; nim: stride
and radix per heap) and `lines` (quixo: `game.line_masks`).

Randomness: the kernels draw from numba's generator, which is per thread and separate
from numpy's; a caller seeds it inside a kernel with `np.random.seed(seed)` (`seed_rng`)
from a seed drawn from its agent's `rng`, so that the same agent seed gives the same
playouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from retrograde.games.base import Game, Position
from retrograde.games.quixo.kernels import SOURCE, has_line, play
from retrograde.games.tictactoe.kernels import FULL
from retrograde.games.tictactoe.kernels import has_line as has_tictactoe_line
from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS, WIN

NIM, TICTACTOE, QUIXO = range(3)
KIND, SIZE, TAKE, MISERE = range(4)
#: The games these kernels play, by name.
KINDS = {"nim": NIM, "tictactoe": TICTACTOE, "quixo": QUIXO}


@dataclass(frozen=True)
class SearchRules:
    """The arrays the kernels read for one game instance, and the encoding of its positions."""

    game: Game
    rules: np.ndarray
    table: np.ndarray
    lines: np.ndarray

    @classmethod
    def of(cls, game: Game) -> SearchRules:
        """The rules of `game` (one of `KINDS`) for the kernels."""
        kind = KINDS[game.name]
        size = take = misere = 0
        table = np.zeros((0, 4), dtype=np.int64)
        lines = np.zeros(4, dtype=np.int64)
        if kind == NIM:
            radix = np.array(game.heaps, dtype=np.int64) + 1
            strides = np.concatenate(([1], np.cumprod(radix[:-1])))
            table = np.stack([strides, radix], axis=1).astype(np.int64)
            take = max(game.heaps) if game.max_take is None else game.max_take
            misere = int(game.misere)
        elif kind == QUIXO:
            size, table, lines = game.size, game.move_table, game.line_masks
        return cls(game, np.array([kind, size, take, misere], dtype=np.int64), table, lines)

    def encode(self, position: Position) -> tuple[int, int]:
        """The kernel state (a, b) of a position of the game."""
        kind = self.rules[KIND]
        if kind == NIM:
            return int(np.dot(np.asarray(position, dtype=np.int64), self.table[:, 0])), 0
        if kind == TICTACTOE:
            xs, os = position
            return (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
        return self.game._masks(position)


@njit
def seed_rng(seed):
    """Seed numba's generator of the calling thread."""
    np.random.seed(seed)


@njit
def terminal(rules, lines, a, b):
    """The outcome for the side to move at a terminal state (WIN, LOSS, DRAW), else 0."""
    kind = rules[KIND]
    if kind == NIM:
        if a == 0:
            return WIN if rules[MISERE] else LOSS
        return 0
    if kind == TICTACTOE:
        if has_tictactoe_line(b):
            return LOSS
        return DRAW if a | b == FULL else 0
    if has_line(a, rules[SIZE], lines):
        return WIN
    if has_line(b, rules[SIZE], lines):
        return LOSS
    return 0


@njit
def quixo_child(table, k, a, b):
    """The child of Quixo state (a, b) by move row k of the move table (see games.quixo.kernels)."""
    mover, opponent = play(table, k, a, b)
    return opponent, mover


@njit
def children(rules, table, lines, a, b, out_a, out_b):
    """Write the children of non-terminal state (a, b) into out_a/out_b in `game.moves`
    order; return how many."""
    kind = rules[KIND]
    j = 0
    if kind == NIM:
        for i in range(table.shape[0]):
            stride = table[i, 0]
            heap = (a // stride) % table[i, 1]
            for take in range(1, min(heap, rules[TAKE]) + 1):
                out_a[j] = a - take * stride
                out_b[j] = 0
                j += 1
    elif kind == TICTACTOE:
        for cell in range(9):
            if not (a | b) >> cell & 1:
                out_a[j] = b
                out_b[j] = a | (1 << cell)
                j += 1
    else:
        for k in range(table.shape[0]):
            if not b & table[k, SOURCE]:
                out_a[j], out_b[j] = quixo_child(table, k, a, b)
                j += 1
    return j


@njit
def random_child(rules, table, lines, a, b):
    """A uniformly random child of non-terminal state (a, b)."""
    kind = rules[KIND]
    if kind == NIM:
        count = 0
        for i in range(table.shape[0]):
            count += min((a // table[i, 0]) % table[i, 1], rules[TAKE])
        pick = np.random.randint(count)
        for i in range(table.shape[0]):
            takes = min((a // table[i, 0]) % table[i, 1], rules[TAKE])
            if pick < takes:
                return a - (pick + 1) * table[i, 0], 0
            pick -= takes
    if kind == TICTACTOE:
        free = 0
        for cell in range(9):
            if not (a | b) >> cell & 1:
                free += 1
        pick = np.random.randint(free)
        for cell in range(9):
            if not (a | b) >> cell & 1:
                if pick == 0:
                    return b, a | (1 << cell)
                pick -= 1
    # Quixo: a random row of the move table until its source is not the opponent's (a
    # non-terminal board always has one: a border all the opponent's holds its line).
    while True:
        k = np.random.randint(table.shape[0])
        if not b & table[k, SOURCE]:
            return quixo_child(table, k, a, b)


@njit
def playout(rules, table, lines, a, b, max_plies, trace):
    """Play uniformly random moves from (a, b) until a terminal state or `max_plies` moves
    (then a draw). Returns (outcome for the side to move at (a, b), plies played). When
    `trace` has rows, trace[p] receives the state after p moves (trace[0] the start)."""
    if trace.shape[0] > 0:
        trace[0, 0], trace[0, 1] = a, b
    for ply in range(max_plies + 1):
        result = terminal(rules, lines, a, b)
        if result != 0:
            if ply % 2 == 1 and result != DRAW:
                result = WIN + LOSS - result
            return result, ply
        if ply == max_plies:
            break
        a, b = random_child(rules, table, lines, a, b)
        if trace.shape[0] > ply + 1:
            trace[ply + 1, 0], trace[ply + 1, 1] = a, b
    return DRAW, max_plies
