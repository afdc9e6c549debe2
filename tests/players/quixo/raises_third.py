"""Quixo player (course API) that plays greedily and raises at its third move (a bug that
shows late): each such move is a forfeit (exception), and the run goes on."""

from game import Player
from utils import greedy_choice


class RaisesOnThird(Player):
    def __init__(self):
        super().__init__()
        self.moves = 0

    def make_move(self, game):
        self.moves += 1
        if self.moves == 3:
            raise ValueError("no idea what to do at move 3")
        return greedy_choice(game, game.get_current_player())
