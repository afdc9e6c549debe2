"""The course's Quarto API (2022-23), served to students' players under the module name `quarto`:
`quarto.Player(quarto)` answers `choose_piece()` (a piece index for the opponent) and
`place_piece()` ((x, y) for the piece in hand, x the column and y the row), reading the game
from `get_game()`.

Our own code for the facts of that API (docs/course.md), not the course's. The course numbers a
piece by its attributes HIGH, COLOURED, SOLID, SQUARE, most significant first; ours (SPEC §3) by
bit 0 dark (coloured), bit 1 tall (high), bit 2 square, bit 3 hollow (not solid): `to_ours` and
`to_course` map one onto the other. The lines are our game's (`configure`: with the 2x2 squares
where the store's game has them).
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod

import numpy as np

from retrograde.games.quarto.cells import board_lines, is_line

#: The name students import this module by (the classes carry it, for pickles).
SERVED = "quarto"

#: What `from quarto import *` gives: the course's names alone.
__all__ = ["Piece", "Player", "Quarto"]

#: The cells of every line that wins (`configure` adds the 2x2 squares for that variant).
lines = board_lines(False)


def configure(squares: bool) -> None:
    """Make a line of the 2x2 squares too, where the store's game is that variant."""
    global lines
    lines = board_lines(squares)


def to_ours(index: int) -> int:
    """Our piece (bit 0 coloured, 1 high, 2 square, 3 not solid) for the course's piece index
    (8 HIGH + 4 COLOURED + 2 SOLID + SQUARE)."""
    high, coloured, solid, square = index >> 3 & 1, index >> 2 & 1, index >> 1 & 1, index & 1
    return coloured | high << 1 | square << 2 | (1 - solid) << 3


def to_course(piece: int) -> int:
    """The course's piece index for our piece (the inverse of `to_ours`)."""
    coloured, high, square, hollow = piece & 1, piece >> 1 & 1, piece >> 2 & 1, piece >> 3 & 1
    return high << 3 | coloured << 2 | (1 - hollow) << 1 | square


def placement_refusal(board: np.ndarray, x, y) -> str | None:
    """Why `place(x, y)` refuses (x, y) on `board` (course piece indices, -1 empty), or None
    where it accepts: the cell is on the board and empty."""
    try:
        x, y = operator.index(x), operator.index(y)
    except TypeError:
        return f"the cell ({x!r}, {y!r}) is not (x, y) whole numbers"
    if not (0 <= x < 4 and 0 <= y < 4):
        return f"({x}, {y}) is off the 4x4 board"
    if board[y, x] >= 0:
        return f"({x}, {y}) holds piece {board[y, x]}"
    return None


def selection_refusal(board: np.ndarray, piece_index) -> str | None:
    """Why `select(piece_index)` refuses it on `board`, or None where it accepts: a piece index
    0..15 not on the board."""
    try:
        piece_index = operator.index(piece_index)
    except TypeError:
        return f"the piece {piece_index!r} is not a whole number"
    if not 0 <= piece_index < 16:
        return f"there is no piece {piece_index} (pieces are 0..15)"
    if (board == piece_index).any():
        return f"piece {piece_index} is on the board already"
    return None


class Piece:
    """A piece's four attributes."""

    __module__ = SERVED

    def __init__(self, high: bool, coloured: bool, solid: bool, square: bool) -> None:
        self.HIGH = high
        self.COLOURED = coloured
        self.SOLID = solid
        self.SQUARE = square


class Player(ABC):
    """A Quarto player, given the game it plays at construction (`get_game`)."""

    __module__ = SERVED

    def __init__(self, quarto: Quarto) -> None:
        self.__quarto = quarto

    @abstractmethod
    def choose_piece(self) -> int:
        """The piece index the opponent is to place next."""

    @abstractmethod
    def place_piece(self) -> tuple[int, int]:
        """(x, y), x the column and y the row, where the selected piece goes."""

    def get_game(self) -> Quarto:
        return self.__quarto


class Quarto:
    """A Quarto game: the board (`get_board_status`, piece indices by [y, x], -1 empty), the
    selected piece (the one to place) and the current player. Player 0 hands the first piece
    over; then each player places the piece it was handed and hands the other one."""

    __module__ = SERVED
    MAX_PLAYERS = 2
    BOARD_SIDE = 4

    def __init__(self) -> None:
        self.__players: tuple[Player, ...] = ()
        self.reset()

    def reset(self) -> None:
        """An empty board, no piece selected, player 0 to hand the first piece over."""
        self._arrange(np.full((4, 4), -1, dtype=np.int64), -1, 0)

    def _arrange(self, board: np.ndarray, selected_piece: int, current_player: int) -> None:
        """Put the game in a given state (a copy of `board`): how a position is shown to a player."""
        self.__board = np.array(board, dtype=np.int64)
        self.__selected_piece_index = selected_piece
        self.__current_player = current_player

    def set_players(self, players: tuple[Player, Player]) -> None:
        self.__players = tuple(players)

    def get_current_player(self) -> int:
        return self.__current_player

    def get_board_status(self) -> np.ndarray:
        """A copy of the board."""
        return self.__board.copy()

    def get_selected_piece(self) -> int:
        return self.__selected_piece_index

    def get_piece_charachteristics(self, index: int) -> Piece:
        """The attributes of piece `index` (the course's numbering)."""
        return Piece(bool(index & 8), bool(index & 4), bool(index & 2), bool(index & 1))

    def select(self, piece_index: int) -> bool:
        """Select the piece to place next; False where it is not a free piece."""
        if selection_refusal(self.__board, piece_index) is not None:
            return False
        self.__selected_piece_index = operator.index(piece_index)
        return True

    def place(self, x: int, y: int) -> bool:
        """Place the selected piece at column x, row y; False where the cell is off the board or taken."""
        if placement_refusal(self.__board, x, y) is not None:
            return False
        self.__board[operator.index(y), operator.index(x)] = self.__selected_piece_index
        return True

    def check_winner(self) -> int:
        """The current player (who placed last) where a line of four shares an attribute, else -1."""
        ours = tuple(-1 if index < 0 else to_ours(int(index)) for index in self.__board.flat)
        return self.__current_player if any(is_line(ours, line) for line in lines) else -1

    def check_finished(self) -> bool:
        """Whether the board is full."""
        return bool((self.__board >= 0).all())

    def print(self) -> None:
        print(self.__board)
        print(f"selected piece: {self.__selected_piece_index}")

    def run(self) -> int:
        """Play the players of `set_players` to the end: the one to move hands a piece over, the
        other places it, asked again until each answer is accepted. The winner's index, or -1."""
        winner = -1
        while winner < 0 and not self.check_finished():
            while not self.select(self.__players[self.__current_player].choose_piece()):
                pass
            self.__current_player = 1 - self.__current_player
            while not self.place(*self.__players[self.__current_player].place_piece()):
                pass
            winner = self.check_winner()
        return winner
