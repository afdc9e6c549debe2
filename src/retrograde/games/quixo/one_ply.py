"""The one-ply classes of a few Quixo positions with numpy alone (`Game.one_ply_batch`): what a
probe of a format-4 store needs to decode a value without numba (the kernel, `kernels.one_ply`,
classifies whole chunks). Every position and move are handled in a few array operations."""

from __future__ import annotations

import numpy as np

from retrograde.games import ranking, symmetry
from retrograde.games.base import HOLE, LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1
from retrograde.games.quixo.moves import DEST, SEG, SHIFT, SOURCE


def lines(n: int) -> np.ndarray:
    """int64 masks of the board's 2n + 2 lines (rows, columns, diagonals)."""
    rows = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    columns = [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    diagonals = [sum(1 << (i * n + i) for i in range(n)), sum(1 << (i * n + n - 1 - i) for i in range(n))]
    return np.array(rows + columns + diagonals, dtype=np.int64)


def _has_line(masks: np.ndarray, table: np.ndarray) -> np.ndarray:
    return ((masks[..., None] & table) == table).any(axis=-1)


def classes(n: int, moves: np.ndarray, mover: np.ndarray, opponent: np.ndarray) -> np.ndarray:
    """uint8 one-ply class of each board (mover, opponent masks: int64 arrays); holes are not
    told apart here (see `batch`)."""
    table = lines(n)
    seg, source, shift, dest = moves[:, SEG], moves[:, SOURCE], moves[:, SHIFT], moves[:, DEST]
    m, o = mover[:, None], opponent[:, None]
    keep = ~(seg | source)

    def shifted(x):
        return np.where(shift > 0, (x & seg) << np.maximum(shift, 0), (x & seg) >> np.maximum(-shift, 0))

    new_mover = (m & keep) | shifted(m) | dest
    new_opponent = (o & keep) | shifted(o)
    legal = (o & source) == 0
    safe = legal & ~_has_line(new_opponent, table)  # a move completing the opponent's line loses
    out = np.full(mover.size, STORED, dtype=np.uint8)
    out[~safe.any(axis=1)] = LOSS_IN_1
    out[(safe & _has_line(new_mover, table)).any(axis=1)] = WIN_IN_1
    out[_has_line(opponent, table)] = TERMINAL_LOSS
    out[_has_line(mover, table)] = TERMINAL_WIN
    return out


def batch(n: int, moves: np.ndarray, a: int, b: int, indices: np.ndarray) -> np.ndarray:
    """The one-ply classes of `indices` of tier m{a}o{b}, HOLE where an index is not its
    symmetry class's representative."""
    boards = [ranking.unrank_pair(int(index), a, b, n * n) for index in np.asarray(indices).tolist()]
    mover = np.array([board[0] for board in boards], dtype=np.int64)
    opponent = np.array([board[1] for board in boards], dtype=np.int64)
    out = classes(n, moves, mover, opponent)
    least_mover, least_opponent = symmetry.representatives(n, mover, opponent)
    out[(least_mover != mover) | (least_opponent != opponent)] = HOLE
    return out
