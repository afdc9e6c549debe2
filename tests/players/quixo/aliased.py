"""Greedy Quixo player (course API) that imports the course's code from a private copy under
another name (`quixo_course.py`): measured with `alias=quixo_course`, our served module stands
in for that copy."""

from quixo_course import Player
from utils import greedy_choice


class AliasedGreedy(Player):
    def make_move(self, game):
        return greedy_choice(game, game.get_current_player())
