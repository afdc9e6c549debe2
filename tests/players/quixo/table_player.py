"""Quixo player (course API) whose preferences are a pickled table of (from_pos, game.Move)
made offline (table.pkl in its folder, read at import time from the working directory): it
answers the first of them the course's `__move` accepts, else plays greedily."""

import pickle
from copy import deepcopy

from game import Player
from utils import greedy_choice

with open("table.pkl", "rb") as stored:
    PREFERENCES = pickle.load(stored)


class TablePlayer(Player):
    def make_move(self, game):
        me = game.get_current_player()
        for from_pos, slide in PREFERENCES:
            if deepcopy(game)._Game__move(from_pos, slide, me):
                return from_pos, slide
        return greedy_choice(game, me)
