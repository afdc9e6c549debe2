"""Connect Four as a person sees it: the board with its column letters, discs in slots in the
explorer, and why a move is illegal (not a column, off the board, a full column)."""

from __future__ import annotations

from retrograde.games.capabilities import Display, Picture, Token
from retrograde.games.connect4.columns import COLUMNS

DISCS = {"x": Token("disc", "x", size=0.8), "o": Token("disc", "o", size=0.8)}


class Connect4Display(Display):
    def render(self, position):
        board, mover = self.game.format(position).split()
        rows = [" ".join(row) for row in board.split("/")]
        return "\n".join([*rows, " ".join(COLUMNS[:self.game.width]), f"{mover} to move"])

    def picture(self, position):
        board, mover = self.game.format(position).split()
        return Picture.of_marks(board.split("/"), mover, tokens=DISCS, style="slots",
                                col_labels=tuple(COLUMNS[:self.game.width]))

    def why_illegal(self, position, text):
        """Not a column letter, a column off the board, or a full column."""
        if len(text) != 1 or text not in COLUMNS:
            return f"{text!r} is not a move: connect4 moves are column letters a..{COLUMNS[self.game.width - 1]}"
        c = COLUMNS.index(text)
        if c >= self.game.width:
            return f"there is no column {text} on a board of {self.game.width} columns (a..{COLUMNS[self.game.width - 1]})"
        if not self.game.primitive(position) and self.game.heights(position)[c] == self.game.height:
            return f"column {text} is full"
        return super().why_illegal(position, text)
