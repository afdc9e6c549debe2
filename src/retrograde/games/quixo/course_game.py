"""The course's Quixo API (2023-24), served to students' players under the module name `game`:
`from game import Game, Move, Player`, and a player's `make_move(game)` answers
`((x, y), Move)`, x the column from the left and y the row from the top.

Our own code for the facts of that API (docs/course.md), not the course's: the board is a
numpy array `board[y, x]` of -1 (blank), 0 and 1 (the players; player 0 moves first), the
name-mangled `_Game__move(from_pos, slide, player_id)` takes a cube and pushes it in, and the
board's size is the store's game's (`configure`).
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from enum import Enum

import numpy as np

#: The name students import this module by: the classes carry it, so that pickles of them (a
#: table holding `game.Move`) are written and read back under it.
SERVED = "game"

#: What `from game import *` gives: the course's names alone.
__all__ = ["Game", "Move", "Player"]

#: Cells a side of the board that `Game()` makes (`configure` sets it to the store's game's).
size = 5

#: The board's dtype: signed, as the course's board was under numpy 1 (its uint8 ones times -1 were
#: promoted to int16 then; numpy 2 refuses that product with an OverflowError).
BOARD_DTYPE = np.int16


def configure(board_size: int) -> None:
    """Make `Game()` build `board_size` x `board_size` boards (3, 4 or 5: the store's game)."""
    global size
    size = board_size


class Move(Enum):
    """Where the taken cube is pushed back in: TOP ends it in row 0 of its column, BOTTOM in the
    last row, LEFT in column 0 of its row, RIGHT in the last column."""

    __module__ = SERVED
    TOP = 0
    BOTTOM = 1
    LEFT = 2
    RIGHT = 3


class Player(ABC):
    """A Quixo player: `make_move(game)` answers ((x, y), Move) for the game's current player."""

    __module__ = SERVED

    def __init__(self) -> None:
        """Nothing to set up: a subclass keeps whatever state it needs."""

    @abstractmethod
    def make_move(self, game: Game) -> tuple[tuple[int, int], Move]:
        """The cube to take, (x, y) with x the column and y the row, and where to push it in."""


def destination(x: int, y: int, slide: Move, n: int) -> tuple[int, int]:
    """(x, y) of the cell where a cube taken at (x, y) ends when pushed in by `slide` on an n x n
    board."""
    if slide is Move.TOP:
        return x, 0
    if slide is Move.BOTTOM:
        return x, n - 1
    if slide is Move.LEFT:
        return 0, y
    return n - 1, y


def refusal(board: np.ndarray, from_pos, slide, player_id) -> str | None:
    """Why `_Game__move` refuses taking the cube at `from_pos` = (x, y) and pushing it in by
    `slide` for `player_id`, or None where it accepts: the player is 0 or 1, the cell is on the
    border and blank or the player's own, and the cube is not pushed back in where it was taken."""
    n = board.shape[0]
    if player_id not in (0, 1):
        return f"player {player_id!r} is neither 0 nor 1"
    try:
        x, y = map(operator.index, from_pos)
    except (TypeError, ValueError):
        return f"the cube to take, {from_pos!r}, is not (x, y) whole numbers"
    if not isinstance(slide, Move):
        return f"the slide {slide!r} is not a game.Move"
    if not (0 <= x < n and 0 <= y < n):
        hint = "; the player plays 5x5 coordinates" if n < 5 and 0 <= x < 5 and 0 <= y < 5 else ""
        return f"({x}, {y}) is off the {n}x{n} board{hint}"
    if 0 < x < n - 1 and 0 < y < n - 1:
        return f"({x}, {y}) is not on the border"
    if board[y, x] == 1 - player_id:
        return f"({x}, {y}) holds the opponent's cube"
    if destination(x, y, slide, n) == (x, y):
        return f"the cube taken at ({x}, {y}) cannot be pushed back in where it was taken ({slide.name})"
    return None


def push(board: np.ndarray, x: int, y: int, slide: Move, player_id: int) -> None:
    """Take the cube at (x, y), and push it in, showing `player_id`, by `slide` (in place): the
    cubes between close the gap."""
    n = board.shape[0]
    if slide is Move.TOP:
        board[1:y + 1, x] = board[:y, x]
        board[0, x] = player_id
    elif slide is Move.BOTTOM:
        board[y:n - 1, x] = board[y + 1:, x]
        board[n - 1, x] = player_id
    elif slide is Move.LEFT:
        board[y, 1:x + 1] = board[y, :x]
        board[y, 0] = player_id
    else:
        board[y, x:n - 1] = board[y, x + 1:]
        board[y, n - 1] = player_id


class Game:
    """A Quixo game: `_board[y, x]` (-1 blank, 0 and 1 the players) and `current_player_idx`,
    the player to move (player 0 moves first)."""

    __module__ = SERVED

    def __init__(self) -> None:
        self._board = np.full((size, size), -1, dtype=BOARD_DTYPE)
        self.current_player_idx = 0

    def get_board(self) -> np.ndarray:
        """A copy of the board."""
        return self._board.copy()

    def get_current_player(self) -> int:
        return self.current_player_idx

    def print(self) -> None:
        print(self._board)

    def check_winner(self) -> int:
        """The winner's index, or -1 while nobody has a line. The board is judged as the course's
        loop judges it, just after `current_player_idx` moved: where both players have a line,
        the mover completed the opponent's and loses (our rules, games.quixo)."""
        board = self._board
        lines = [*board, *board.T, board.diagonal(), np.fliplr(board).diagonal()]
        owners = {int(line[0]) for line in lines if line[0] != -1 and (line == line[0]).all()}
        other = 1 - self.current_player_idx
        if other in owners:
            return other
        return self.current_player_idx if self.current_player_idx in owners else -1

    def play(self, player1: Player, player2: Player) -> int:
        """Play to a winner (there may be none: endless play never ends), asking the player to
        move until its move is accepted; returns the winner's index."""
        players = (player1, player2)
        while True:
            while not self.__move(*players[self.current_player_idx].make_move(self), self.current_player_idx):
                pass
            winner = self.check_winner()
            if winner >= 0:
                return winner
            self.current_player_idx = 1 - self.current_player_idx

    def __move(self, from_pos, slide: Move, player_id: int) -> bool:
        """Take the cube at `from_pos` = (x, y) and push it in by `slide` for `player_id`; False
        (the board unchanged) where the rules refuse it (`refusal`). The turn does not pass."""
        if refusal(self._board, from_pos, slide, player_id) is not None:
            return False
        x, y = map(operator.index, from_pos)
        push(self._board, x, y, slide, player_id)
        return True
