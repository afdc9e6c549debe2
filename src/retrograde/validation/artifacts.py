"""Learning curves recorded in training artifacts that agent specs name.

An agent option of kind "file" names an artifact (json or npz); one holding a
"learning_curve" of {"step", "value_kept"} points (json), or an (n, 2) array of step and
value kept (npz), gives the curve. Anything else is skipped: a curve is optional.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from retrograde.agents import agent_class, parse_spec
from retrograde.errors import BadAgent


def _points(raw) -> list[dict[str, float]] | None:
    try:
        if isinstance(raw, np.ndarray):
            array = np.asarray(raw, dtype=float)
            if array.ndim != 2 or array.shape[1] != 2:
                return None
            points = [{"step": float(s), "value_kept": float(v)} for s, v in array.tolist()]
        else:
            points = [{"step": float(p["step"]), "value_kept": float(p["value_kept"])} for p in raw]
    except (TypeError, ValueError, KeyError):
        return None
    finite = [p for p in points if np.isfinite(p["step"]) and 0 <= p["value_kept"] <= 1]
    return finite or None


def read_curve(path: Path) -> list[dict[str, float]] | None:
    """The learning curve an artifact holds, or None."""
    try:
        if path.suffix == ".json":
            data = json.loads(path.read_text())
            return _points(data.get("learning_curve")) if isinstance(data, dict) else None
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                return _points(data["learning_curve"]) if "learning_curve" in data.files else None
    except (OSError, ValueError, KeyError, UnicodeDecodeError):
        return None
    return None


def learning_curves(specs: list[str]) -> dict[str, list[dict[str, float]]]:
    """The curve of each spec whose file options name an artifact holding one."""
    curves = {}
    for spec in specs:
        try:
            parsed = parse_spec(spec)
            kinds = {option.name: option.kind for option in agent_class(parsed.name).options}
        except (BadAgent, ImportError):
            continue
        for key, value in parsed.options:
            curve = read_curve(Path(value).expanduser()) if kinds.get(key) == "file" else None
            if curve:
                curves[spec] = curve
                break
    return curves
