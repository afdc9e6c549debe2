"""A person plays an agent in the terminal (`retrograde play`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count

import click

from retrograde import outcome as oc
from retrograde.agents.base import Agent
from retrograde.agents.lookup import preference
from retrograde.data.probing import analyse, values
from retrograde.data.store import SOLVED, Store
from retrograde.errors import StoreError
from retrograde.games.base import Game, Position

#: A `read` function: shows a prompt, returns the line typed (EOFError at the end of input).
Read = Callable[[str], str]


def _some(names: list[str], shown: int = 6) -> str:
    """A list of tier names short enough for one line."""
    if len(names) <= shown:
        return ", ".join(names)
    return ", ".join(names[:shown - 1]) + f", ... {names[-1]} ({len(names)} in all)"


def check_playable(store: Store, start: Position) -> None:
    """Refuse, before the first move, a store that cannot value every position reachable from
    `start`: the lookup agent, hints and a stopped game's value read them, and must not fail
    mid-game. Moves only lead into child tiers, which a complete store holds with their parents.

    :raises StoreError: the store is not completely solved, or lacks the start position's tier.
    """
    path, game = str(store.path), store.game
    tiers = [tier.name for tier in store.plan.tiers]
    if not store.complete:
        unsolved = [name for name in tiers if store.record(name).status != SOLVED]
        raise StoreError(f"store {path!r} is not completely solved ({len(tiers) - len(unsolved)} of "
                         f"{len(tiers)} tiers solved; not yet: {_some(unsolved)}); finish it with "
                         f"'retrograde solve {game.describe()} --store {path}' before playing")
    tier, _ = game.locate(start)
    if tier not in tiers:
        raise StoreError(f"store {path!r} ({game.describe()}) does not hold the start position "
                         f"{game.format(start)!r} (tier {tier}); --from positions must lie in its tiers: "
                         f"{_some(tiers)}")


def help_text(game: Game, position: Position) -> str:
    """What the player may type (the `help` command)."""
    example = game.moves(position)[0][0]
    return "\n".join([
        f"  a move, e.g. {example}: play it (upper case accepted; notation: {game.notation})",
        "  moves    list the legal moves",
        "  hint     every legal move's value from the store, best first",
        "  help, ?  this list",
        "  quit     stop the game",
    ])


def hint(store: Store, position: Position) -> str:
    """Every legal move with the value it achieves for the mover, best first (the `hint` command)."""
    moves = sorted(analyse(store, [position])[0].moves, key=preference)
    return "\n".join(f"  {move.move:<8} {move.value}" for move in moves)


def stopped(store: Store, position: Position, *, plies: int, mover: str) -> str:
    """The line that ends a game stopped by --max-plies: not a draw, but the stored value."""
    value = values(store, [position])[0]
    verdict = "a draw" if value.outcome == oc.DRAW else f"a {value} for {mover} (to move)"
    return f"Stopped after {plies} {'ply' if plies == 1 else 'plies'} (--max-plies): the position is {verdict}."


def ask_move(store: Store, position: Position, read: Read) -> Position | None:
    """Read lines until one is a legal move (any case) and return the position it leads to, or
    None when the human quits; answer the commands and say why any other line is not a move."""
    game = store.game
    moves = dict(game.moves(position))
    while True:
        try:
            text = read("your move ('help' lists commands):").strip().lower()
        except (EOFError, click.exceptions.Abort):
            return None
        if text in moves:
            return moves[text]
        if text == "quit":
            return None
        if text in ("help", "?"):
            click.echo(help_text(game, position))
        elif text == "moves":
            click.echo(f"legal moves: {' '.join(moves)}")
        elif text == "hint":
            click.echo(hint(store, position))
        elif text:
            click.echo(f"{game.why_illegal(position, text)}; 'moves' lists the legal moves")


def play_in_terminal(store: Store, agent: Agent, position: Position, *, human_first: bool,
                     max_plies: int, read: Read | None = None) -> str:
    """Alternate human and agent moves from `position` until the game ends, the human quits or
    `max_plies` plies are played; returns "win", "loss" or "draw" from the human's view,
    "stopped" (by `max_plies`, whatever the position's value) or "quit".

    :raises StoreError: before the first move, if the store cannot value the game (`check_playable`).
    """
    check_playable(store, position)
    game = store.game
    read = read or (lambda prompt: click.prompt(prompt, prompt_suffix=" ", default="", show_default=False))
    human_to_move = human_first
    for ply in count():
        click.echo(game.render(position))
        terminal = game.primitive(position)
        if terminal:
            human_won = (terminal == oc.WIN) == human_to_move
            result = "draw" if terminal == oc.DRAW else "win" if human_won else "loss"
            click.echo({"draw": "Draw.", "win": "You win.", "loss": "You lose."}[result])
            return result
        if ply == max_plies:
            click.echo(stopped(store, position, plies=ply, mover="you" if human_to_move else agent.name))
            return "stopped"
        if human_to_move:
            position = ask_move(store, position, read)
            if position is None:
                click.echo("Stopped.")
                return "quit"
        else:
            move, position = agent.choose(position)
            click.echo(f"{agent.name} plays {move}")
        human_to_move = not human_to_move
