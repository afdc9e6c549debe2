"""The named workflows, known without their machinery: `run` checks the name it is given before
it imports the solve, training and validation stages (a usage error answers at once)."""

from __future__ import annotations

from retrograde.errors import BadOption
from retrograde.games import GAMES, Game, example_games
from retrograde.games.capabilities import Workflow, course_of

#: The workflow that plays the course reports' published figures again (`workflows.course`).
SEEDS = "seeds"


def _workflows() -> dict[str, tuple[type[Game], Workflow]]:
    """Every game's workflows by name, with the game they play (`Course.workflows`)."""
    return {workflow.name: (GAMES[name], workflow) for name, game in example_games().items()
            for workflow in course_of(game).workflows}


#: The named workflows: name -> (game class, workflow), in the registry's order of games.
WORKFLOWS = _workflows()


def check_workflow(name: str) -> None:
    """:raises BadOption: `name` is neither a game's workflow nor `SEEDS`."""
    if name not in WORKFLOWS and name != SEEDS:
        raise BadOption(f"unknown workflow {name!r}; known workflows: {', '.join(sorted([*WORKFLOWS, SEEDS]))}")
