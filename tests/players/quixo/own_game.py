"""Greedy Quixo player (course API) that tries its moves on a subclass of the course's `Game`
with its own slide code (numpy), as students who found deep copies slow did."""

from game import Game, Move, Player
from utils import greedy_choice


class SlidingGame(Game):
    """The course's Game holding a copy of a board, with this student's own `slide`."""

    def __init__(self, board, player):
        super().__init__()
        self._board = board.copy()
        self.current_player_idx = player

    def slide(self, from_pos, slide, player):
        """Take the cube at from_pos (x, y) and push it in as `player`'s; False where not acceptable."""
        x, y = from_pos
        board, last = self._board, len(self._board) - 1
        on_border = x in (0, last) or y in (0, last)
        comes_back = {Move.TOP: y == 0, Move.BOTTOM: y == last, Move.LEFT: x == 0, Move.RIGHT: x == last}[slide]
        if not (0 <= x <= last and 0 <= y <= last) or not on_border or comes_back or board[y, x] == 1 - player:
            return False
        column, row = board[:, x].copy(), board[y].copy()
        if slide == Move.TOP:
            board[1:y + 1, x], board[0, x] = column[:y], player
        elif slide == Move.BOTTOM:
            board[y:last, x], board[last, x] = column[y + 1:], player
        elif slide == Move.LEFT:
            board[y, 1:x + 1], board[y, 0] = row[:x], player
        else:
            board[y, x:last], board[y, last] = row[x + 1:], player
        return True


def after_own_slide(game, from_pos, slide, player):
    trial = SlidingGame(game.get_board(), player)
    return trial.get_board() if trial.slide(from_pos, slide, player) else None


class OwnSlideGreedy(Player):
    def make_move(self, game):
        return greedy_choice(game, game.get_current_player(), after_own_slide)
