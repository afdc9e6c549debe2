"""How a user's code is loaded, seeded and asked for a move: in its host process (`host`) and,
for an object given to the Python API, in ours (`agents.ObjectAgent`).

The native API (docs/agents.md): a callable `f(position)`, or an object with `choose(position)`,
given a `Position` and answering a move in our notation (or a (move, ...) tuple, as
`retrograde.Agent.choose` answers). The course's APIs (`games.course_api`) answer in the course's terms
and are mapped onto ours. A class is instantiated per game and seat; a `seed` or `rng` keyword of
its constructor (of a function: of its signature) gets one derived from the run's seed.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import random
import sys
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from retrograde.games.base import Game, State
from retrograde.games.course_api import CourseApi, asked
from retrograde.games.position import Position


class LoadError(Exception):
    """The user's code cannot be loaded: one line naming the file (and line) and the problem."""


def where(exc: BaseException, folder: Path | None) -> str:
    """`FILE:LINE` of the innermost frame of `exc` in the user's folder (else the innermost)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    inside = [frame for frame in frames if folder is not None and Path(frame.filename).is_relative_to(folder)]
    frame = (inside or frames or [None])[-1]
    return f"{frame.filename}:{frame.lineno}" if frame is not None else "?"


def describe_exception(exc: BaseException, folder: Path | None) -> str:
    """One line: the exception, its message and where in the user's code it was raised."""
    message = str(exc).splitlines()[0] if str(exc) else ""
    if isinstance(exc, SyntaxError):
        message = exc.msg
    return f"{type(exc).__name__}{': ' + message if message else ''} ({where(exc, folder)})"


def load_target(file: Path | None, module: str | None, name: str) -> tuple[Any, Path | None]:
    """The object called `name` in the user's `file` (its folder first on sys.path, loaded under
    its stem) or importable `module`, and the folder the user's code lies in.

    :raises LoadError: no such file or module, an error while loading it, or no such name."""
    if file is not None:
        folder = file.parent.resolve()
        if not file.is_file():
            raise LoadError(f"{file}: no such file")
        sys.path.insert(0, str(folder))
        spec = importlib.util.spec_from_file_location(file.stem, file)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[file.stem] = loaded
        what = str(file)
        try:
            spec.loader.exec_module(loaded)
        except BaseException as exc:  # the user's code, whatever it raises
            raise LoadError(f"{what}: cannot load it: {describe_exception(exc, folder)}") from None
    else:
        what = f"module {module}"
        try:
            loaded = importlib.import_module(module)
        except BaseException as exc:
            raise LoadError(f"{what}: cannot import it: {describe_exception(exc, None)}") from None
        folder = Path(loaded.__file__).parent.resolve() if getattr(loaded, "__file__", None) else None
    if not hasattr(loaded, name):
        defined = sorted(key for key, value in vars(loaded).items()
                         if not key.startswith("_") and (inspect.isclass(value) or inspect.isfunction(value))
                         and getattr(value, "__module__", None) == loaded.__name__)
        raise LoadError(f"{what} has no {name!r}" + (f" (it defines: {', '.join(defined)})" if defined else ""))
    return getattr(loaded, name), folder


def seed_everything(seed: int) -> None:
    """Seed the generators user code draws from without asking: `random` and numpy's global one."""
    random.seed(seed)
    np.random.seed(seed % 2**32)


def seeded_keywords(target: Any, keywords: dict[str, Any], seed: int) -> dict[str, Any]:
    """`keywords` with `seed` (an int) and `rng` (a numpy Generator) added where `target`'s
    signature (a class's constructor) takes them and the user gave none."""
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return dict(keywords)
    given = dict(keywords)
    if "seed" in parameters and "seed" not in given:
        given["seed"] = seed
    if "rng" in parameters and "rng" not in given:
        given["rng"] = np.random.default_rng(seed)
    return given


def seat_of(text: str) -> int:
    """The seat of the side to move in a position's notation: 1 where it ends with o to move
    (x moves first in every game written so), else 0."""
    return 1 if text.endswith(" o") else 0


class NativeApi(CourseApi):
    """The native API: a callable or an object with `choose`, given a `Position`, answering a
    move in our notation; made and asked again as a course API's player is."""

    game_name = "any game"
    served = None
    method = "choose"
    question = "choose(position)"

    def module(self, game: Game):
        return None

    def ask(self, player: Any, game: Game, state: State, legal: dict[str, State], tries: int) -> str:
        position = Position(game, state)
        choose = self.answering(player)

        def judge(given):
            move = answer_text(given, game, legal)
            return move, "" if move is not None else (f"not a legal move in {game.format(state)} (moves are "
                                                      f"written like {next(iter(legal))})")

        return asked(tries, lambda: choose(position), judge)


def answer_text(answer: Any, game: Game, legal: dict[str, State]) -> str | None:
    """The legal move an answer names (a move text in any case, a (move, ...) tuple, or the
    `Position` the move leads to), or None."""
    if isinstance(answer, (tuple, list)) and answer and isinstance(answer[0], str):
        answer = answer[0]
    if isinstance(answer, Position):
        return next((move for move, child in legal.items() if child == answer.state), None)
    if isinstance(answer, str):
        text = answer.strip().lower()
        return next((move for move in legal if move.lower() == text), None)
    return None


def run_in(folder: Path | None) -> None:
    """Make `folder` (the user's) the working directory, as if the user ran their code there."""
    if folder is not None:
        os.chdir(folder)
