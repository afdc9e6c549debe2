"""Quarto boards as bits, for the search and the agents' kernels.

A board is 16 four-bit nibbles in one int64 (cell row*4 + col at bits 4*cell..4*cell+3,
the top nibble holding the sign bit),
with `occupied`, a 16-bit mask of the cells holding a piece (piece 0 is a zero nibble, so
the mask tells it from an empty cell); sets of pieces are 16-bit masks (bit p: piece p).

A line with three pieces sharing an attribute value and one empty cell is *live*: the
pieces that complete it are its *deadly* pieces, whoever places one there wins. `deadly`
gives them for a whole board; every kernel decides wins and threats through it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from retrograde.games.quarto.cells import EMPTY, HEX, NO_PIECE, board_lines, cell_name
from retrograde.jit import njit

FULL = 0xFFFF
ATTRIBUTES = 0xF


def _deadly_table() -> np.ndarray:
    """DEADLY[common * 16 + lacking]: the pieces having an attribute bit of `common` or lacking
    one of `lacking`, i.e. those completing a live line whose three pieces all have the bits of
    `common` and all lack those of `lacking`."""
    table = np.zeros(256, dtype=np.int64)
    for common in range(16):
        for lacking in range(16):
            table[common * 16 + lacking] = sum(1 << piece for piece in range(16)
                                               if piece & common or ~piece & lacking)
    return table


DEADLY = _deadly_table()


@lru_cache(maxsize=None)
def line_tables(squares: bool) -> tuple[np.ndarray, np.ndarray]:
    """(lines[L, 4] cells of each line, through[16, 7]: the lines through each cell, -1 padded)."""
    lines = np.array(board_lines(squares), dtype=np.int64)
    through = np.full((16, 7), -1, dtype=np.int64)
    for cell in range(16):
        found = [k for k, line in enumerate(lines.tolist()) if cell in line]
        through[cell, :len(found)] = found
    return lines, through


def encode(position) -> tuple[int, int, int, int]:
    """(board nibbles, occupied cells, hand (-1 none), used pieces: on the board or in hand)."""
    cells, hand = position
    board = occupied = used = 0
    for cell, piece in enumerate(cells):
        if piece != EMPTY:
            board |= piece << (4 * cell)
            occupied |= 1 << cell
            used |= 1 << piece
    if hand >= 0:
        used |= 1 << hand
    return board - (board >> 63 << 64), occupied, hand, used  # as a signed int64


def move_of(position, cell: int, piece: int):
    """(move text, child) of placing the piece in hand on `cell` (-1: the opening handover) and
    handing `piece` over (-1: none, the placement ends the game), as `Quarto.moves` writes it."""
    cells, hand = position
    if cell < 0:
        return f":{HEX[piece]}", (cells, piece)
    child = cells[:cell] + (hand,) + cells[cell + 1:]
    if piece < 0:
        return cell_name(cell), (child, NO_PIECE)
    return f"{cell_name(cell)}:{HEX[piece]}", (child, piece)


@njit
def piece_at(board, cell):
    return (board >> (4 * cell)) & ATTRIBUTES


@njit
def line_summary(board, occupied, line):
    """(pieces on `line`, attribute bits they all have, attribute bits they all lack)."""
    count = 0
    common = ATTRIBUTES
    lacking = ATTRIBUTES
    for k in range(4):
        cell = line[k]
        if occupied >> cell & 1:
            piece = piece_at(board, cell)
            count += 1
            common &= piece
            lacking &= ~piece
    return count, common, lacking & ATTRIBUTES


@njit
def line_threat(board, occupied, line):
    """The deadly pieces of `line` (a row of `lines`): 0 unless it is live."""
    count, common, lacking = line_summary(board, occupied, line)
    if count != 3:
        return np.int64(0)
    return DEADLY[common * 16 + lacking]


@njit
def deadly(board, occupied, lines):
    """The pieces that complete some live line of the board (win for whoever places them)."""
    mask = np.int64(0)
    for i in range(lines.shape[0]):
        mask |= line_threat(board, occupied, lines[i])
    return mask


@njit
def completes(board, occupied, cell, piece, lines, through):
    """Whether placing `piece` on the empty `cell` completes a line."""
    for k in range(through.shape[1]):
        i = through[cell, k]
        if i < 0:
            break
        if line_threat(board, occupied, lines[i]) >> piece & 1:  # live, and `cell` is its empty one
            return True
    return False


@njit
def has_line(board, occupied, lines):
    """Whether the board holds a line of four pieces sharing an attribute value."""
    for i in range(lines.shape[0]):
        common = ATTRIBUTES
        lacking = ATTRIBUTES
        full = True
        for k in range(4):
            cell = lines[i, k]
            if not occupied >> cell & 1:
                full = False
                break
            piece = piece_at(board, cell)
            common &= piece
            lacking &= ~piece
        if full and (common | (lacking & ATTRIBUTES)):
            return True
    return False


@njit
def place(board, occupied, cell, piece):
    """(board, occupied) with `piece` on `cell`."""
    return board | (np.int64(piece) << (4 * cell)), occupied | (np.int64(1) << cell)
