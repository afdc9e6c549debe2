"""Learning curves recorded in training artifacts that agent specs name.

An agent option of kind "file" names an artifact; the points of its learning curve that a store
measured (`data.artifact.measured_curve`) give the report's {"step", "value_kept"} points, the
step being the units trained (generations, episodes). Anything else is skipped: a curve is optional.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from retrograde.agents import agent_options, parse_spec
from retrograde.data.artifact import measured_curve, read_metadata
from retrograde.errors import BadAgent
from retrograde.games import Game


def read_curve(path: Path) -> list[dict[str, float]] | None:
    """The learning curve an artifact holds, or None."""
    try:
        points = measured_curve(read_metadata(path))
    except (OSError, ValueError, KeyError, TypeError, EOFError):  # JSON, zip and unicode errors are ValueErrors
        return None
    kept = [{"step": step, "value_kept": value} for step, value in points if np.isfinite(step) and 0 <= value <= 1]
    return kept or None


def learning_curves(specs: list[str], game: Game) -> dict[str, list[dict[str, float]]]:
    """The curve of each spec (of an agent of `game`) whose file options name an artifact holding one."""
    curves = {}
    for spec in specs:
        try:
            parsed = parse_spec(spec)
            kinds = {option.name: option.kind for option in agent_options(parsed.name, game)}
        except (BadAgent, ImportError):
            continue
        for key, value in parsed.options:
            curve = read_curve(Path(value).expanduser()) if kinds.get(key) == "file" else None
            if curve:
                curves[spec] = curve
                break
    return curves
