"""Quixo's batches (`Game.batch_of` and the other batch hooks): many positions as three arrays,
parsed, formatted, expanded and located in a few array operations each (numpy only, so a probe
of many positions starts without numba)."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from retrograde.games import symmetry
from retrograde.games.quixo.moves import DEST, SEG, SHIFT, SOURCE, has_line, pushed
from retrograde.games.ranking_arrays import popcounts, rank_pairs

_X, _O, _BLANK, _SLASH, _SPACE = b"xo./ "


class Boards(NamedTuple):
    """Positions as int64 masks of the side to move's cubes and the opponent's (bit i: cell i),
    and whether x is the side to move."""

    mover: np.ndarray
    opponent: np.ndarray
    x_moves: np.ndarray

    def __len__(self) -> int:
        return self.mover.size


def _grid(n: int, chars: np.ndarray) -> np.ndarray:
    """The rows of texts `rows/.../rows side` (uint8[texts, width]) as [texts, n, n + 1]: a row's
    cells, then its slash (the last row's: the space before the side)."""
    return chars[:, :n * (n + 1)].reshape(-1, n, n + 1)


def _masks(bits: np.ndarray) -> np.ndarray:
    """int64 masks of bool[boards, cells] (cell i: bit i)."""
    packed = np.packbits(bits, axis=1, bitorder="little")
    eight = np.zeros((bits.shape[0], 8), dtype=np.uint8)
    eight[:, :packed.shape[1]] = packed
    return eight.view("<i8").ravel().astype(np.int64)


def from_cells(n: int, cells: np.ndarray, x_moves: np.ndarray) -> Boards:
    """Boards of uint8[positions, n*n] cell characters (x, o or .)."""
    xs, os = _masks(cells == _X), _masks(cells == _O)
    return Boards(np.where(x_moves, xs, os), np.where(x_moves, os, xs), x_moves)


def parse(n: int, texts: list[str]) -> tuple[Boards, np.ndarray]:
    """Boards of the texts written exactly as `Quixo.format` writes them (lowercase, one space),
    and a bool array marking the texts that are not (the rules parse those, or refuse them)."""
    width = n * (n + 1) + 1
    sized = np.fromiter((len(text) == width for text in texts), dtype=bool, count=len(texts))
    joined = "".join(text for text, ok in zip(texts, sized.tolist()) if ok)
    chars = np.frombuffer(joined.encode("ascii", "replace"), dtype=np.uint8).reshape(-1, width)
    grid = _grid(n, chars)
    cells, side = grid[:, :, :n].reshape(-1, n * n), chars[:, -1]
    known = (cells == _X) | (cells == _O) | (cells == _BLANK)
    canonical = (known.all(axis=1) & (grid[:, :-1, n] == _SLASH).all(axis=1) & (chars[:, -2] == _SPACE)
                 & ((side == _X) | (side == _O)))
    odd = ~sized
    odd[sized] = ~canonical
    return from_cells(n, cells[canonical], side[canonical] == _X), odd


@lru_cache(maxsize=1)
def _eight_cells() -> np.ndarray:
    """The characters of 8 cells as one uint64, by their x bits * 256 + their o bits."""
    bits = np.arange(8)
    xs, os = np.arange(1 << 16)[:, None] >> 8 >> bits & 1, np.arange(1 << 16)[:, None] >> bits & 1
    return np.array([_BLANK, _X, _O, _BLANK], dtype=np.uint8)[xs + 2 * os].view("<u8").ravel()


def format_all(n: int, boards: Boards) -> np.ndarray:
    """The texts of the boards (`Quixo.format`), as an array of ASCII bytes."""
    pieces = -(-n * n // 8)
    bytes_of = [np.where(boards.x_moves, first, second).astype("<i8").view(np.uint8).reshape(-1, 8)[:, :pieces]
                .astype(np.uint16) for first, second in ((boards.mover, boards.opponent), (boards.opponent, boards.mover))]
    cells = _eight_cells()[bytes_of[0] << 8 | bytes_of[1]].view(np.uint8).reshape(len(boards), 8 * pieces)
    width = n * (n + 1) + 1
    chars = np.full((len(boards), width), _SLASH, dtype=np.uint8)
    _grid(n, chars)[:, :, :n] = cells[:, :n * n].reshape(-1, n, n)
    chars[:, -2] = _SPACE
    chars[:, -1] = np.where(boards.x_moves, _X, _O)
    return chars.view(f"S{width}").ravel()


def children(move_table: np.ndarray, every_line: np.ndarray, boards: Boards) -> tuple[np.ndarray, np.ndarray, Boards]:
    """Each board's move count, every move's row of `move_table`, and every child (the
    opponent's turn): the legal moves of the boards that are not won or lost, in table order."""
    finished = has_line(boards.mover, every_line) | has_line(boards.opponent, every_line)
    legal = ((boards.opponent[:, None] & move_table[:, SOURCE]) == 0) & ~finished[:, None]
    parent, move = np.nonzero(legal)
    seg, source, shift = move_table[move, SEG], move_table[move, SOURCE], move_table[move, SHIFT]
    mover = pushed(boards.mover[parent], seg, source, shift) | move_table[move, DEST]
    return legal.sum(axis=1), move, Boards(pushed(boards.opponent[parent], seg, source, shift), mover,
                                           ~boards.x_moves[parent])


def locate_stored(n: int, boards: Boards) -> tuple[np.ndarray, np.ndarray]:
    """The tier of each board's symmetry representative, as a * (n*n + 1) + b for tier m{a}o{b},
    and its index."""
    mover, opponent = symmetry.representatives(n, boards.mover, boards.opponent)
    return popcounts(mover).astype(np.int64) * (n * n + 1) + popcounts(opponent), rank_pairs(mover, opponent, n * n)
