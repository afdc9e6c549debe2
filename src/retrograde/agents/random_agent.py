"""The random agent: a uniformly random legal move (a baseline and a test opponent)."""

import numpy as np

from retrograde.agents.base import Player
from retrograde.games.capabilities import uniform
from retrograde.search.scores import RANDOM, UNKNOWN


class RandomAgent(Player):
    name = "random"
    summary = "a uniformly random legal move"

    def kernel_agent(self):
        return RANDOM

    def choose_scored(self, rows, exact):
        """`choose` at many positions: one draw a position among its moves."""
        return np.array([self.rng.integers(count) for count in (exact != UNKNOWN).sum(axis=1).tolist()],
                        dtype=np.int64)

    def choose(self, position):
        moves = self.game.moves(position)
        return moves[int(self.rng.integers(len(moves)))]

    def move_distribution(self, position):
        return uniform(self.game.moves(position))
