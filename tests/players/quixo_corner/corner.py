"""Quixo player (course API) that answers the first acceptable move in its own preference
order (corners first; slides in Move's order), trying each on a deep copy of the game."""

from copy import deepcopy

from game import Move, Player
from utils import preferred_cells


class CornerFirst(Player):
    def make_move(self, game):
        me = game.get_current_player()
        for from_pos in preferred_cells(game.get_board().shape[0]):
            for slide in Move:
                if deepcopy(game)._Game__move(from_pos, slide, me):
                    return from_pos, slide
