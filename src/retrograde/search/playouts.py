"""Compact-state rules for random playouts: what a game's `playouts` hook gives (for `mcts`).

A state is two int64 (a, b) of the game's choosing (a board game: the cells of the side to move
and of its opponent). A game gives three numba kernels over the arrays `params`, `table` and
`lines` (their meaning is the game's own), compiled with the signatures below so that the
kernels that call them, `playout` here and the agents' search, take them as first-class
functions and still come from numba's cache:

* `terminal(params, table, lines, a, b)`: WIN, LOSS or DRAW for the side to move at a terminal
  state, else 0;
* `children(params, table, lines, a, b, out_a, out_b)`: the children of a non-terminal state in
  `game.moves` order, written into out_a/out_b (each child from its own mover's view); returns
  how many;
* `random_child(params, table, lines, a, b)`: a uniformly random child of a non-terminal state,
  drawn from numba's generator.

A game that gives no playout rules plays out with the generic ones (`playouts_of`), built from its
`moves` and `primitive`: a state is the number of a position met since the search began, and
the kernels ask the plain-Python rules for it (slow, but any game plays `mcts`).

Randomness: the kernels draw from numba's generator, which is per thread and separate from
numpy's; a caller seeds it inside a kernel with `np.random.seed(seed)` (`seed_rng`) from a
seed drawn from its agent's `rng`, so that the same agent seed gives the same playouts.
"""

from __future__ import annotations

import functools
import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import objmode, types
from numba.core.types import FunctionType

from retrograde.jit import njit
from retrograde.outcome import DRAW, LOSS, WIN

_STATE = (types.int64[::1], types.int64[:, ::1], types.int64[::1], types.int64, types.int64)
#: The signatures of a game's playout kernels (compile them with `njit(SIGNATURE)`).
TERMINAL = types.int64(*_STATE)
CHILDREN = types.int64(*_STATE, types.int64[::1], types.int64[::1])
RANDOM_CHILD = types.UniTuple(types.int64, 2)(*_STATE)
#: The kernels as arguments of the kernels that call them.
TERMINAL_FN, CHILDREN_FN, RANDOM_CHILD_FN = FunctionType(TERMINAL), FunctionType(CHILDREN), FunctionType(RANDOM_CHILD)


@dataclass(frozen=True)
class Playouts:
    """A game instance's playout kernels, the arrays they read, and `encode`: a position's (a, b)."""

    terminal: Callable
    children: Callable
    random_child: Callable
    params: np.ndarray
    table: np.ndarray
    lines: np.ndarray
    encode: Callable[[object], tuple[int, int]]

    @classmethod
    def of(cls, terminal, children, random_child, encode, *, params=(), table=None, lines=()) -> Playouts:
        """Playouts over int64 arrays made from `params`, `table` (2-D) and `lines`."""
        return cls(terminal, children, random_child, np.ascontiguousarray(params, dtype=np.int64),
                   np.ascontiguousarray(np.zeros((0, 1)) if table is None else table, dtype=np.int64),
                   np.ascontiguousarray(lines, dtype=np.int64), encode)

    @property
    def kernels(self) -> tuple:
        """(terminal, children, random_child, params, table, lines): the arguments the kernels take."""
        return self.terminal, self.children, self.random_child, self.params, self.table, self.lines


def marks_state(position) -> tuple[int, int]:
    """The state of a position held as the masks (xs, os) of a game where x moves first and each
    move adds one mark: (the side to move's marks, the opponent's)."""
    xs, os = position
    return (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)


@njit
def seed_rng(seed):
    """Seed numba's generator of the calling thread."""
    np.random.seed(seed)


@njit(types.UniTuple(types.int64, 2)(TERMINAL_FN, RANDOM_CHILD_FN, *_STATE, types.int64, types.int64[:, ::1]))
def playout(terminal, random_child, params, table, lines, a, b, max_plies, trace):
    """Play uniformly random moves from (a, b) until a terminal state or `max_plies` moves
    (then a draw). Returns (outcome for the side to move at (a, b), plies played). When
    `trace` has rows, trace[p] receives the state after p moves (trace[0] the start)."""
    if trace.shape[0] > 0:
        trace[0, 0], trace[0, 1] = a, b
    for ply in range(max_plies + 1):
        result = terminal(params, table, lines, a, b)
        if result != 0:
            if ply % 2 == 1 and result != DRAW:
                result = WIN + LOSS - result
            return result, ply
        if ply == max_plies:
            break
        a, b = random_child(params, table, lines, a, b)
        if trace.shape[0] > ply + 1:
            trace[ply + 1, 0], trace[ply + 1, 1] = a, b
    return np.int64(DRAW), np.int64(max_plies)


class _Met:
    """The positions a generic playout search has met, numbered in the order met: state (n, 0)
    is the n-th. `encode` starts a new search (a root's number is 0), so the table holds one
    search's positions at a time."""

    def __init__(self, game):
        self.game = game
        self.positions: list = []
        self.numbers: dict = {}

    def number(self, position) -> int:
        found = self.numbers.get(position)
        if found is None:
            found = self.numbers[position] = len(self.positions)
            self.positions.append(position)
        return found

    def encode(self, position) -> tuple[int, int]:
        self.positions.clear()
        self.numbers.clear()
        return self.number(position), 0

    def terminal(self, a: int) -> int:
        return self.game.primitive(self.positions[a])

    def children(self, a: int, out_a: np.ndarray, out_b: np.ndarray) -> int:
        moves = self.game.moves(self.positions[a])
        for j, (_, child) in enumerate(moves):
            out_a[j], out_b[j] = self.number(child), 0
        return len(moves)


#: The tables of the generic playouts alive, by the key their `params[0]` holds.
_MET: weakref.WeakValueDictionary[int, _Met] = weakref.WeakValueDictionary()
_KEYS = itertools.count()


@functools.cache
def _generic_kernels() -> tuple:
    """The generic playout kernels, compiled when a game first needs them (they call back into
    Python, so numba can neither cache them on disk nor release the interpreter's lock)."""

    @njit(TERMINAL, nogil=False, cache=False)
    def terminal(params, table, lines, a, b):
        with objmode(result="int64"):
            result = _MET[params[0]].terminal(a)
        return result

    @njit(CHILDREN, nogil=False, cache=False)
    def children(params, table, lines, a, b, out_a, out_b):
        with objmode(count="int64"):
            count = _MET[params[0]].children(a, out_a, out_b)
        return count

    @njit(RANDOM_CHILD, nogil=False, cache=False)
    def random_child(params, table, lines, a, b):
        out_a = np.empty(params[1], dtype=np.int64)
        out_b = np.empty(params[1], dtype=np.int64)
        count = children(params, table, lines, a, b, out_a, out_b)
        pick = np.random.randint(count)
        return out_a[pick], out_b[pick]

    return terminal, children, random_child


def playouts_of(game) -> Playouts:
    """The game's playout rules (its `playouts` capability), or the generic ones built from its
    `moves` and `primitive` where it gives none."""
    rules = game.playouts
    if rules is not None:
        return rules
    met, key = _Met(game), next(_KEYS)
    _MET[key] = met
    return Playouts.of(*_generic_kernels(), met.encode, params=(key, game.max_moves))
