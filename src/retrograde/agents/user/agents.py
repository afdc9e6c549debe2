"""The agents of users' code: `python` (a Python file or module, in its host process), `engine`
(a program in any language) and, from the Python API, any object (`ObjectAgent`, in this process).

Each is a `Player` whose `choose` gets a legal move or raises `Forfeit`: the user's agent never
breaks a run. A process that times out or dies is discarded and the next move starts a new one.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import json
import os
import re
import shlex
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from retrograde.agents.base import Forfeit, Player
from retrograde.agents.user import protocol
from retrograde.agents.user.calling import NativeApi, describe_exception, seeded_keywords
from retrograde.agents.user.identity import SHORT, code_digest, command_digest, files_digest, module_file
from retrograde.agents.user.process import START_TIME, AgentProcess, Launch, ProcessGone, Refused, lease
from retrograde.errors import BadAgent
from retrograde.games.base import Game, State
from retrograde.games.course_api import IllegalAnswer
from retrograde.spec import Option

#: The limits every user's agent plays under (options of `python` and `engine`).
LIMITS = (
    Option("move_time", "seconds an answer may take before the move is forfeited (--move-time)", 10.0,
           kind="float", low=0.001, high=86400),
    Option("tries", "answers a move may take while they are illegal (the course loop asks again)", 100,
           low=1, high=100_000),
    Option("memory", "MiB of address space the agent's process may use (past it: a forfeit by memory)", 2048,
           low=64, high=2**22),
    Option("logs", "folder of the agent's log (its output and stderr; default: the report's logs/ folder, "
           "else the system's temporary folder)", None, kind="text"),
)


def log_path(logs: str | None, label: str) -> str:
    """The agent's log file: `label` made a file name, in `logs` (default: the temporary folder)."""
    folder = Path(logs) if logs else Path(tempfile.gettempdir()) / "retrograde-agent-logs"
    return str(folder.absolute() / (re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_") + ".log"))


#: Numbers of the players made in this process (never reused, as `id` may be once one is gone).
_PLAYERS = itertools.count()


class ProcessAgent(Player):
    """A user's agent in a process of its own speaking the engine protocol (`protocol`)."""

    open_options: ClassVar[bool] = False

    def __init__(self, game: Game, *, seed: int, store=None, **values):
        super().__init__(game, seed=seed, store=store)
        self.move_time, self.tries = values["move_time"], values["tries"]
        self.launch = self.launch_of(values)
        self._game_line = protocol.game_line(game.name, game.params)
        self._seat: int | None = None
        self._player = next(_PLAYERS)  # with the games begun, the `owner` a process plays for
        self._games = 0
        self._game_seed = int(self.rng.integers(2**62))

    @classmethod
    def launch_of(cls, values: dict[str, Any]) -> Launch:
        """How to start the agent's process, from its resolved values (`identify`'s)."""
        raise NotImplementedError

    def new_game(self, seat: int | None) -> None:
        """The next game is played anew by the user's agent (`new` with a seed drawn here)."""
        self._seat, self._games = seat, self._games + 1
        self._game_seed = int(self.rng.integers(2**62))

    def choose(self, position: State) -> tuple[str, State]:
        text = self.game.format(position)
        legal = dict(self.game.moves(position))
        try:
            with lease(self.launch, self._game_line) as process:
                owner = (self._player, self._games)
                if process.owner != owner:  # a new game, or a process another player used last
                    self._expect(process.request(protocol.new_line(self._game_seed, self._seat), START_TIME),
                                 "ready")
                    process.owner = owner
                return self._ask(process, text, legal)
        except ProcessGone as exc:
            raise Forfeit(exc.reason, exc.detail) from None
        except Refused as exc:
            raise Forfeit("exception", f"its process refused the game: {exc}") from None

    def _ask(self, process, text: str, legal: dict[str, State]) -> tuple[str, State]:
        """The legal move the process answers at `text`, asked again while it answers none."""
        answer = ""
        for _ in range(self.tries):
            answer = process.request(f"position {text}", self.move_time)
            word, rest = protocol.split(answer)
            if word == "forfeit":
                raise Forfeit(*protocol.parse_forfeit(rest))
            if word != "move":
                raise Forfeit("exception", f"answered {answer[:200]!r}, not 'move MOVE' or 'forfeit REASON TEXT'")
            move = next((known for known in legal if known.lower() == rest.lower()), None)
            if move is not None:
                return move, legal[move]
        raise Forfeit("illegal", f"answered {answer[:200]!r}, not a legal move in {text!r} ({self.tries} answers, "
                                 "none legal)")

    @staticmethod
    def _expect(answer: str, word: str) -> None:
        if protocol.split(answer)[0] != word:
            raise Forfeit("exception", f"answered {answer[:200]!r}, not {word!r}")

    @classmethod
    def check(cls, values: dict[str, Any], game: Game, label: str) -> str:
        """Start the process once, where the spec is resolved, and let it quit: a file that cannot
        load, a game an engine refuses, a broken handshake are one line (BadAgent) before any
        work, and nothing is written (its output goes nowhere, not to its log). Its handshake's id.

        :raises BadAgent: as said, or the command cannot start."""
        process = None
        try:
            process = AgentProcess(replace(cls.launch_of(values), log=os.devnull))
            process.start(protocol.game_line(game.name, game.params))
            return process.identity
        except Refused as exc:
            raise BadAgent(f"agent {label!r}: {exc}") from None
        except ProcessGone as exc:
            raise BadAgent(f"agent {label!r} did not start: {exc.reason}: {exc.detail}") from None
        except OSError as exc:
            raise BadAgent(f"agent {label!r}: cannot start {values.get('command') or 'its host'} "
                           f"({exc.strerror or exc})") from None
        finally:
            if process is not None:
                process.close()


class PythonAgent(ProcessAgent):
    name = "python"
    summary = ("your own Python agent: a class or function in a file or module, natively or against the course's "
               "API (docs/agents.md, docs/course.md); other KEY=VALUE are its constructor's keywords")
    open_options = True
    options = (
        Option("file", "the Python file defining the agent (its folder is on sys.path and its working directory)",
               None, kind="file"),
        Option("module", "or the importable module defining it", None, kind="text"),
        Option("name", "the class or function the agent is", None, kind="text"),
        Option("api", "native: it is given a Position and answers a move in our notation; course: it plays "
               "against the course's API of the game", "native", kind="choice", choices=("native", "course")),
        Option("alias", "serve the course's module under this name too (a private copy of the course's code)",
               None, kind="text"),
        Option("seat", "the constructor keyword that takes the seat it plays (0 moves first, 1)", None, kind="text"),
        *LIMITS,
    )

    @classmethod
    def launch_of(cls, values: dict[str, Any]) -> Launch:
        file = values["file"]
        host = {"file": file, "module": values["module"], "name": values["name"], "api": values["api"],
                "aliases": [values["alias"]] if values["alias"] else [], "seat": values["seat"],
                "tries": values["tries"], "keywords": [list(pair) for pair in values["keywords"]]}
        return Launch((sys.executable, "-m", "retrograde.agents.user.host", json.dumps(host)),
                      str(Path(file).parent) if file else values["cwd"], log_path(values["logs"], values["label"]),
                      values["memory"])

    @classmethod
    def identify(cls, values: dict[str, Any], game: Game) -> tuple[str, str, dict[str, Any]]:
        """(stream name, the name in reports, values to build with) of a resolved spec: known by its
        code's digest and its keywords, named by its class or function and its keywords.

        :raises BadAgent: neither or both of file and module, no name, a module not found, or the
            code cannot be loaded."""
        file, module, name = values["file"], values["module"], values["name"]
        if (file is None) == (module is None):
            raise BadAgent("agent python: give file=PATH or module=pkg.mod (one of them), and name=NAME")
        if not name:
            raise BadAgent(f"agent python ({file or module}): give name=NAME, the class or function that plays")
        digest = code_digest(Path(file) if file else module_file(module, Path.cwd()))
        keywords = values["keywords"]
        written = ",".join(f"{key}={value}" for key, value in keywords)
        label = f"{name}{'(' + written + ')' if written else ''}@{digest.split(':')[1][:SHORT]}"
        kept = {key: values[key] for key in ("api", "alias", "seat") if values[key] not in (None, "native")}
        stream_options = [f"code={digest}", f"name={name}", *(f"{k}={v}" for k, v in kept.items()),
                          *(f"{key}=({value})" for key, value in keywords)]
        built = {**values, "file": str(Path(file).absolute()) if file else None, "cwd": os.getcwd(), "label": label}
        cls.check(built, game, label)
        return "python:" + ",".join(stream_options), label, built


class EngineAgent(ProcessAgent):
    name = "engine"
    summary = "a program in any language speaking the engine protocol on stdin and stdout (docs/engine.md)"
    options = (
        Option("command", "the command that starts the engine (in parentheses if it holds a comma)", None,
               kind="text"),
        Option("cwd", "the folder it starts in (default: the current one)", None, kind="text"),
        *LIMITS,
    )

    @classmethod
    def launch_of(cls, values: dict[str, Any]) -> Launch:
        return Launch(tuple(shlex.split(values["command"])), values["cwd"], log_path(values["logs"], values["label"]),
                      values["memory"])

    @classmethod
    def identify(cls, values: dict[str, Any], game: Game) -> tuple[str, str, dict[str, Any]]:
        """Known by its handshake's `id` and the files its command names (their content, never
        their paths); named by its `id`.

        :raises BadAgent: no command, a command that cannot be split, or an engine that does
            not start, breaks the handshake or refuses the game."""
        command = values["command"]
        if not command:
            raise BadAgent("agent engine: give command=(PROGRAM ARGUMENTS)")
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise BadAgent(f"agent engine: command={command}: {exc}") from None
        cwd = str(Path(values["cwd"] or os.getcwd()).absolute())
        identity = cls.check({**values, "cwd": cwd, "label": "engine"}, game, f"engine {command}")
        digest = command_digest(words, Path(cwd), identity)
        label = f"{identity}@{digest.split(':')[1][:SHORT]}"
        return f"engine:id=({identity}),code={digest}", label, {**values, "cwd": cwd, "label": label}


class ObjectAgent(Player):
    """An object given to the Python API (a callable, or an object with `choose`), asked in this
    process: an exception or illegal answers past the tries forfeit the move; an answer past
    the move time forfeits it once given (an object in our process cannot be stopped); what it
    prints goes to its log. An object is one player for every game (it is not made anew)."""

    name = "object"
    summary = "an object given to the Python API"

    def __init__(self, game: Game, *, seed: int, store=None, target: Any, move_time: float = 10.0,
                 tries: int = 100, logs: str | None = None, label: str = "object"):
        super().__init__(game, seed=seed, store=store)
        made = inspect.isclass(target) or inspect.isfunction(target)  # an instance is used as given
        self.player = NativeApi().construct(target, seeded_keywords(target, {}, seed)) if made else target
        self.move_time, self.tries, self.log = move_time, tries, log_path(logs, label)

    def choose(self, position: State) -> tuple[str, State]:
        legal = dict(self.game.moves(position))
        Path(self.log).parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with open(self.log, "a") as log, contextlib.redirect_stdout(log):
            try:
                move = NativeApi().ask(self.player, self.game, position, legal, self.tries)
            except IllegalAnswer as exc:
                raise Forfeit("illegal", str(exc)) from None
            except MemoryError as exc:
                raise Forfeit("memory", describe_exception(exc, None)) from None
            except Exception as exc:  # the user's code, whatever it raises
                raise Forfeit("exception", describe_exception(exc, None)) from None
        seconds = time.perf_counter() - started
        if seconds > self.move_time:
            raise Forfeit("timeout", f"answered after {seconds:.3g} s, past the move time of {self.move_time:g} s")
        return move, legal[move]


def object_label(target: Any) -> str:
    """An object's name in reports: its own `name` attribute where it has one (a string), else
    its class's name (a function's own name)."""
    given = getattr(target, "name", None)
    if isinstance(given, str) and given:
        return given
    if inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target):
        return target.__name__
    return type(target).__name__


def object_stream(target: Any, label: str) -> str:
    """An object's stream name: its label and the digest of its class's (function's) source."""
    try:
        source = inspect.getsource(target if inspect.isfunction(target) or inspect.isclass(target) else type(target))
    except (OSError, TypeError):
        source = ""
    return f"object:name=({label}),code={files_digest((), source)}"
