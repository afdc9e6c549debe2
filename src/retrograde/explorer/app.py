"""The explorer's web app (SPEC §8): a page and a JSON API over one solved store, read-only.

`GET /api/probe?position=P` answers what `probe --json` prints for P, and adds what the page draws
(`Explorer.probe`); `GET /api/move?position=&agent=&p=&seed=` the move an agent named at start
chooses (`Explorer.move`); `GET /api/game` the game and the agents; `GET /` and `GET /?position=P`
the page (static/). A bad query is answered with HTTP 400 and one line, a position outside the
store's tiers with 404 and one line; the server goes on.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import asdict
from pathlib import Path

import numpy as np
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from retrograde import outcome as oc
from retrograde.agents import parse_spec, resolve_agents
from retrograde.agents.base import Forfeit
from retrograde.agents.registry import playable_agents
from retrograde.data.probing import Analysis, analyse
from retrograde.errors import BadAgent, BadOption, MissingTierError, RetrogradeError
from retrograde.games.capabilities import display_of

STATIC = Path(__file__).with_name("static")


#: The agents the page offers when none are named: those of these that can play the game.
DEFAULT_AGENTS = ("lookup", "random", "greedy", "minimax:depth=2")


class Explorer:
    """What the app serves: one read-only store, the agents named at start (built once, so that a
    request can name neither a file nor a deeper search), and one lock, since the store's chunk
    cache and the agents' random generators are not shared between threads."""

    def __init__(self, store, agent_specs: str | list | None):
        self.store = store
        self.game = store.game
        self.agents = {}
        chosen = (playable_agents(DEFAULT_AGENTS, self.game, store) if agent_specs is None
                  else resolve_agents(agent_specs, self.game, store))
        for resolved, agent in chosen:
            self.agents[resolved.spec] = agent
        self.lock = threading.Lock()

    def position(self, text: str | None):
        """The position a query names: the game's start when absent or empty (BadPosition if bad)."""
        return self.game.initial_position if text is None or not text.strip() else self.game.parse(text)

    def info(self) -> dict:
        """The game, its start and the agents the page offers."""
        return {"game": self.game.name, "describe": self.game.describe(), "notation": self.game.notation,
                "start": self.game.format(self.game.initial_position), "agents": list(self.agents)}

    def analysis(self, position) -> Analysis:
        """`probe`'s analysis of a position (MissingTierError where the store lacks a tier it needs)."""
        try:
            with self.lock:
                return analyse(self.store, [position])[0]
        except MissingTierError as exc:
            raise MissingTierError(f"position {self.game.format(position)!r} is not in this store: {exc}") from None

    def probe(self, text: str | None) -> dict:
        """The `probe --json` object of a position, and for the page: `board` (its `Picture`),
        `changes` (per move, the cells whose token it changes, as [cell, token after it], and whether
        it changes the pieces beside the board), `value_text` ("win in 7", "draw", "game over: x
        wins") and `over` (no moves left)."""
        position = self.position(text)
        analysis = self.analysis(position)
        board = display_of(self.game).picture(position)
        answer = analysis.to_json(self.game)
        answer["board"] = board.to_json()
        answer["changes"] = [_changes(board, display_of(self.game).picture(move.position)) for move in analysis.moves]
        answer["over"] = not analysis.moves
        answer["value_text"] = _result(analysis, board) if not analysis.moves else str(analysis.value)
        return answer

    def move(self, text: str | None, agent_text: str | None, p_text: str | None, seed_text: str | None) -> dict:
        """The move agent `agent_text` (one named at start; the first if none) chooses at the
        position, with probability p (default 1), else a legal move drawn uniformly: both drawn
        from `seed` (default 0), so the same query gives the same move."""
        position = self.position(text)
        agent = self._agent(agent_text)
        p = _probability(p_text)
        seed = _seed(seed_text)
        moves = self.game.moves(position)
        if not moves:
            raise BadOption(f"position {self.game.format(position)!r}: the game is over, there is no move to choose")
        rng = np.random.default_rng(seed)
        with self.lock:
            if rng.random() < p:
                agent.rng.bit_generator.state = np.random.default_rng([seed, 1]).bit_generator.state
                try:
                    move, child = agent.choose(position)
                except Forfeit as exc:  # a user's agent gave up the move: the page says why
                    raise BadAgent(f"agent {agent.spec!r} forfeits ({exc.reason}): {exc.detail}") from None
                by = "agent"
            else:
                move, child = moves[int(rng.integers(len(moves)))]
                by = "random"
        return {"agent": agent.spec, "move": move, "position": self.game.format(child), "by": by, "p": p, "seed": seed}

    def _agent(self, text: str | None):
        if text is None or not text.strip():
            return next(iter(self.agents.values()))
        try:  # the grammar alone: a request names an agent offered, it resolves none (reads no file)
            spec = str(parse_spec(text))
        except BadAgent:
            spec = text
        if spec not in self.agents:
            raise BadAgent(f"agent {text!r} is not offered here; this explorer offers: {', '.join(self.agents)} "
                           "(explore --agents names them)")
        return self.agents[spec]


