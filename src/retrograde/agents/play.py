"""A person plays an agent in the terminal (`retrograde play`)."""

from __future__ import annotations

from collections.abc import Callable

import click

from retrograde import outcome as oc
from retrograde.agents.base import Agent
from retrograde.games.base import Game, Position


def play_in_terminal(game: Game, agent: Agent, position: Position, *, human_first: bool,
                     max_plies: int, read: Callable[[str], str] | None = None) -> str:
    """Alternate human and agent moves until the game ends; returns "win", "loss" or "draw"
    from the human's view (or "quit")."""
    read = read or (lambda prompt: click.prompt(prompt, prompt_suffix=" ", default="", show_default=False))
    human_to_move = human_first
    for _ in range(max_plies):
        click.echo(game.render(position))
        terminal = game.primitive(position)
        if terminal:
            human_won = (terminal == oc.WIN) == human_to_move
            result = "draw" if terminal == oc.DRAW else "win" if human_won else "loss"
            click.echo({"draw": "Draw.", "win": "You win.", "loss": "You lose."}[result])
            return result
        moves = dict(game.moves(position))
        if human_to_move:
            while True:
                try:
                    text = read("your move ('moves' lists them, 'quit' stops):").strip()
                except (EOFError, click.exceptions.Abort):
                    text = "quit"
                if text == "quit":
                    click.echo("Stopped.")
                    return "quit"
                if text in moves:
                    position = moves[text]
                    break
                click.echo(f"legal moves: {' '.join(moves)}")
        else:
            move, position = agent.choose(position)
            click.echo(f"{agent.name} plays {move}")
        human_to_move = not human_to_move
    click.echo(f"Draw after {max_plies} plies.")
    return "draw"
