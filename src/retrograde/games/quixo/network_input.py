"""Quixo as a Q network sees it: the N x N cells from the mover's view (+1 its cube, -1 the
opponent's, 0 blank), and one of two output layers (`LAYERS`):

* `move` (ours, the default): one output for each (source, destination) move of the board, in
  `game.moves` order (32 on 4x4, 44 on 5x5);
* `line` (report 001's: its text says "an output layer with 4·N neurons"; what each output is comes
  from its code, quixo_deep_q_learning.py in the repository the report names, not printed in the
  report): 4N outputs, each a cube taken from one end of a row or column and pushed in at the
  other end. Output d*N + i, d = 0..3: the cube of the bottom row's column i pushed in at the top,
  the top row's pushed in at the bottom, the right column's row i pushed in at the left, the left
  column's pushed in at the right. A middle border cube pushed along its own edge (a2-a1 on
  4x4: 16 of 32 moves, 24 of 44 on 5x5) has no output and is never played: report 001's own
  game accepted no such move. Its agent plays the legal output of highest Q (its code walks the
  outputs from the highest down to the first legal one); every border cell is the source of an
  output, so a position whose mover has any move has one of these.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from retrograde.games.capabilities import NetworkInput

_VIEW = {"x": {"x": 1.0, "o": -1.0, ".": 0.0}, "o": {"x": -1.0, "o": 1.0, ".": 0.0}}

#: The output layers, by name: what one output is.
LAYERS = {"move": "one output per move (ours)",
          "line": "report 001's 4N outputs, a cube pushed from one end of its row or column to the other"}


class QuixoNetworkInput(NetworkInput):
    """The board from the mover's view and the moves that `layer`'s outputs name, in `game.moves` order."""

    def __init__(self, game, layer: str = "move"):
        self.game = game
        self.layer = layer
        self.inputs = game.cells
        #: output index of each move text the layer names
        self.output_of = {text: action for action, text in enumerate(self._outputs(layer))}
        self.actions = len(self.output_of)

    def _outputs(self, layer: str) -> list[str]:
        """The move text of each output of `layer`."""
        game, n = self.game, self.game.size
        if layer == "move":
            return [text for _, text, _ in game._all_moves]
        ends = [((n - 1) * n + i, i) for i in range(n)] + [(i, (n - 1) * n + i) for i in range(n)] \
            + [(i * n + n - 1, i * n) for i in range(n)] + [(i * n, i * n + n - 1) for i in range(n)]
        return [f"{game.cell_name(source)}-{game.cell_name(dest)}" for source, dest in ends]

    @cached_property
    def layers(self) -> dict[str, QuixoNetworkInput]:
        """This input with each output layer of `LAYERS`, by name."""
        return {name: self if name == self.layer else QuixoNetworkInput(self.game, name) for name in LAYERS}

    def __call__(self, position):
        cells, side = position
        view = _VIEW[side]
        x = np.array([view[cell] for cell in cells], dtype=np.float32)
        moves = [move for move in self.game.moves(position) if move[0] in self.output_of]
        return moves, x, np.array([self.output_of[text] for text, _ in moves], dtype=np.int64)
