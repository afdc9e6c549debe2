"""Quarto's course API (2022-23): a student's `quarto.Player` asked at our positions."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrograde.errors import BadAgent
from retrograde.games.course_api import CourseApi, asked, legal_text
from retrograde.games.quarto import course_game as quarto
from retrograde.games.quarto.cells import HEX, NO_PIECE, cell_name


@dataclass
class QuartoSeat:
    """A Quarto player and the game it was given at construction (shown each position in turn)."""

    player: Any
    quarto: quarto.Quarto


class QuartoApi(CourseApi):
    """Quarto 2022-23: the player holding the piece answers `place_piece()`, then, unless that
    ends the game, `choose_piece()` for the opponent: together our `CELL:PIECE`. Each question
    gets `tries` answers, as the course's loop asks each until it is answered legally."""

    game_name = "quarto"
    served = quarto.SERVED
    method = "place_piece"
    question = "place_piece() and choose_piece()"

    def module(self, game):
        quarto.configure(game.squares)
        return quarto

    def construct(self, target, kwargs):
        """The player `target(quarto_object, **kwargs)` makes (a class, or a function making one).

        :raises BadAgent: what it makes lacks choose_piece or place_piece."""
        table = quarto.Quarto()
        player = target(table, **kwargs)
        if not (hasattr(player, "choose_piece") and hasattr(player, "place_piece")):
            raise BadAgent(f"{reprlib.repr(player)} cannot answer {self.question}: the course's quarto API "
                           "asks them of a player")
        return QuartoSeat(player, table)

    def ask(self, seat, game, state, legal, tries):
        pieces, hand = state
        board = np.array([-1 if piece < 0 else quarto.to_course(piece) for piece in pieces]).reshape(4, 4)

        def handover(shown: np.ndarray, selected: int, current: int, cell: str) -> str:
            """Our move `CELL:PIECE` for the piece the player hands over, shown the board `shown`."""

            def answer():
                seat.quarto._arrange(shown, selected, current)
                return seat.player.choose_piece()

            def judge(given):
                fault = quarto.selection_refusal(shown, given)
                if fault is not None:
                    return None, fault
                return legal_text(f"{cell}:{HEX[quarto.to_ours(int(given))]}", game, state, legal)

            return asked(tries, answer, judge)

        if hand == NO_PIECE:  # the opening: player 0 hands the first piece over
            return handover(board, -1, 0, "")
        selected = quarto.to_course(hand)
        placer = (int((board >= 0).sum()) + 1) % 2  # player 1 places the first piece

        def answer():
            seat.quarto._arrange(board, selected, placer)
            return seat.player.place_piece()

        def judge(given):
            try:
                x, y = given
            except (TypeError, ValueError):
                return None, "place_piece answers (x, y)"
            fault = quarto.placement_refusal(board, x, y)
            return (None, fault) if fault is not None else ((int(x), int(y)), "")

        x, y = asked(tries, answer, judge)
        cell = cell_name(y * 4 + x)
        if cell in legal:  # the placement ends the game: nothing is handed over
            return cell
        placed = board.copy()
        placed[y, x] = selected
        return handover(placed, selected, placer, cell)
