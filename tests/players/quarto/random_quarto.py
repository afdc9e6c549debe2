"""Random Quarto player (course API, 2022-23): any piece, any cell; it relies on the course
loop asking again until the answer is acceptable."""

import random

import quarto


class RandomPlayer(quarto.Player):
    def __init__(self, quarto_game):
        super().__init__(quarto_game)

    def choose_piece(self):
        return random.randint(0, 15)

    def place_piece(self):
        return random.randint(0, 3), random.randint(0, 3)
