"""Tic-tac-toe as a person sees it: the board with its cell names, the explorer's picture of x
and o marks, and why a move is illegal (not a cell, or a cell taken)."""

from __future__ import annotations

from retrograde.games.capabilities import Display, Picture
from retrograde.games.tictactoe.cells import CELLS, cell_name


class TicTacToeDisplay(Display):
    def render(self, position):
        board, mover = self.game.format(position).split()
        rows = [f"{r + 1} " + " ".join(row) for r, row in enumerate(board.split("/"))]
        return "\n".join(["  a b c", *rows, f"{mover} to move"])

    def picture(self, position):
        board, mover = self.game.format(position).split()
        return Picture.of_marks(board.split("/"), mover, row_labels=tuple("123"), col_labels=tuple("abc"))

    def why_illegal(self, position, text):
        """Not a cell, or a cell already taken."""
        cells = {cell_name(cell): cell for cell in range(CELLS)}
        if text not in cells:
            return (f"{text!r} is not a move: tic-tac-toe moves are cells a1..c3 "
                    "(column letter, row number from the top)")
        xs, os = position
        cell = cells[text]
        if (xs | os) >> cell & 1:
            return f"{text} is taken by {'x' if xs >> cell & 1 else 'o'}"
        return super().why_illegal(position, text)
