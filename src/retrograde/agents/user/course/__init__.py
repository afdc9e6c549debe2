"""The course's game APIs, served by our own compatible modules (docs/course.md): a student's
player written against the course's code runs unchanged, asked in the course's terms, its
answers mapped onto our notation.

One `CourseApi` a game (`COURSE_APIS`), what the host process (`agents.user.host`) uses: the
module it serves under the course's name (`module`, `served`), the player it makes of the
user's class or function (`construct`), and the move in our notation the player answers at one
of our positions (`ask`), asked again, as the course's loops do, while its answer is not legal.
"""

from __future__ import annotations

import functools
import inspect
import reprlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from retrograde.agents.user.course import nim, quarto, quixo
from retrograde.errors import BadAgent
from retrograde.games.base import Game, State
from retrograde.games.quarto.cells import HEX, NO_PIECE, cell_name


class IllegalAnswer(Exception):
    """A player's answers at one position were all illegal (as many as the tries allow): the
    message is one line naming the last answer and why it is not legal."""


def asked(tries: int, answer: Callable[[], Any], judge: Callable[[Any], tuple[Any, str]]) -> Any:
    """What `judge` makes of the first acceptable answer, asking with `answer` up to `tries` times
    (`judge` returns (what the answer means, or None where it is not acceptable; why not)).

    :raises IllegalAnswer: `tries` answers, none acceptable; names the last and why."""
    for _ in range(tries):
        given = answer()
        meaning, fault = judge(given)
        if meaning is not None:
            return meaning
    raise IllegalAnswer(f"answered {reprlib.repr(given)}: {fault} ({tries} answers, none legal)")


def legal_text(text: str, game: Game, state: State, legal: dict[str, State]) -> tuple[str | None, str]:
    """(text, "") where the move `text` is one of `legal`, else (None, why not)."""
    return (text, "") if text in legal else (None, f"{text} is not a legal move in {game.format(state)}")


class CourseApi(ABC):
    """One game's course API: the module served, the player made, the move asked."""

    #: Our game's name.
    game_name: ClassVar[str]
    #: The name students import the module by.
    served: ClassVar[str]
    #: The method the course asks a player object, or None where a player is a function called itself.
    method: ClassVar[str | None]
    #: What the course asks a player, as its messages say it.
    question: ClassVar[str]

    @abstractmethod
    def module(self, game: Game) -> ModuleType:
        """Our compatible module, configured for `game` (its board size or lines)."""

    def construct(self, target: Any, kwargs: dict[str, Any]) -> Any:
        """A player: a class instantiated with `kwargs`; a function bound to them.

        :raises BadAgent: what is made neither has the course's method nor is callable."""
        player = target(**kwargs) if inspect.isclass(target) else \
            functools.partial(target, **kwargs) if kwargs else target
        if not (callable(player) or self.method and hasattr(player, self.method)):
            raise BadAgent(f"{reprlib.repr(player)} cannot answer {self.question}: the course's "
                           f"{self.game_name} API asks it of a player")
        return player

    def answering(self, player: Any) -> Callable:
        """What answers for `player`: its course method, or the player itself."""
        return getattr(player, self.method) if self.method and hasattr(player, self.method) else player

    @abstractmethod
    def ask(self, player: Any, game: Game, state: State, legal: dict[str, State], tries: int) -> str:
        """The move text (our notation) `player` answers at `state` of `game` (`legal`: our legal
        move texts -> children), asking again while the answer is not legal, `tries` answers in
        all. Exceptions the player's code raises propagate unchanged.

        :raises IllegalAnswer: `tries` answers, none legal."""


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


#: One API a game: our game's name -> its adapter.
COURSE_APIS: dict[str, CourseApi] = {api.game_name: api for api in (QuixoApi(), QuartoApi(), NimApi())}
