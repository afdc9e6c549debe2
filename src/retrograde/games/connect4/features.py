"""Board features of Connect Four afterstates: what the `ga` weights and the `rl` linear Q value.

For a position, every legal move (in `game.moves` order: columns left to right) is played and
the board after it described from the view of the side that moved ("own" = the mover's pieces,
"opp" = the opponent's), each feature scaled to [0, 1]:

* own/opp threats: empty cells that would complete a line of that side, / cells;
* own/opp playable threats: such cells a piece dropped now would take, / columns;
* own/opp lines of j, for j = 1..K-1: lines holding j pieces of that side and none of the
  other's, / lines;
* own/opp centre: pieces in the centre column (both middle ones on an even width), / their cells;
* filled: pieces on the board / cells.

Each move's value is known where the game ends with it: +1 a line of the mover's (a win), 0 the
last cell filled without one (a draw).
"""

from __future__ import annotations

import numpy as np

from retrograde.games.connect4.kernels import CONNECT, HEIGHT, STRIDE, WIDTH, has_line
from retrograde.games.connect4.search import completing
from retrograde.games.capabilities import Features
from retrograde.games.ranking_kernels import popcount
from retrograde.jit import njit

WINS, FILLS, GOES_ON = 1.0, 0.0, np.nan


def feature_names(connect: int) -> tuple[str, ...]:
    lines = [f"{side}_lines_{j}" for j in range(1, connect) for side in ("own", "opp")]
    return ("own_threats", "opp_threats", "own_playable_threats", "opp_playable_threats", *lines,
            "own_centre", "opp_centre", "filled")


@njit
def _describe(dims, board, bottom, centre, lines, own, opp, out):
    """Fill `out` with the features of the board (own, opp)."""
    filled = own | opp
    empty = board & ~filled
    playable = (filled + bottom) & board & ~filled
    own_threats = completing(own, empty, dims)
    opp_threats = completing(opp, empty, dims)
    out[0] = popcount(own_threats) / popcount(board)
    out[1] = popcount(opp_threats) / popcount(board)
    out[2] = popcount(own_threats & playable) / dims[WIDTH]
    out[3] = popcount(opp_threats & playable) / dims[WIDTH]
    connect = dims[CONNECT]
    for j in range(4, 4 + 2 * (connect - 1)):
        out[j] = 0.0
    for line in lines:
        mine, theirs = popcount(own & line), popcount(opp & line)
        if mine and not theirs and mine < connect:
            out[4 + 2 * (mine - 1)] += 1.0 / lines.shape[0]
        elif theirs and not mine and theirs < connect:
            out[5 + 2 * (theirs - 1)] += 1.0 / lines.shape[0]
    j = 4 + 2 * (connect - 1)
    out[j] = popcount(own & centre) / popcount(centre)
    out[j + 1] = popcount(opp & centre) / popcount(centre)
    out[j + 2] = popcount(filled) / popcount(board)


@njit
def afterstates(dims, board, bottom, centre, lines, mover, opponent, features, exact):
    """Play every legal move of (mover, opponent); for the j-th, features[j] of the board from
    the mover's view and exact[j] (WINS, FILLS or GOES_ON). Returns the number of moves."""
    j = 0
    filled = mover | opponent
    for c in range(dims[WIDTH]):
        column = ((np.int64(1) << dims[HEIGHT]) - 1) << (c * dims[STRIDE])
        cell = (filled + bottom) & column & ~filled
        if not cell:
            continue
        own = mover | cell
        exact[j] = WINS if has_line(own, dims) else FILLS if (filled | cell) == board else GOES_ON
        _describe(dims, board, bottom, centre, lines, own, opponent, features[j])
        j += 1
    return j


class Connect4Features(Features):
    """The features and the known value of every move of a Connect Four position, in move order."""

    def __init__(self, game):
        self.game = game
        self.names = feature_names(game.connect)
        self.dims, _ = game.kernel_tables
        self.board = sum(game.bit(c, r) for c in range(game.width) for r in range(game.height))
        self.bottom = sum(game.bit(c, 0) for c in range(game.width))
        middle = {game.width // 2, (game.width - 1) // 2}
        self.centre = sum(game.bit(c, r) for c in middle for r in range(game.height))
        self.lines = np.array(game.line_masks, dtype=np.int64)
        self._features = np.zeros((game.width, len(self.names)), dtype=np.float64)
        self._exact = np.zeros(game.width, dtype=np.float64)

    def __call__(self, position, rng=None):
        xs, os = position
        mover, opponent = (xs, os) if xs.bit_count() == os.bit_count() else (os, xs)
        count = afterstates(self.dims, self.board, self.bottom, self.centre, self.lines, mover, opponent,
                            self._features, self._exact)
        return self.game.moves(position), self._features[:count].copy(), self._exact[:count].copy()
