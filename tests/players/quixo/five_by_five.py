"""Quixo player (course API) written for the course's 5x5 board: it always takes the top-right
corner, (4, 0), and pushes it in at the bottom. On a smaller board that cell is off the board, so
every move ends in a forfeit (illegal), told as 5x5 coordinates."""

from game import Move, Player


class FiveByFive(Player):
    def make_move(self, game):
        return (4, 0), Move.BOTTOM
