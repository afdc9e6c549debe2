"""Quixo as a person sees it: the board with its cell names, cubes in the explorer, and why a
move is illegal (not SOURCE-DEST, off the border, the opponent's cube, a wrong destination)."""

from __future__ import annotations

from retrograde.games.capabilities import Display, Picture


class QuixoDisplay(Display):
    def render(self, position):
        cells, side = position
        n = self.game.size
        header = "  " + " ".join("abcde"[:n])
        rows = [f"{r + 1} " + " ".join(cells[r * n:(r + 1) * n]) for r in range(n)]
        return "\n".join([header, *rows, f"{side} to move"])

    def picture(self, position):
        cells, side = position
        n = self.game.size
        return Picture.of_marks(self.game._rows(cells), side, style="cubes", row_labels=tuple(str(r + 1) for r in range(n)),
                                col_labels=tuple("abcde"[:n]))

    def why_illegal(self, position, text):
        """Not SOURCE-DEST, a cell off the board, a source inside the board or holding the
        opponent's cube, or a destination that is not another end of the source's row or column."""
        names = {self.game.cell_name(cell): cell for cell in range(self.game.cells)}
        last = self.game.cell_name(self.game.cells - 1)
        ends = text.split("-")
        if len(ends) != 2 or not all(end[:1].isalpha() and end[1:].isdigit() for end in ends):
            example = f"a1-{self.game.cell_name(self.game.size - 1)}"
            return (f"{text!r} is not a move: quixo moves are SOURCE-DEST, e.g. {example}: take the cube "
                    f"at SOURCE, push it back in at DEST (cells a1..{last})")
        off_board = [end for end in ends if end not in names]
        if off_board:
            return f"there is no cell {off_board[0]} on the {self.game.size}x{self.game.size} board (a1..{last})"
        (source, dest), (cells, side) = ends, position
        other = "o" if side == "x" else "x"
        destinations = self.game.destinations(names[source])
        if not destinations:
            return f"{source} is not on the border: take a cube from the border"
        if cells[names[source]] == other:
            return f"{source} holds {other}'s cube: take a blank or your own ({side}) cube"
        if names[dest] not in destinations:
            where = ("the cube cannot go back in where it came from" if dest == source
                     else f"{dest} is not an end of {source}'s row or column")
            return f"{where}: push it in at {' or '.join(map(self.game.cell_name, destinations))}"
        return super().why_illegal(position, text)
