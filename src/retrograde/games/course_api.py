"""The course's game APIs (docs/course.md): a student's player written against the course's code
runs unchanged, asked in the course's terms, its answers mapped onto our notation.

A game whose course had an API gives a `CourseApi` (its `course` capability's `api`): the module
it serves under the course's name (`module`, `served`; the module itself lies in the game's
folder, `course_game.py`), the player it makes of the user's class or function (`construct`),
and the move in our notation the player answers at one of our positions (`ask`), asked again, as
the course's loops do, while its answer is not legal. `agents.user.calling.NativeApi` is the
same shape for our own notation.
"""

from __future__ import annotations

import functools
import inspect
import reprlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

from retrograde.errors import BadAgent
from retrograde.games.base import Game, State


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
