"""Quixo player (course API) that thinks for an hour: every move ends in a forfeit (timeout)."""

import time

from game import Player


class Sleeper(Player):
    def make_move(self, game):
        time.sleep(3600)
