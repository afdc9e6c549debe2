"""The mcts agent: Monte Carlo tree search with UCT and uniformly random playouts.

The whole search runs in one numba kernel over flat arrays (`mcts_kernels.uct_visits`, imported
when the agent first searches, so that listing the agents loads no numba), on the compact
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

from retrograde.agents.base import Player
from retrograde.games.base import Game
from retrograde.spec import Option


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
        from retrograde.search.playouts import playouts_of

        self.playouts = playouts_of(game)
        self.kernels = None  # the playout kernels resolved (`mcts_kernels.resolved`) at the first search

    def root_visits(self, position) -> np.ndarray:
        """Visit counts of the moves of `position` (in `game.moves` order) after one search."""
        from retrograde.agents.mcts_kernels import resolved, uct_visits

        if self.kernels is None:
            self.kernels = resolved(self.playouts)
        a, b = self.playouts.encode(position)
        return uct_visits(*self.kernels, a, b, self.iterations, self.c, self.max_playout,
                          self.game.max_moves, int(self.rng.integers(2**32)))

    def choose(self, position):
        moves = self.game.moves(position)
        if len(moves) == 1:
            return moves[0]
        visits = self.root_visits(position)
        best = np.flatnonzero(visits == visits.max())
        return moves[int(best[self.rng.integers(len(best))])]
