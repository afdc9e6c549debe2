"""Quixo's course API (2023-24): a student's `make_move(game)` player asked at our positions."""

from __future__ import annotations

import numpy as np

from retrograde.games.course_api import CourseApi, asked, legal_text
from retrograde.games.quixo import course_game as quixo


class QuixoApi(CourseApi):
    """Quixo 2023-24: `make_move(game) -> ((x, y), Move)`, player 0 being our x (moves first)."""

    game_name = "quixo"
    served = quixo.SERVED
    method = "make_move"
    question = "make_move(game)"

    def module(self, game):
        quixo.configure(game.size)
        return quixo

    def ask(self, player, game, state, legal, tries):
        cells, side = state
        n = game.size
        board = np.array([{"x": 0, "o": 1}.get(cell, -1) for cell in cells], dtype=quixo.BOARD_DTYPE).reshape(n, n)
        player_id = 0 if side == "x" else 1
        make_move = self.answering(player)

        def answer():
            shown = quixo.Game()
            shown._board = board.copy()
            shown.current_player_idx = player_id
            return make_move(shown)

        def judge(given):
            try:
                from_pos, slide = given
            except (TypeError, ValueError):
                return None, "make_move answers ((x, y), Move)"
            fault = quixo.refusal(board, from_pos, slide, player_id)
            if fault is not None:
                return None, fault
            x, y = map(int, from_pos)
            to_x, to_y = quixo.destination(x, y, slide, n)
            return legal_text(f"{game.cell_name(y * n + x)}-{game.cell_name(to_y * n + to_x)}", game, state, legal)

        return asked(tries, answer, judge)
