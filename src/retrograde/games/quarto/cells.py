"""Quarto's cells, pieces and lines, and their names: what the rules (`game`) and the kernels'
nibble boards (`board`) share."""

from __future__ import annotations

CELLS = 16
PIECES = 16
EMPTY = -1
#: `hand` of a position with no piece in hand (the opening, or a finished game).
NO_PIECE = -1
#: The most moves any Quarto position has: 16 cells times 15 pieces to hand over.
MAX_MOVES = CELLS * (PIECES - 1)
HEX = "0123456789abcdef"
EMPTY_BOARD = (EMPTY,) * CELLS
OPENING = (EMPTY_BOARD, NO_PIECE)


def board_lines(squares: bool) -> tuple[tuple[int, ...], ...]:
    """The cells of every line: rows, columns, the two diagonals (and the 2x2 squares)."""
    rows = [tuple(r * 4 + c for c in range(4)) for r in range(4)]
    columns = [tuple(r * 4 + c for r in range(4)) for c in range(4)]
    diagonals = [(0, 5, 10, 15), (3, 6, 9, 12)]
    blocks = [(r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5) for r in range(3) for c in range(3)]
    return tuple(rows + columns + diagonals + (blocks if squares else []))


def is_line(board: tuple[int, ...], line: tuple[int, ...]) -> bool:
    """Four pieces on `line` that share an attribute value (a bit all set or all clear)."""
    pieces = [board[cell] for cell in line]
    if min(pieces) < 0:
        return False
    common = pieces[0] & pieces[1] & pieces[2] & pieces[3]
    either = pieces[0] | pieces[1] | pieces[2] | pieces[3]
    return common != 0 or either != PIECES - 1


def cell_name(cell: int) -> str:
    """`a1` is the top-left cell: column letter, then row number from the top."""
    return "abcd"[cell % 4] + str(cell // 4 + 1)


CELL_NAMES = {cell_name(cell): cell for cell in range(CELLS)}
