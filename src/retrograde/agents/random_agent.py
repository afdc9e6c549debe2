"""The random agent: a uniformly random legal move (a baseline and a test opponent)."""

from retrograde.agents.base import Player


class RandomAgent(Player):
    name = "random"
    summary = "a uniformly random legal move"

    def choose(self, position):
        moves = self.game.moves(position)
        return moves[int(self.rng.integers(len(moves)))]
