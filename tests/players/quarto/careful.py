"""Quarto player (course API, 2022-23): places the piece where it completes a line if it can,
else on the first empty cell (rows from the top, cells from the left); hands over the first
piece (by index) that cannot complete a line anywhere on the board, else the first one left."""

import quarto

ATTRIBUTES = ("HIGH", "COLOURED", "SOLID", "SQUARE")


def board_lines():
    rows = [[(x, y) for x in range(4)] for y in range(4)]
    columns = [[(x, y) for y in range(4)] for x in range(4)]
    return rows + columns + [[(i, i) for i in range(4)], [(3 - i, i) for i in range(4)]]


class Careful(quarto.Player):
    def __init__(self, quarto_game):
        super().__init__(quarto_game)

    def completes_line(self, board, piece, x, y):
        """Whether `piece` placed at (x, y) finishes a line of four sharing an attribute."""
        game = self.get_game()
        for line in board_lines():
            if (x, y) not in line:
                continue
            pieces = [piece if cell == (x, y) else board[cell[1], cell[0]] for cell in line]
            if -1 in pieces:
                continue
            traits = [game.get_piece_charachteristics(int(p)) for p in pieces]
            if any(len({getattr(t, name) for t in traits}) == 1 for name in ATTRIBUTES):
                return True
        return False

    def empty_cells(self, board):
        return [(x, y) for y in range(4) for x in range(4) if board[y, x] == -1]

    def place_piece(self):
        game = self.get_game()
        board, piece = game.get_board_status(), game.get_selected_piece()
        cells = self.empty_cells(board)
        return next(((x, y) for x, y in cells if self.completes_line(board, piece, x, y)), cells[0])

    def choose_piece(self):
        board = self.get_game().get_board_status()
        left = [piece for piece in range(16) if piece not in board]
        safe = [piece for piece in left
                if not any(self.completes_line(board, piece, x, y) for x, y in self.empty_cells(board))]
        return (safe or left)[0]
