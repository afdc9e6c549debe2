"""Learning curves, and how each artifact was trained, from the training artifacts that agents
read.

An agent option of kind "file" names an artifact (`ResolvedAgent.files`); the points of its learning curve that a store
measured (`data.artifact.measured_curve`) give the report's {"step", "value_kept"} points, the
step being the units trained (generations, episodes), and its settings say how it learnt
(`training`: a GA's fitness, exact or from matches; a Q-learner's opponents and rates), and a GA's
best and mean fitness by generation (`fitness_curves`, report 001's Figure 1). Anything else is
skipped: all are optional.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from retrograde.agents import ResolvedAgent
from retrograde.data.artifact import CURVE, measured_curve, read_metadata


def read_curve(path: Path) -> list[dict[str, float]] | None:
    """The learning curve an artifact holds, or None."""
    try:
        points = measured_curve(read_metadata(path))
    except (OSError, ValueError, KeyError, TypeError, EOFError):  # JSON, zip and unicode errors are ValueErrors
        return None
    kept = [{"step": step, "value_kept": value} for step, value in points if np.isfinite(step) and 0 <= value <= 1]
    return kept or None


def read_fitness(path: Path) -> list[dict[str, float]] | None:
    """A GA artifact's best and mean fitness by generation (report 001's Figure 1), or None."""
    try:
        metadata = read_metadata(path)
        measured_curve(metadata)  # refuses what is not a training artifact
        if metadata["learner"] != "ga":
            return None
        points = [{"generation": float(point["generations"]), "best": float(point["best_fitness"]),
                   "mean": float(point["mean_fitness"])} for point in metadata[CURVE]]
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None
    return [point for point in points if all(np.isfinite(list(point.values())))] or None


def _first_found(agents: list[ResolvedAgent], read) -> dict[str, Any]:
    """What `read` finds (not None) in the first artifact of each agent that holds it, by the agent's spec."""
    found = {}
    for agent in agents:
        value = next(filter(None, (read(path) for path, _ in agent.files)), None)
        if value:
            found[agent.spec] = value
    return found


def fitness_curves(agents: list[ResolvedAgent]) -> dict[str, list[dict[str, float]]]:
    """The GA fitness by generation of each agent whose file options name a GA artifact."""
    return _first_found(agents, read_fitness)


def learning_curves(agents: list[ResolvedAgent]) -> dict[str, list[dict[str, float]]]:
    """The curve of each agent whose file options name an artifact holding one."""
    return _first_found(agents, read_curve)


#: What a learner's training steps are, for the learning curves' x axes.
STEP_UNITS = {"ga": "generations", "rl": "episodes", "dqn": "episodes"}


def _read_unit(path: Path) -> str | None:
    try:
        metadata = read_metadata(path)
        measured_curve(metadata)  # refuses what is not a training artifact
        return STEP_UNITS.get(metadata["learner"])
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None


def step_units(agents: list[ResolvedAgent]) -> dict[str, str]:
    """What the steps of each agent's learning curve count (generations, episodes)."""
    return _first_found(agents, _read_unit)


def how_trained(metadata: Any) -> str:
    """How a training artifact learnt, in words, from its settings (ValueError, KeyError or
    TypeError if `metadata` is not a training artifact's)."""
    measured_curve(metadata)  # refuses what is not a training artifact
    learner, settings = metadata["learner"], metadata["settings"]
    if learner == "ga":
        how = (f"fitness exact: the share of a sample of {settings['sample']:,} stored positions (apart from the "
               "learning curve's) where a genome keeps the value" if settings.get("fitness") == "exact" else
               f"fitness: win share over {settings['games']} matches against {settings['opponents']}")
        return f"GA, {settings['generations']} generations of {settings['population']} + {settings['offspring']}; {how}"
    if learner == "dqn":
        phases = " then ".join(f"({phase})" for phase in settings["opponents"].split(";"))
        return (f"deep Q-learning, {settings['episodes']:,} episodes against {phases}, {settings['hidden']} hidden "
                f"units, Adam rate {settings['rate']}, gamma {settings['gamma']}, replay {settings['memory']:,} "
                f"(batches of {settings['batch']}), final epsilon {settings['epsilon']}")
    return (f"Q-learning, {settings['episodes']:,} episodes against {settings['opponent']}, alpha {settings['alpha']}, "
            f"gamma {settings['gamma']}, final epsilon {settings['epsilon']}")


def _read_training(path: Path) -> str | None:
    try:
        return how_trained(read_metadata(path))
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None


def training(agents: list[ResolvedAgent]) -> dict[str, str]:
    """How each agent's artifact was trained, where one names a training artifact."""
    return _first_found(agents, _read_training)
