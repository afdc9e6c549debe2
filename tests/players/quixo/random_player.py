"""Random Quixo player (course API): any cell, any slide; it relies on the course loop asking
again until the move is acceptable."""

import random

from game import Move, Player


class RandomPlayer(Player):
    def make_move(self, game):
        last = game.get_board().shape[0] - 1
        return (random.randint(0, last), random.randint(0, last)), random.choice(list(Move))
