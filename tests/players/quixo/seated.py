"""Greedy Quixo player (course API) that is told its seat by a constructor keyword and plays
as that player id (`python:...,seat=player_index`), as course players built for one seat do."""

from game import Player
from utils import greedy_choice


class Seated(Player):
    def __init__(self, player_index):
        super().__init__()
        self.player_index = player_index

    def make_move(self, game):
        return greedy_choice(game, self.player_index)
