"""Quixo's move table and line masks as int64 arrays, and moves on arrays of boards (numpy only:
probes build them without numba; the kernels in `games.quixo.kernels`, the numpy classes in
`games.quixo.one_ply` and the batches in `games.quixo.batch` use them).
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


def has_line(masks: np.ndarray, every_line: np.ndarray) -> np.ndarray:
    """Whether each cell mask holds a whole line of `every_line`."""
    found = np.zeros(masks.shape, dtype=bool)
    for line in every_line.tolist():
        found |= (masks & line) == line
    return found


def pushed(masks: np.ndarray, seg: np.ndarray, source: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Cell masks after moves (columns of a move table; numpy broadcasting): the source cell
    empties and the cells between the move's ends shift one step toward the source (the
    destination cell is the mover's to add)."""
    inside = masks & seg
    return (masks & ~(seg | source)) | np.where(shift > 0, inside << np.maximum(shift, 0),
                                                inside >> np.maximum(-shift, 0))


def line_masks(n: int) -> np.ndarray:
    """int64[4] for `has_line`: the cells starting a row, the top row, and the two diagonals."""
    row_starts = sum(1 << (r * n) for r in range(n))
    diagonals = [sum(1 << (i * n + i) for i in range(n)), sum(1 << (i * n + n - 1 - i) for i in range(n))]
    return np.array([row_starts, (1 << n) - 1, *diagonals], dtype=np.int64)
