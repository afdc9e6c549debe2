"""Tic-tac-toe as a Q network sees it: the nine cells from the mover's view (+1 its mark, -1 the
opponent's, 0 blank), and one output for each cell to mark.
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import NetworkInput
from retrograde.games.tictactoe.cells import CELLS


class TicTacToeNetworkInput(NetworkInput):
    inputs = CELLS
    actions = CELLS

    def __init__(self, game):
        self.game = game

    def __call__(self, position):
        xs, os = position
        mine, theirs = (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
        x = np.array([(mine >> cell & 1) - (theirs >> cell & 1) for cell in range(CELLS)], dtype=np.float32)
        actions = np.array([cell for cell in range(CELLS) if not (xs | os) >> cell & 1])
        return self.game.moves(position), x, actions
