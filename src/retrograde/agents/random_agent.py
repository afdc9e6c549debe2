"""The random agent: a uniformly random legal move (a baseline and a test opponent)."""

from retrograde.agents.base import Agent


class RandomAgent(Agent):
    name = "random"
    summary = "a uniformly random legal move"

    def choose(self, position):
        moves = self.game.moves(position)
        return moves[int(self.rng.integers(len(moves)))]
