"""What `probe` and `play` say about positions in words: a position's value (or that the game is
over, and who won), and a terminal session that answers each position as soon as it is typed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TextIO

from retrograde import outcome as oc
from retrograde.data.probing import Analysis, analyse
from retrograde.data.store import Store
from retrograde.errors import BadPosition, MissingTierError
from retrograde.games.base import Game, State

#: A finished position's result, from the side to move's view (the game's `primitive` code).
GAME_OVER = {oc.LOSS: "game over: the side to move has lost (the other side won)",
             oc.WIN: "game over: the side to move has won",
             oc.DRAW: "game over: a draw"}

#: What ends a terminal session besides the end of input and an empty line.
QUIT = ("quit", "exit", "q")


def game_over(game: Game, position: State) -> str | None:
    """'game over: ...' with who won, for a finished position; None while the game goes on."""
    return GAME_OVER.get(game.primitive(position))


def answer_lines(game: Game, analysis: Analysis, *, as_json: bool) -> list[str]:
    """`probe`'s answer for one position: its JSON object (JSON Lines), or its value (or that the
    game is over) and each move's value, one line each."""
    if as_json:
        return [json.dumps(analysis.to_json(game))]
    head = game_over(game, analysis.position) or str(analysis.value)
    return [f"{game.format(analysis.position)}: {head}",
            *(f"  {m.move:<8} {str(m.value):<12} -> {game.format(m.position)}" for m in analysis.moves)]


def answer_as_typed(store: Store, stdin: TextIO, *, as_json: bool, say: Callable[..., None]) -> int:
    """`probe` on a terminal: prompt, read one position, answer it at once, until the end of
    input, an empty line or 'quit'. A bad position, or one whose tier the store lacks, gets one
    error line and the session goes on; returns how many there were. `say(text, err=False)` prints (click.echo)."""
    game, bad = store.game, 0
    say(f"type a {game.name} position and Enter, e.g. {game.format(game.initial_position)}; "
        f"an empty line, 'quit' or Ctrl-D ends", err=True)
    while True:
        say("position> ", nl=False, err=True)
        text = stdin.readline()
        if not text.strip() or text.strip().lower() in QUIT:
            if not text.endswith("\n"):  # Ctrl-D: end the prompt's line
                say("", err=True)
            return bad
        try:
            analysis = analyse(store, [game.parse(text.strip())])[0]
        except (BadPosition, MissingTierError) as exc:
            bad += 1
            say(f"retrograde: error: {exc}", err=True)
            continue
        say("\n".join(answer_lines(game, analysis, as_json=as_json)))
