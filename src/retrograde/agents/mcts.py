"""The mcts agent: Monte Carlo tree search with UCT and uniformly random playouts.

The whole search runs in one numba kernel over flat arrays (`uct_visits`), on the compact
rules the game gives for playouts (its `playouts` capability, `search.playouts`), or on the
generic rules built from its `moves` and `primitive` where it gives none. Each
iteration walks down the tree choosing, at every expanded node, its decisive move if it
has one (a move that wins at once is always taken: "decisive moves", Teytaud & Teytaud
2010), else an unvisited child at random, else the child maximising
mean reward + c * sqrt(ln N(parent) / N(child)). It expands the first node it reaches
that has no children yet (all its children at once), steps to its decisive child or a
random one, and plays a random game from there (`search.playouts.playout`; a playout of
`max_playout` plies counts as a draw). The result (+1 win, 0 draw, -1 loss) goes back up
the path, each node scoring it for the side that moved into it. The agent plays the root
move visited most, ties broken by its rng.

Nodes hold their state, so the tree takes 53 bytes a node and at most
1 + iterations x (most moves of a position) nodes: 2.3 MB a move at the default 1,000
iterations on 5x5 Quixo, 230 MB at 100,000, the most `iterations` allows. Numba's
generator is seeded in the kernel from a 32-bit seed the agent draws from its rng (see
`search.playouts`), so the same agent seed gives the same searches.
"""

from __future__ import annotations

import numpy as np
from numba import types

from retrograde.agents.base import Player
from retrograde.games.base import Game
from retrograde.jit import njit
from retrograde.outcome import LOSS, WIN
from retrograde.search.playouts import CHILDREN_FN, RANDOM_CHILD_FN, TERMINAL_FN, playout, playouts_of, seed_rng
from retrograde.spec import Option


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


class MctsAgent(Player):
    name = "mcts"
    summary = "Monte Carlo tree search (UCT) with random playouts run in numba"
    options = (
        Option("iterations", "search iterations (playouts) per move", 1000, kind="int", low=1, high=100_000),
        Option("c", "UCT exploration constant", 1.4, kind="float", low=0, high=100),
        Option("max_playout", "plies a playout may last; one that runs out counts as a draw", 200,
               kind="int", low=1, high=100_000),
    )

    def __init__(self, game: Game, *, seed: int, store=None, iterations: int = 1000, c: float = 1.4,
                 max_playout: int = 200):
        super().__init__(game, seed=seed, store=store)
        self.iterations = int(iterations)
        self.c = float(c)
        self.max_playout = int(max_playout)
        self.playouts = playouts_of(game)

    def root_visits(self, position) -> np.ndarray:
        """Visit counts of the moves of `position` (in `game.moves` order) after one search."""
        a, b = self.playouts.encode(position)
        return uct_visits(*self.playouts.kernels, a, b, self.iterations, self.c, self.max_playout,
                          self.game.max_moves, int(self.rng.integers(2**32)))

    def choose(self, position):
        moves = self.game.moves(position)
        if len(moves) == 1:
            return moves[0]
        visits = self.root_visits(position)
        best = np.flatnonzero(visits == visits.max())
        return moves[int(best[self.rng.integers(len(best))])]
