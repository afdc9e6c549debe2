"""Greedy Quixo player (course API) that prints its board and move at every move, as students
debug: the prints go to the agent's log, never into retrograde's output."""

import sys

from game import Player
from utils import greedy_choice


class Chatty(Player):
    def __init__(self):
        super().__init__()
        self.moves = 0

    def make_move(self, game):
        self.moves += 1
        choice = greedy_choice(game, game.get_current_player())
        print(f"chatty move {self.moves}: board {game.get_board().tolist()} -> {choice}")
        print(f"chatty thinks on stderr at move {self.moves}", file=sys.stderr)
        return choice
