"""The process a user's Python agent runs in: `python -m retrograde.agents.user.host SETTINGS`
(SETTINGS: a JSON object, `process.host_command` writes it) speaks the engine protocol
(`protocol`) on the stdin and stdout it was started with, while the user's code gets its own:
what it prints goes to the log (this process's stderr), what it reads is empty.

It runs in the user's folder, with its own module namespace: the user's helper modules
(`game`, `utils`, ...) never meet another user's, and with `api=course` our compatible module
is served under the course's name (and under each `alias`) before the user's file is loaded, so
that its imports, and the tables it unpickles, find it.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from retrograde.agents.user import protocol
from retrograde.agents.user.calling import (LoadError, NativeApi, describe_exception, load_target, run_in,
                                            seat_of, seed_everything, seeded_keywords)
from retrograde.games import example_games, make_game
from retrograde.games.base import Game
from retrograde.games.capabilities import course_of
from retrograde.games.course_api import IllegalAnswer

#: Seconds between checks that the harness that started this process is still there.
WATCH_PARENT = 1.0


class Host:
    """One user agent in this process: loaded at `game`, a fresh player per `new` and seat."""

    def __init__(self, settings: dict[str, Any]):
        self.settings = settings
        self.game: Game | None = None
        self.api = NativeApi()
        self.target = None
        self.folder: Path | None = None
        self.seed = 0
        self.players: dict[int, Any] = {}
        self.seat: int | None = None

    # --- messages -----------------------------------------------------------------------------
    def answer(self, line: str) -> str | None:
        """The answer to one message (None: quit)."""
        word, rest = protocol.split(line)
        if word == "retrograde":
            return f"id python {version('retrograde')}"
        if word == "game":
            return self.load(*protocol.parse_game(rest))
        if word == "new":
            self.seed, self.seat = protocol.parse_new(rest)
            self.players = {}
            self.prepare()
            return "ready"
        if word == "position":
            return self.move(rest)
        if word == "quit":
            return None
        return f"forfeit exception the harness sent {word!r}, not a message of protocol {protocol.VERSION}"

    def load(self, name: str, params: dict[str, Any]) -> str:
        """Load the user's code for game `name` (once: a host plays one game instance)."""
        game = make_game(name, params)
        if self.game is not None:
            return "ready" if game.describe() == self.game.describe() else \
                f"refuse this process plays {self.game.describe()}, not {game.describe()}"
        if self.settings["api"] == "course":
            if course_of(game).api is None:
                offered = sorted(other for other, example in example_games().items() if course_of(example).api)
                return f"refuse api=course: the course has no API for {name} (it has one for {', '.join(offered)})"
            self.api = course_of(game).api
            served = self.api.module(game)
            for alias in [self.api.served, *self.settings["aliases"]]:
                sys.modules[alias] = served
        file = Path(self.settings["file"]) if self.settings["file"] else None
        try:
            if file is not None:
                run_in(file.parent)
                file = Path(file.name)
            self.target, self.folder = load_target(file, self.settings["module"], self.settings["name"])
        except LoadError as exc:
            return f"refuse {exc}"
        if file is None:
            run_in(self.folder)
        self.game = game
        return "ready"

    def prepare(self) -> None:
        """Make the players of a new game now, within the harness's start time rather than the
        first move's (a constructor that loads a table may take long): the seat given, or both.
        One that raises is made again at its first move, where the exception forfeits the move."""
        for seat in (self.seat,) if self.seat is not None else (0, 1):
            try:
                self.player(seat)
            except Exception:
                self.players.pop(seat, None)

    def player(self, seat: int) -> Any:
        """The player of `seat` in the current game: made by `prepare`, else now (its first move)."""
        if seat not in self.players:
            seed_everything(self.seed)
            keywords = {key: ast.literal_eval(value) if _is_literal(value) else value
                        for key, value in self.settings["keywords"]}
            if self.settings["seat"]:
                keywords[self.settings["seat"]] = seat
            self.players[seat] = self.api.construct(self.target, seeded_keywords(self.target, keywords, self.seed))
        return self.players[seat]

    def move(self, text: str) -> str:
        """The move the user's player answers at position `text`, or a forfeit line."""
        game = self.game
        state = game.parse(text)
        legal = dict(game.moves(state))
        seat = self.seat if self.seat is not None else seat_of(text)
        try:
            return "move " + self.api.ask(self.player(seat), game, state, legal, self.settings["tries"])
        except IllegalAnswer as exc:
            return f"forfeit illegal {_one_line(str(exc))}"
        except MemoryError as exc:
            return f"forfeit memory {_one_line(describe_exception(exc, self.folder))}"
        except BaseException as exc:  # the user's code, whatever it raises (SystemExit included)
            if isinstance(exc, KeyboardInterrupt):
                raise
            return f"forfeit exception {_one_line(describe_exception(exc, self.folder))}"


def _is_literal(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def _protocol_streams() -> tuple[BinaryIO, TextIO]:
    """Keep the protocol's stdin and stdout for ourselves; the user's code gets an empty stdin
    and writes to the log (fd 1 becomes a copy of stderr, so even C code's output goes there)."""
    incoming = os.fdopen(os.dup(0), "rb")
    outgoing = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    return incoming, outgoing


def _watch_parent() -> None:
    """Exit when the process that started us is gone (a killed worker leaves no host behind)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(WATCH_PARENT)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def main(argv: list[str]) -> int:
    settings = json.loads(argv[0])
    incoming, outgoing = _protocol_streams()
    _watch_parent()
    host = Host(settings)
    for raw in incoming:
        reply = host.answer(raw.decode("utf-8", errors="replace"))
        if reply is None:
            break
        outgoing.write(reply + "\n")
    outgoing.flush()
    os._exit(0)  # the user's threads must not keep the process alive


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