def _changes(board, child) -> dict:
    """The cells a move changes (its position's picture against its child's) and the tokens there
    after it, and whether the pieces beside the board change."""
    cells = [[cell, None if after is None else asdict(after)]
             for cell, (before, after) in enumerate(zip(board.cells, child.cells)) if before != after]
    return {"cells": cells, "aside": board.aside != child.aside}


def _result(analysis: Analysis, board) -> str:
    """A finished game's result in words: who won, by the side names the picture gives."""
    if analysis.value.outcome == oc.DRAW:
        return "game over: a draw"
    if analysis.value.outcome == oc.LOSS:
        return f"game over: {board.other or 'the player who moved last'} wins"
    return f"game over: {board.mover or 'the player to move'} wins"


#: Numbers in a query: ASCII digits only (float() and int() also read '١', '1_0', 'nan', 'inf';
#: str.isdigit() passes '²', which int() refuses).
DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?", re.ASCII)
WHOLE = re.compile(r"[0-9]{1,20}", re.ASCII)
#: Seeds are 64-bit: numpy's generators take them as they are.
MAX_SEED = 2**64 - 1


def _probability(text: str | None) -> float:
    if text is None or not text.strip():
        return 1.0
    p = float(text) if DECIMAL.fullmatch(text.strip()) else math.nan
    if not 0 <= p <= 1:
        raise BadOption(f"p={text!r}: give the agent's share of moves as a number from 0 to 1")
    return p


def _seed(text: str | None) -> int:
    if text is None or not text.strip():
        return 0
    seed = int(text) if WHOLE.fullmatch(text.strip()) else -1
    if not 0 <= seed <= MAX_SEED:
        raise BadOption(f"seed={text!r}: give a whole number from 0 to {MAX_SEED}")
    return seed


def _line(message: str, status: int) -> Response:
    return Response(" ".join(message.split()) + "\n", status=status, mimetype="text/plain")


def create_app(explorer: Explorer) -> Flask:
    """The Flask app of `explorer`: the page, its static files and the API."""
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.json.sort_keys = False  # the keys in probe --json's order

    @app.get("/")
    def page():
        if request.args.get("position", "").strip():  # a bad link is answered as the API would
            explorer.analysis(explorer.position(request.args["position"]))
        return app.send_static_file("index.html")

    @app.get("/api/game")
    def game():
        return explorer.info()

    @app.get("/api/probe")
    def probe():
        return explorer.probe(request.args.get("position"))

    @app.get("/api/move")
    def move():
        args = request.args
        return explorer.move(args.get("position"), args.get("agent"), args.get("p"), args.get("seed"))

    @app.errorhandler(RetrogradeError)
    def refused(exc: RetrogradeError):
        return _line(str(exc), 404 if isinstance(exc, MissingTierError) else 400 if exc.exit_code == 2 else 500)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return _line(f"{exc.name}: {exc.description}", exc.code or 500)

    @app.errorhandler(Exception)
    def failed(exc: Exception):
        app.logger.error("%s: %s", type(exc).__name__, exc)
        return _line(f"internal error: {type(exc).__name__}: {exc}", 500)

    return app
