"""Greedy Quixo player (course API): the move after which its longest line is longest, a win
first and never a move that finishes the opponent's line where another move exists."""

from game import Player
from utils import greedy_choice


class Greedy(Player):
    def make_move(self, game):
        return greedy_choice(game, game.get_current_player())
