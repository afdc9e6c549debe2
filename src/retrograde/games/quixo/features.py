"""Board features of Quixo afterstates: what the `ga` weights and the `rl` linear Q value.

For a position, `afterstates` plays every legal move (in `game.moves` order: the rows of
`move_table` whose source is not the opponent's) and describes each resulting board from
the view of the side that moved ("own" = the mover's cubes, "opp" = the opponent's):

* own/opp longest line: the most cubes of that side in one row, column or diagonal, / N;
* own/opp lines of k, for k = 2..N-1: lines holding exactly k cubes of that side, / (2N+2);
* own/opp centre: cubes on the inner (N-2)x(N-2) cells (they cannot be taken directly);
* own/opp corners, own/blank/opp border cubes;
* own/opp mobility: moves that side would have on the board (sources not the other's), / moves.

Each is scaled to [0, 1], so that weights are comparable. The kernel also gives each move's
immediate result for the mover: +1 a line of its own only (a win now), -1 a line of the
opponent's (a loss, even with its own line too, SPEC §4), 0 otherwise (the game goes on).
"""

from __future__ import annotations

import numpy as np

from retrograde.games.capabilities import Features
from retrograde.games.quixo.kernels import SOURCE, has_line, play
from retrograde.games.ranking_kernels import popcount
from retrograde.jit import njit

#: Immediate result of a move for the side that made it.
WIN_NOW, NO_RESULT, LOSS_NOW = 1, 0, -1


def feature_names(size: int) -> tuple[str, ...]:
    """Names of the features of an N x N board, in kernel order."""
    lines = [f"{side}_lines_{k}" for k in range(2, size) for side in ("own", "opp")]
    return ("own_longest", "opp_longest", *lines, "own_centre", "opp_centre", "own_corners", "opp_corners",
            "own_border", "blank_border", "opp_border", "own_mobility", "opp_mobility")


def board_tables(game) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(line masks for has_line, every line as a mask, region masks [centre, corners, border],
    move table) of a Quixo instance."""
    n = game.size
    border = sum(1 << cell for cell in range(n * n) if game.destinations(cell))
    corners = (1 << 0) | (1 << (n - 1)) | (1 << (n * n - n)) | (1 << (n * n - 1))
    centre = ((1 << (n * n)) - 1) & ~border
    regions = np.array([centre, corners, border], dtype=np.int64)
    return game.line_masks, game.every_line, regions, game.move_table


@njit
def _mobility(moves, blocked):
    """How many rows of the move table take a cube not in `blocked` (the other side's cubes)."""
    count = 0
    for k in range(moves.shape[0]):
        if not blocked & moves[k, SOURCE]:
            count += 1
    return count


@njit
def _describe(n, every_line, regions, moves, own, opp, out):
    """Fill `out` with the features of the board (own, opp); see the module docstring."""
    lines = every_line.shape[0]
    longest_own = 0
    longest_opp = 0
    for k in range(out.shape[0]):
        out[k] = 0.0
    for i in range(lines):
        a = popcount(own & every_line[i])
        b = popcount(opp & every_line[i])
        longest_own = max(longest_own, a)
        longest_opp = max(longest_opp, b)
        if 2 <= a < n:
            out[2 + 2 * (a - 2)] += 1.0 / lines
        if 2 <= b < n:
            out[3 + 2 * (b - 2)] += 1.0 / lines
    out[0] = longest_own / n
    out[1] = longest_opp / n
    j = 2 + 2 * (n - 2)
    centre, corners, border = regions[0], regions[1], regions[2]
    inner = max(1, (n - 2) * (n - 2))
    edge = popcount(border)
    out[j] = popcount(own & centre) / inner
    out[j + 1] = popcount(opp & centre) / inner
    out[j + 2] = popcount(own & corners) / 4.0
    out[j + 3] = popcount(opp & corners) / 4.0
    out[j + 4] = popcount(own & border) / edge
    out[j + 5] = popcount(border & ~(own | opp)) / edge
    out[j + 6] = popcount(opp & border) / edge
    out[j + 7] = _mobility(moves, opp) / moves.shape[0]
    out[j + 8] = _mobility(moves, own) / moves.shape[0]


@njit
def afterstates(n, lines, every_line, regions, moves, mover, opponent, features, result):
    """Play every legal move of the board (mover, opponent); for the j-th, `features[j]` of the
    board from the mover's view and `result[j]` (WIN_NOW, LOSS_NOW or NO_RESULT). Returns the
    number of moves."""
    j = 0
    for k in range(moves.shape[0]):
        s = moves[k, SOURCE]
        if opponent & s:
            continue
        own, opp = play(moves, k, mover, opponent)
        if has_line(opp, n, lines):
            result[j] = LOSS_NOW
        elif has_line(own, n, lines):
            result[j] = WIN_NOW
        else:
            result[j] = NO_RESULT
        _describe(n, every_line, regions, moves, own, opp, features[j])
        j += 1
    return j


class QuixoFeatures(Features):
    """The features and the immediate result of every move of a Quixo position, in move order."""

    def __init__(self, game):
        self.game = game
        self.names = feature_names(game.size)
        self._tables = board_tables(game)
        width = game.max_moves
        self._features = np.zeros((width, len(self.names)), dtype=np.float64)
        self._result = np.zeros(width, dtype=np.int8)

    def __call__(self, position, rng=None):
        mover, opponent = self.game._masks(position)
        lines, every_line, regions, moves = self._tables
        count = afterstates(self.game.size, lines, every_line, regions, moves, mover, opponent,
                            self._features, self._result)
        result = self._result[:count]
        return (self.game.moves(position), self._features[:count].copy(),
                np.where(result == NO_RESULT, np.nan, result.astype(np.float64)))
