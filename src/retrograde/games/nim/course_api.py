"""The Nim lab's course API (2022-23): a student's `strategy(state)` asked at our positions."""

from __future__ import annotations

from retrograde.games.course_api import CourseApi, asked, legal_text
from retrograde.games.nim import course_game as nim


class NimApi(CourseApi):
    """The Nim lab: `strategy(state) -> Nimply(row, num_objects)`, row 0-based (ours: HEAP-COUNT,
    heap 1-based, heaps in the same order)."""

    game_name = "nim"
    served = nim.SERVED
    method = None
    question = "strategy(state)"

    def module(self, game):
        return nim

    def ask(self, player, game, state, legal, tries):
        def judge(given):
            fault = nim.refusal(state, game.max_take, given)
            if fault is not None:
                return None, fault
            row, num_objects = map(int, given)
            return legal_text(f"{row + 1}-{num_objects}", game, state, legal)

        return asked(tries, lambda: player(nim.Nim.with_rows(state, game.max_take)), judge)
