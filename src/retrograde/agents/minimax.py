"""The minimax agent: alpha-beta (negamax) to a chosen depth with the seeds' evaluations.

The search runs in numba kernels (`agents.search`): Quixo over bitboards with seed 001's
N**Cmax - N**Omax (`eval=cmax`) or seed 004's Cmax - Omax (`eval=inline`) and seed 004's
move ordering; tic-tac-toe over x/o masks (`eval=lines`); Nim over heap vectors with the
bound k, normal or misère (`eval=zero` or `parity`). Decided positions score
+-(large constant - plies), so the agent takes the fastest win it sees and delays a loss.
With `tablebase=1` and a solved store, the search takes the stored value of every position
below the root whose tier the store holds instead of searching it: at depth 1 that is perfect
play. Without it the search ignores any store it is handed, so that `validate` and `match
--store` measure the search itself.

`adaptive=1` (Quixo) is seed 004's variable depth: a move that wins at once is played
without search; else the depth is min(|C - O| + 1, O), C and O the most cubes of the side
to move / of the opponent in one line, kept within 1..depth.

Ties: equally ordered moves are searched in random order, and the move is drawn uniformly
among the best-scored ones, all from the agent's seeded generator.
"""

from __future__ import annotations

import numpy as np

from retrograde.agents.base import Agent
from retrograde.agents.search import search_class
from retrograde.agents.search.base import WIN_SCORE, Search
from retrograde.agents.spec import Option
from retrograde.errors import BadAgent

#: Every evaluation some game has (`eval=` checks the game's own list when the agent is built).
EVALS = ("cmax", "inline", "lines", "zero", "parity", "threats")


def make_search(agent: Agent, evaluation: str | None, store=None) -> tuple[Search, str]:
    """The game's search (probing `store` if given) and the evaluation to use: `evaluation`,
    or the game's default when None. :raises BadAgent: the game has no such evaluation."""
    search = search_class(agent.game)(agent.game, store)
    if evaluation is None:
        return search, search.evals[0]
    if evaluation not in search.evals:
        raise BadAgent(f"agent {agent.name!r}: eval={evaluation} is not defined for {agent.game.name}; "
                       f"its evals: {search.evals[0]} (default), {', '.join(search.evals[1:])}")
    return search, evaluation


def pick_best(scores: np.ndarray, rng: np.random.Generator) -> int:
    """A move number drawn uniformly among the highest scores."""
    best = np.flatnonzero(scores == scores.max())
    return int(best[rng.integers(len(best))])


def cannot_search(game) -> str | None:
    """Why no search kernel plays `game`, or None."""
    return None if search_class(game) else "there is a search kernel for nim, tictactoe, quixo and quarto only"


class MinimaxAgent(Agent):
    name = "minimax"
    summary = "alpha-beta search to a fixed depth with the seeds' evaluations; tablebase=1 reads a store's values"
    options = (
        Option("depth", "plies searched", 2, low=1, high=16),
        Option("eval", "leaf evaluation: quixo cmax (default) or inline, tictactoe lines (default), "
                       "nim zero (default) or parity, quarto threats (default) or parity; "
                       "zero (decided positions only) for every game",
               None, kind="choice", choices=EVALS),
        Option("adaptive", "1: seed 004's variable depth for quixo (take a win at once, else depth "
                           "min(|C-O|+1, O) within 1..depth)", 0, low=0, high=1),
        Option("tablebase", "1: take exact values from the solved store (--store) at the positions it holds, "
                            "inside the search", 0, low=0, high=1),
    )

    def __init__(self, game, *, seed: int, store=None, depth: int = 2, eval: str | None = None,
                 adaptive: int = 0, tablebase: int = 0):
        store = store if tablebase else None
        if tablebase and store is None:
            raise BadAgent("agent 'minimax': tablebase=1 reads a solved store: give one with --store PATH")
        super().__init__(game, seed=seed, store=store)
        if store is not None and (store.game.name, store.game.rules) != (game.name, game.rules):
            raise BadAgent(f"agent 'minimax': store {str(store.path)!r} holds {store.game.describe()}, "
                           f"not {game.describe()}")
        if adaptive and game.name != "quixo":
            raise BadAgent(f"agent 'minimax': adaptive=1 is seed 004's Quixo rule; {game.name} has none")
        self.depth = int(depth)
        self.adaptive = bool(adaptive)
        self.search, self.evaluation = make_search(self, eval, store)
        #: Nodes visited while choosing the last move.
        self.nodes = 0

    @classmethod
    def cannot_play(cls, game):
        return cannot_search(game)

    def choose(self, position):
        moves = self.game.moves(position)
        self.nodes = 0
        depth = self.depth
        if self.adaptive:
            scores = self._scores(position, 1)
            if scores.max() == WIN_SCORE - 1:
                return moves[pick_best(scores, self.rng)]
            own, other = self.search.longest_lines(position)
            depth = max(1, min(abs(own - other) + 1, other, self.depth))
        return moves[pick_best(self._scores(position, depth), self.rng)]

    def _scores(self, position, depth: int) -> np.ndarray:
        seed = int(self.rng.integers(1 << 63))
        scores = self.search.root_scores(position, depth, self.evaluation, seed=seed)
        self.nodes += self.search.nodes
        return scores
