"""A person plays an agent in the terminal (`retrograde play`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count, groupby

import click

from retrograde import outcome as oc
from retrograde.agents.base import Player
from retrograde.agents.lookup import preference
from retrograde.data.probing import Analysis, MoveValue, Value, analyse, values
from retrograde.data.store import SOLVED, Store
from retrograde.errors import StoreError
from retrograde.games.base import Game, State
from retrograde.games.capabilities import display_of

#: A `read` function: shows a prompt, returns the line typed (EOFError at the end of input).
Read = Callable[[str], str]


def _some(names: list[str], shown: int = 6) -> str:
    """A list of tier names short enough for one line."""
    if len(names) <= shown:
        return ", ".join(names)
    return ", ".join(names[:shown - 1]) + f", ... {names[-1]} ({len(names)} in all)"


def check_playable(store: Store, start: State) -> None:
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


def help_text(game: Game, position: State) -> str:
    """What the player may type (the `help` command)."""
    example = game.moves(position)[0][0]
    return "\n".join([
        f"  a move, e.g. {example}: play it (upper case accepted; notation: {game.notation})",
        "  moves    list the legal moves",
        "  hint     every legal move's value from the store, best first",
        "  help, ?  this list",
        "  quit     stop the game",
    ])


def hint(analysis: Analysis) -> str:
    """The legal moves grouped by the value they achieve for the mover, best first, one line a
    value (the `hint` command): "win in 3: a1, b2" / "draw: c3" / "loss in 2: a3"."""
    moves = sorted(analysis.moves, key=preference)
    return "\n".join(f"  {value}: {', '.join(move.move for move in same)}"
                     for value, same in groupby(moves, key=lambda move: move.value))


def _plies(n: int) -> str:
    return "1 ply" if n == 1 else f"{n} plies"


def _left(value: Value) -> str:
    """A move's achieved value (plies counted from before it) as what is left after it."""
    if value.outcome == oc.DRAW:
        return "draw"
    return "game over" if value.remoteness == 1 else f"{value.name} in {value.remoteness - 1}"


def move_effect(before: Value, after: Value) -> str:
    """What the human's move did to the value of the position it was played from: `before` that
    value, `after` what the move achieves (both the human's view, plies counted from before the
    move). Kept or thrown away, and by how many plies a win slowed or a loss came sooner."""
    change = f"({before} -> {_left(after)})"
    if after.outcome != before.outcome:
        now = "you lost at once" if after.remoteness == 1 else f"now a {_left(after)}"
        return f"You threw away the {before.name}: {now}."
    if before.outcome == oc.DRAW:
        return "You kept the draw."
    if before.outcome == oc.WIN:
        slower = after.remoteness - before.remoteness
        return (f"You kept the win, but it slowed by {_plies(slower)} {change}." if slower
                else f"You kept the win {change}.")
    sooner = before.remoteness - after.remoteness
    return (f"Your loss came {_plies(sooner)} sooner {change}." if sooner
            else f"You held the loss off as long as it goes {change}.")


def sides(agent: Player, *, human_first: bool) -> str:
    """Who plays which side, said before the first move."""
    if human_first:
        return f"You play first; {agent.name} plays second."
    return f"{agent.name} plays first; you play second."


def result_line(terminal: int, *, human_to_move: bool, agent: Player) -> tuple[str, str]:
    """The result of a finished game from the human's view ("win", "loss", "draw") and its line."""
    if terminal == oc.DRAW:
        return "draw", "Game over: a draw."
    human_won = (terminal == oc.WIN) == human_to_move
    return ("win", "Game over: you win.") if human_won else ("loss", f"Game over: {agent.name} wins.")


def stopped(store: Store, position: State, *, plies: int, mover: str) -> str:
    """The line that ends a game stopped by --max-plies: not a draw, but the stored value."""
    value = values(store, [position])[0]
    verdict = "a draw" if value.outcome == oc.DRAW else f"a {value} for {mover} (to move)"
    return f"Stopped after {plies} {'ply' if plies == 1 else 'plies'} (--max-plies): the position is {verdict}."


def ask_move(game: Game, analysis: Analysis, read: Read) -> MoveValue | None:
    """Read lines until one is a legal move (any case) and return it with the position it leads
    to and its value, or None when the human quits; answer the commands and say why any other
    line is not a move."""
    position = analysis.position
    moves = {move.move: move for move in analysis.moves}
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
            click.echo(hint(analysis))
        elif text:
            click.echo(f"{display_of(game).why_illegal(position, text)}; 'moves' lists the legal moves")


def play_in_terminal(store: Store, agent: Player, position: State, *, human_first: bool,
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
    click.echo(sides(agent, human_first=human_first))
    for ply in count():
        click.echo(display_of(game).render(position))
        terminal = game.primitive(position)
        if terminal:
            result, line = result_line(terminal, human_to_move=human_to_move, agent=agent)
            click.echo(line)
            return result
        if ply == max_plies:
            click.echo(stopped(store, position, plies=ply, mover="you" if human_to_move else agent.name))
            return "stopped"
        if human_to_move:
            analysis = analyse(store, [position])[0]
            chosen = ask_move(game, analysis, read)
            if chosen is None:
                click.echo("Stopped.")
                return "quit"
            click.echo(move_effect(analysis.value, chosen.value))
            position = chosen.position
        else:
            move, position = agent.choose(position)
            click.echo(f"{agent.name} plays {move}")
        human_to_move = not human_to_move
