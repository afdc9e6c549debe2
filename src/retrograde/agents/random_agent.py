"""The random agent: a uniformly random legal move (a baseline and a test opponent)."""

from retrograde.agents.base import Player
from retrograde.search.scores import RANDOM


class RandomAgent(Player):
    name = "random"
    summary = "a uniformly random legal move"

    def kernel_agent(self):
        return RANDOM

    def choose(self, position):
        moves = self.game.moves(position)
        return moves[int(self.rng.integers(len(moves)))]
