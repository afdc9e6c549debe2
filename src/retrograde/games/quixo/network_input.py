"""Quixo as seed 001's Q network sees it: the N x N cells from the mover's view (+1 its cube,
-1 the opponent's, 0 blank), and one output for each (source, destination) move of the board,
in `game.moves` order (32 on 4x4, 44 on 5x5; the report's 4N outputs cannot tell every move apart).
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import NetworkInput

_VIEW = {"x": {"x": 1.0, "o": -1.0, ".": 0.0}, "o": {"x": -1.0, "o": 1.0, ".": 0.0}}


class QuixoNetworkInput(NetworkInput):
    def __init__(self, game):
        self.game = game
        self.inputs = game.cells
        self.sources = [source for source, _, _ in game._all_moves]
        self.actions = len(self.sources)

    def __call__(self, position):
        cells, side = position
        other = "o" if side == "x" else "x"
        view = _VIEW[side]
        x = np.array([view[cell] for cell in cells], dtype=np.float32)
        actions = np.array([action for action, source in enumerate(self.sources) if cells[source] != other])
        return self.game.moves(position), x, actions
