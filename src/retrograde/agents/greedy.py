"""The greedy agent: one ply with tactics (SPEC §6's greedy baseline).

It plays a move that wins at once if there is one; it never plays a move after which the
opponent can win at once while another move avoids that; among the rest it plays the move
whose resulting position the game's default evaluation (its search's first) likes best, ties
at random.

Both checks are the minimax kernels': each move's exact value 2 plies deep with the `zero`
evaluation (a decided position within 2 plies, else 0), then each undecided move's value
1 ply deep with the default evaluation.
"""

from __future__ import annotations

import numpy as np

from retrograde.agents.base import Player
from retrograde.agents.minimax import cannot_search, make_search
from retrograde.search.scores import GREEDY, pick_best, pick_best_rows


class GreedyAgent(Player):
    name = "greedy"
    summary = "one ply: a win now, never a move the opponent can answer with a win, else the best evaluation"

    def __init__(self, game, *, seed: int, store=None):
        super().__init__(game, seed=seed, store=store)
        self.search, self.evaluation = make_search(self, None)

    @classmethod
    def cannot_play(cls, game):
        return cannot_search(game)

    def scores(self, position) -> np.ndarray:
        """Each move's score (game.moves order): decided within 2 plies, else its evaluation."""
        seed = int(self.rng.integers(1 << 63))
        tactics = self.search.root_scores(position, 2, "zero", seed=seed, exact=True)
        heuristic = self.search.root_scores(position, 1, self.evaluation, seed=seed, exact=True)
        return np.where(tactics != 0, tactics, heuristic)

    def choose(self, position):
        return self.game.moves(position)[pick_best(self.scores(position), self.rng)]

    def kernel_agent(self):
        return GREEDY

    def choose_scored(self, rows, exact):
        """`choose` at many positions: both searches' scores at all of them in kernels
        (`Search.greedy_many`; exact, so the seed each draws does not change them), the draws as
        `choose`'s."""
        from retrograde.search.base import Search  # numba: imported once the agent plays, not when listed

        if type(self.search).rows_at is Search.rows_at:
            return None
        return pick_best_rows(self.search.greedy_many(rows, self.evaluation), self.rng, seeds=True)
