"""Quixo's move table and line masks as int64 arrays (numpy only: probes build them without
numba; the kernels in `games.quixo.kernels` and the numpy classes in `games.quixo.one_ply` use them).
"""

import numpy as np

SOURCE, DEST, SEG, SHIFT = range(4)


def move_table(n: int) -> np.ndarray:
    """int64[moves, 4]: source bit, dest bit, shifting-cells mask, shift, for every border move."""
    rows = []
    for s in range(n * n):
        r, c = divmod(s, n)
        if 0 < r < n - 1 and 0 < c < n - 1:
            continue
        for e in dict.fromkeys([r * n, r * n + n - 1, c, (n - 1) * n + c]):
            if e == s:
                continue
            er, ec = divmod(e, n)
            if er == r:  # along the row: cells between e and s move one column toward s
                step = 1 if ec < c else -1
                seg = [r * n + col for col in (range(ec, c) if ec < c else range(c + 1, ec + 1))]
            else:  # along the column
                step = n if er < r else -n
                seg = [row * n + c for row in (range(er, r) if er < r else range(r + 1, er + 1))]
            rows.append((1 << s, 1 << e, sum(1 << cell for cell in seg), step))
    return np.array(rows, dtype=np.int64)


def line_masks(n: int) -> np.ndarray:
    """int64[4] for `has_line`: the cells starting a row, the top row, and the two diagonals."""
    row_starts = sum(1 << (r * n) for r in range(n))
    diagonals = [sum(1 << (i * n + i) for i in range(n)), sum(1 << (i * n + n - 1 - i) for i in range(n))]
    return np.array([row_starts, (1 << n) - 1, *diagonals], dtype=np.int64)
