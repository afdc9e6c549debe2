"""The minimax agent: alpha-beta (negamax) to a chosen depth with the game's own evaluations.

The search is the game's (its `search` hook: numba kernels over the game's compact boards, with
the course reports' evaluations and move ordering). Decided positions score +-(large constant -
plies), so the agent takes the fastest win it sees and delays a loss. With `tablebase=1` and a
solved store, the search takes the stored value of every position below the root whose tier the
store holds instead of searching it: at depth 1 that is perfect play. Without it the search
ignores any store it is handed, so that `validate` and `match --store` measure the search itself.

`adaptive=1` plays the game's variable-depth rule (`Search.adaptive_depth`, where the game has
one): a move that wins at once is played without search; else the rule's depth, within 1..depth.

Ties: equally ordered moves are searched in random order, and the move is drawn uniformly
among the best-scored ones, all from the agent's seeded generator; `ties=first` plays the first
best-scored move in the game's move order instead, as report 001's minimax did, so that two such
agents replay one game (4x4: depth 2 against itself is a draw by the ply cap every time).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from retrograde.agents.base import Player
from retrograde.errors import BadAgent
from retrograde.search.scores import WIN_SCORE, pick_best
from retrograde.spec import Option

#: The `eval` option as every game shares it; `options_for` gives it the game's own choices.
EVAL = Option("eval", "leaf evaluation: one of the game's own, its default first (listed per game); "
                      "zero (decided positions only) for every game", None, kind="text")


def make_search(agent: Player, evaluation: str | None):
    """The game's search and the evaluation to use: `evaluation`, or the game's default when None."""
    search = agent.game.search
    return search, evaluation or search.evals[0]


def cannot_search(game) -> str | None:
    """Why no search plays `game`, or None."""
    return None if game.search is not None else "the game gives no search (its `search` capability)"


def with_game_evals(options: tuple[Option, ...], game) -> tuple[Option, ...]:
    """`options` with `eval` choosing among the game's own evaluations."""
    evals = game.search.evals
    return tuple(replace(option, kind="choice", choices=evals,
                         help=f"leaf evaluation: {evals[0]} (default), {', '.join(evals[1:])}")
                 if option.name == "eval" else option for option in options)


class MinimaxAgent(Player):
    name = "minimax"
    summary = "alpha-beta search to a fixed depth with the game's evaluations; tablebase=1 reads a store's values"
    options = (
        Option("depth", "plies searched", 2, low=1, high=16),
        EVAL,
        Option("adaptive", "1: the game's variable-depth rule (take a win at once, else the rule's depth "
                           "within 1..depth)", 0, low=0, high=1),
        Option("tablebase", "1: take exact values from the solved store (--store) at the positions it holds, "
                            "inside the search", 0, low=0, high=1),
        Option("ties", "random: a best move drawn by the seed; first: the first best move in the game's move "
                       "order (as report 001's code played: equal games replay one game)", "random",
               kind="choice", choices=("random", "first")),
    )

    def __init__(self, game, *, seed: int, store=None, depth: int = 2, eval: str | None = None,
                 adaptive: int = 0, tablebase: int = 0, ties: str = "random"):
        store = store if tablebase else None
        if tablebase and store is None:
            raise BadAgent("agent 'minimax': tablebase=1 reads a solved store: give one with --store PATH")
        super().__init__(game, seed=seed, store=store)
        if store is not None and (store.game.name, store.game.rules) != (game.name, game.rules):
            raise BadAgent(f"agent 'minimax': store {str(store.path)!r} holds {store.game.describe()}, "
                           f"not {game.describe()}")
        self.depth = int(depth)
        self.adaptive = bool(adaptive)
        self.first_of_ties = ties == "first"
        self.search, self.evaluation = make_search(self, eval)
        if self.adaptive and self.search.variable_depth is None:
            raise BadAgent(f"agent 'minimax': adaptive=1: {game.name} has no variable-depth rule")
        if store is not None:
            if self.search.reads_no_store:
                raise BadAgent(f"agent 'minimax': tablebase=1: {game.name}'s search reads no store "
                               f"({self.search.reads_no_store})")
            from retrograde.data.tablebase import StoreTablebase

            self.search.tablebase = StoreTablebase.for_search(self.search, store)
        #: Nodes visited while choosing the last move.
        self.nodes = 0

    @classmethod
    def options_for(cls, game):
        return with_game_evals(cls.options, game)

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
                return moves[self._best(scores)]
            depth = self.search.adaptive_depth(position, self.depth)
        return moves[self._best(self._scores(position, depth))]

    def _best(self, scores) -> int:
        """The move number played among the highest scores (by `ties`)."""
        return int(np.argmax(scores)) if self.first_of_ties else pick_best(scores, self.rng)

    def _scores(self, position, depth: int):
        seed = int(self.rng.integers(1 << 63))
        scores = self.search.root_scores(position, depth, self.evaluation, seed=seed)
        self.nodes += self.search.nodes
        return scores
