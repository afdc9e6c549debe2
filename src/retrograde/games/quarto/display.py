"""Quarto as a person sees it: the board with the piece to place, the explorer's pieces drawn by
their attributes with the piece in hand beside the board, and why a move is illegal."""

from __future__ import annotations

from retrograde.games.capabilities import Display, Picture, Token
from retrograde.games.quarto.cells import CELL_NAMES, EMPTY, HEX, NO_PIECE, PIECES


def piece_token(piece: int) -> Token:
    """A piece drawn by its attributes: bit 0 dark or light, bit 1 tall (large) or short, bit 2
    square or round, bit 3 hollow or solid; labelled with its number."""
    return Token("square" if piece & 4 else "disc", "dark" if piece & 1 else "light",
                 size=0.8 if piece & 2 else 0.5, hollow=bool(piece & 8), label=HEX[piece])


class QuartoDisplay(Display):
    def render(self, position):
        board, hand = position
        rows = [f"{r + 1} " + " ".join("." if piece == EMPTY else HEX[piece] for piece in board[r * 4:r * 4 + 4])
                for r in range(4)]
        if self.game.primitive(position):
            footer = "game over"
        elif hand == NO_PIECE:
            footer = "hand a piece over to start"
        else:
            footer = f"piece to place: {HEX[hand]} ({hand:04b} in attribute bits 3..0)"
        return "\n".join(["  a b c d", *rows, footer])

    def picture(self, position):
        """The board and the piece in hand, each piece drawn by its attributes (`piece_token`)."""
        board, hand = position
        caption = ("game over" if self.game.primitive(position) else "hand a piece over to start" if hand == NO_PIECE
                   else f"place piece {HEX[hand]}, then hand one over")
        return Picture(4, 4, tuple(None if piece == EMPTY else piece_token(piece) for piece in board),
                       row_labels=tuple("1234"), col_labels=tuple("abcd"), caption=caption,
                       aside=() if hand == NO_PIECE else (piece_token(hand),), aside_label="to place")

    def why_illegal(self, position, text):
        """Not CELL:PIECE, a cell off the board or taken, a piece that is not free to hand over,
        a handover after a placement that ends the game, or none after one that does not."""
        if self.game.primitive(position):
            return super().why_illegal(position, text)
        board, hand = position
        cell_text, colon, piece_text = text.partition(":")
        left = [piece for piece in range(PIECES) if piece not in board and piece != hand]
        choices = " ".join(HEX[piece] for piece in left)
        if hand == NO_PIECE:
            if cell_text or not colon:
                return f"{text!r}: first hand a piece over, written :PIECE (one of {choices}), e.g. :{HEX[left[0]]}"
        elif cell_text not in CELL_NAMES:
            return (f"{text!r} is not a move: quarto moves are CELL:PIECE, e.g. b3:{HEX[left[0]] if left else 0}: "
                    f"place piece {HEX[hand]} at CELL (a1..d4, column letter, row from the top), "
                    "then hand PIECE over")
        else:
            cell = CELL_NAMES[cell_text]
            if board[cell] != EMPTY:
                return f"{cell_text} holds piece {HEX[board[cell]]}: place piece {HEX[hand]} on an empty cell"
            child = board[:cell] + (hand,) + board[cell + 1:]
            if self.game.has_line(child) or not left:
                if colon:
                    return f"placing at {cell_text} ends the game, so nothing is handed over: write {cell_text}"
                return super().why_illegal(position, text)
            if not colon:
                return f"after placing at {cell_text}, hand a piece over: {cell_text}:PIECE, PIECE one of {choices}"
        if len(piece_text) != 1 or piece_text not in HEX:
            return f"{piece_text!r} is not a piece: hand over one of {choices} (hex digits)"
        piece = HEX.index(piece_text)
        if piece == hand:
            return f"piece {piece_text} is the one you are placing: hand over one of {choices}"
        if piece in board:
            return f"piece {piece_text} is already on the board: hand over one of {choices}"
        return super().why_illegal(position, text)
