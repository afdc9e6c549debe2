"""The mcts agent's numba kernels (`agents.mcts`): UCT over flat arrays with random playouts.
Module-level functions, so that numba caches them; the agent imports them when it is built."""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.types import FunctionType
from numba.core.types.function_type import WrapperAddressProtocol
from numba.core.typing.typeof import typeof_impl
from numba.experimental.function_type import _get_wrapper_address

from retrograde.jit import njit
from retrograde.outcome import LOSS, WIN
from retrograde.search.playouts import (CHILDREN, CHILDREN_FN, RANDOM_CHILD, RANDOM_CHILD_FN, TERMINAL, TERMINAL_FN,
                                        playout, seed_rng)


class Resolved(WrapperAddressProtocol):
    """A playout kernel as `uct_visits` takes it, its compiled code looked up once. Given the
    jitted function itself, numba looks its code up again at every call (0.4 ms, a fifth of a
    500-iteration move on 4x4 Quixo); given this, it reads the address and type kept here. A
    copy in another process looks the code up there (`__reduce__`)."""

    def __init__(self, kernel, signature):
        self.kernel = kernel  # holds the compiled code the address points into
        self.type = FunctionType(signature)
        self.address = _get_wrapper_address(kernel, signature)

    def __wrapper_address__(self) -> int:
        return self.address

    def signature(self):
        return self.type.signature

    def __reduce__(self):
        return Resolved, (self.kernel, self.type.signature)


@typeof_impl.register(Resolved)
def _typeof_resolved(value, context):
    """The kept type: numba would build a FunctionType of the signature at every call."""
    return value.type


def resolved(playouts) -> tuple:
    """`playouts.kernels` (`search.playouts.Playouts`) with its three kernels `Resolved`."""
    terminal, children, random_child, *arrays = playouts.kernels
    return (Resolved(terminal, TERMINAL), Resolved(children, CHILDREN), Resolved(random_child, RANDOM_CHILD),
            *arrays)


@njit
def _select(first, count, decisive, visits, total, node, c):
    """The child of an expanded node to descend to: its decisive move if it has one, else
    an unvisited child at random, else the best by UCT."""
    if decisive[node] >= 0:
        return decisive[node]
    start, stop = first[node], first[node] + count[node]
    unvisited = 0
    for child in range(start, stop):
        if visits[child] == 0:
            unvisited += 1
    if unvisited:
        pick = np.random.randint(unvisited)
        for child in range(start, stop):
            if visits[child] == 0:
                if pick == 0:
                    return child
                pick -= 1
    log_parent = np.log(visits[node])
    best, chosen = -np.inf, start
    for child in range(start, stop):
        score = total[child] / visits[child] + c * np.sqrt(log_parent / visits[child])
        if score > best:
            best, chosen = score, child
    return chosen


@njit(types.int64[::1](TERMINAL_FN, CHILDREN_FN, RANDOM_CHILD_FN, types.int64[::1], types.int64[:, ::1],
                        types.int64[::1], types.int64, types.int64, types.int64, types.float64, types.int64,
                        types.int64, types.int64))
def uct_visits(terminal, children, random_child, params, table, lines, root_a, root_b, iterations, c, max_playout,
               width, seed):
    """Run `iterations` UCT iterations from the non-terminal state (root_a, root_b) of the game
    whose playout kernels are given (`search.playouts`) and return the visit count of each root
    move, in `game.moves` order. `width` bounds the number of moves of a position."""
    seed_rng(seed)
    capacity = 1 + iterations * width
    state_a = np.empty(capacity, dtype=np.int64)
    state_b = np.empty(capacity, dtype=np.int64)
    first = np.full(capacity, -1, dtype=np.int64)
    count = np.zeros(capacity, dtype=np.int32)
    decisive = np.full(capacity, -1, dtype=np.int64)  # a child lost at once by its mover
    result = np.zeros(capacity, dtype=np.int8)  # terminal outcome for the node's mover, else 0
    visits = np.zeros(capacity, dtype=np.float64)
    total = np.zeros(capacity, dtype=np.float64)  # rewards for the side that moved into the node
    path = np.empty(iterations + 2, dtype=np.int64)
    no_trace = np.empty((0, 2), dtype=np.int64)
    state_a[0], state_b[0] = root_a, root_b
    size = 1
    for _ in range(iterations):
        node, depth = 0, 0
        path[0] = 0
        while result[node] == 0:
            if first[node] < 0:
                n = children(params, table, lines, state_a[node], state_b[node], state_a[size:], state_b[size:])
                for child in range(size, size + n):
                    result[child] = terminal(params, table, lines, state_a[child], state_b[child])
                    if result[child] == LOSS and decisive[node] < 0:
                        decisive[node] = child
                first[node], count[node] = size, n
                size += n
                node = decisive[node] if decisive[node] >= 0 else first[node] + np.random.randint(n)
                depth += 1
                path[depth] = node
                break
            node = _select(first, count, decisive, visits, total, node, c)
            depth += 1
            path[depth] = node
        outcome = np.int64(result[node])
        if outcome == 0:
            outcome, _ = playout(terminal, random_child, params, table, lines, state_a[node], state_b[node],
                                 max_playout, no_trace)
        reward = 1.0 if outcome == LOSS else -1.0 if outcome == WIN else 0.0
        for d in range(depth, -1, -1):
            visits[path[d]] += 1.0
            total[path[d]] += reward
            reward = -reward
    return visits[first[0]:first[0] + count[0]].astype(np.int64)
