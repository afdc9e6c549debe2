"""Quixo's one-ply store format (`QuixoOnePly`): the one-ply classes of a whole chunk by the kernel
(`kernels.one_ply`), and of a few positions with numpy alone (`batch`): what a probe of a
format-4 store needs to decode a value without numba. Every position and move are handled in a
few array operations."""

from __future__ import annotations

import numpy as np

from retrograde.games import ranking_arrays, symmetry
from retrograde.games.base import HOLE, LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1
from retrograde.games.capabilities import OnePly
from retrograde.games.quixo.moves import DEST, SEG, SHIFT, SOURCE, has_line, pushed


def classes(moves: np.ndarray, every_line: np.ndarray, mover: np.ndarray, opponent: np.ndarray) -> np.ndarray:
    """uint8 one-ply class of each board (mover, opponent masks: int64 arrays); holes are not
    told apart here (see `batch`)."""
    seg, source, shift = moves[:, SEG], moves[:, SOURCE], moves[:, SHIFT]
    m, o = mover[:, None], opponent[:, None]
    new_mover = pushed(m, seg, source, shift) | moves[:, DEST]
    new_opponent = pushed(o, seg, source, shift)
    legal = (o & source) == 0
    safe = legal & ~has_line(new_opponent, every_line)  # a move completing the opponent's line loses
    out = np.full(mover.size, STORED, dtype=np.uint8)
    out[~safe.any(axis=1)] = LOSS_IN_1
    out[(safe & has_line(new_mover, every_line)).any(axis=1)] = WIN_IN_1
    out[has_line(opponent, every_line)] = TERMINAL_LOSS
    out[has_line(mover, every_line)] = TERMINAL_WIN
    return out


def batch(n: int, moves: np.ndarray, every_line: np.ndarray, a: int, b: int, indices: np.ndarray) -> np.ndarray:
    """The one-ply classes of `indices` of tier m{a}o{b}, HOLE where an index is not its
    symmetry class's representative."""
    mover, opponent = ranking_arrays.unrank_pairs(indices, a, b, n * n)
    out = classes(moves, every_line, mover, opponent)
    least_mover, least_opponent = symmetry.representatives(n, mover, opponent)
    out[(least_mover != mover) | (least_opponent != opponent)] = HOLE
    return out


class QuixoOnePly(OnePly):
    def classes(self, tier, start, stop, out):
        from retrograde.games.quixo import kernels

        game = self.game
        kernels.one_ply(game.size, game.move_table, game.line_masks, game.every_line, symmetry.tables(game.size),
                        *tier.key, start, stop, out)
        return out[:stop - start]

    def batch(self, tier, indices):
        game = self.game
        return batch(game.size, game.move_table, game.every_line, *tier.key, indices)
