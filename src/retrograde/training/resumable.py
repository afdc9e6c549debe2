"""The resumable training stage: `train(spec, game, out, seed=...)` and `retrograde train`.

Every `every` units (generations, episodes) the learner's whole state, the random generator's
state and the learning curve so far go atomically into OUT.partial/checkpoint.npz; a rerun of
the same command continues from the last checkpoint (after Ctrl-C or kill -9) and writes the
same artifact, byte for byte, as a run never stopped. A checkpoint of other settings is refused.
With a solved store of the same game each learning-curve point also holds the exact share of
value-keeping moves of the learner's best player on a fixed sample (`measure`).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from retrograde.data import artifact
from retrograde.data.durable import check_writable, inside, make_folder
from retrograde.errors import BadAgent, BadOption, RetrogradeError
from retrograde.games import parse_game
from retrograde.games.base import Game
from retrograde.pipeline.progress import Progress
from retrograde.spec import parse_spec
from retrograde.training.dqn import DqnLearner
from retrograde.training.ga import GaLearner
from retrograde.training.learner import Learner, typed_options
from retrograde.training.rl import RlLearner

LEARNERS: dict[str, type[Learner]] = {cls.name: cls for cls in (GaLearner, RlLearner, DqnLearner)}
CHECKPOINT = "checkpoint.npz"


def learner_for(spec: str, game: Game, *, store=None, seed: int = 0) -> Learner:
    """The learner a spec names (`ga:...`, `rl:...`, `dqn:...`), with its options typed and checked, for a
    training seeded with `seed`."""
    parsed = parse_spec(spec)
    cls = LEARNERS.get(parsed.name)
    if cls is None:
        raise BadAgent(f"unknown learner {parsed.name!r}; learners: {', '.join(LEARNERS)}")
    return cls(game, typed_options(parsed, cls.options_for(game), game), store=store, seed=seed)


def _check_out(out: Path, suffix: str, learner: str) -> None:
    if out.suffix != suffix:
        raise BadOption(f"--out {str(out)!r}: a {learner} artifact is a {suffix} file")
    if out.is_dir():
        raise BadOption(f"--out {str(out)!r} is a folder")
    folder = out.parent
    if not folder.is_dir():
        raise BadOption(f"--out {str(out)!r}: no folder {str(folder)!r}")
    check_writable(folder)


def partial_folder(out: Path) -> Path:
    """Where a run writing `out` keeps its checkpoints: refused if it is a symbolic link, which
    would make the run write, and delete, checkpoints elsewhere (`durable.inside`)."""
    return inside(out.parent, out.with_name(out.name + ".partial"))


def _finished(out: Path, run: dict[str, Any]) -> bool:
    """Whether `out` already holds the artifact of this very run."""
    if not out.is_file():
        return False
    try:
        metadata = artifact.read_metadata(out)
    except (OSError, ValueError, EOFError):
        return False
    return isinstance(metadata, dict) and metadata.get("run") == run


def train(spec: str, game: Game | str, out: str | os.PathLike, *, seed: int, store=None,
          quiet: bool = True) -> Path:
    """Train the learner `spec` names for `game` (a Game or its command-line form) into the
    artifact `out`, resuming a run of the same settings stopped earlier; returns `out`.

    `store`: a solved store (path or opened Store) of the same game, to measure the learning
    curve exactly. Bad input (learner, option, store, --out) raises before anything is written.
    """
    from retrograde.data.lock import writer_lock
    from retrograde.data.store import Store
    from retrograde.training.measure import ValueKeptSample

    game = parse_game(game) if isinstance(game, str) else game
    out = Path(out)
    with ExitStack() as stack:
        if store is not None and not isinstance(store, Store):
            store = stack.enter_context(Store.open(store))
        learner = learner_for(spec, game, store=store, seed=seed)
        _check_out(out, learner.suffix, learner.name)
        stack.enter_context(writer_lock(out, "training artifact"))
        run = json.loads(json.dumps({"learner": learner.name, "game": {"name": game.name, "params": game.params},
                                     "seed": seed, "settings": learner.settings, "measured": store is not None}))
        partial = partial_folder(out)
        if _finished(out, run):
            shutil.rmtree(partial, ignore_errors=True)  # a kill after the artifact, before the clean-up
            if not quiet:
                print(f"train {learner.name}: {out} is already trained", file=sys.stderr)
            return out
        sample = ValueKeptSample(store, game, seed) if store is not None else None
        rng = np.random.default_rng(seed)
        done, curve = _resume(partial, run, learner, rng)
        if done and not quiet:
            print(f"train {learner.name}: resuming from {partial} at {done:,} {learner.unit}", file=sys.stderr)
        progress = Progress(f"train {learner.name}", learner.total, done=done, quiet=quiet, unit=learner.unit)
        if done == 0:
            learner.start(rng)
        while done < learner.total:
            stop = min(done + learner.every, learner.total)
            figures = learner.run(done, stop, rng, progress)
            kept = None if sample is None else sample.value_kept(learner.player(seed))
            curve.append(artifact.curve_point(learner.name, stop, figures, kept))
            done = stop
            make_folder(partial)
            artifact.save_npz(partial / CHECKPOINT, learner.state(),
                              {"run": run, "done": done, "curve": curve, "rng": rng.bit_generator.state})
        metadata = {"format": artifact.FORMAT, "version": artifact.VERSION, "learner": learner.name,
                    "game": artifact.game_identity(game), "seed": seed, "settings": run["settings"],
                    "run": run, artifact.CURVE: curve}
        learner.write(out, metadata)
        shutil.rmtree(partial, ignore_errors=True)
        kept = curve[-1].get(artifact.VALUE_KEPT)
        progress.finish(f"{learner.total:,} {learner.unit}" +
                        (f", value kept {kept:.3f}" if kept is not None else "") + f", wrote {out}")
    return out


def _resume(partial: Path, run: dict[str, Any], learner: Learner, rng: np.random.Generator) -> tuple[int, list]:
    """(units done, learning curve) of the checkpoint in `partial`, whose state the learner and
    `rng` take up; (0, []) without one. A checkpoint of another run is refused."""
    for leftover in partial.glob("*.partial"):  # a killed checkpoint write
        leftover.unlink()
    checkpoint = inside(partial, partial / CHECKPOINT)
    if not checkpoint.is_file():
        return 0, []
    try:
        arrays, metadata = artifact.load_npz(checkpoint)
    except (OSError, ValueError, EOFError) as exc:
        raise RetrogradeError(f"{str(partial)!r}: unreadable checkpoint ({exc}); delete the folder to start over") from None
    if metadata.get("run") != run:
        theirs = metadata.get("run") or {}
        ours_flat = {**run, **run["settings"]}
        theirs_flat = {**theirs, **(theirs.get("settings") or {})}
        differing = sorted(key for key in set(ours_flat) | set(theirs_flat)
                           if key != "settings" and ours_flat.get(key) != theirs_flat.get(key))
        raise BadOption(f"{str(partial)!r} holds a training run with other settings ({', '.join(differing)} "
                        "differ): rerun that command to finish it, or delete the folder to start over")
    try:
        rng.bit_generator.state = metadata["rng"]
        learner.restore(arrays)
        return int(metadata["done"]), metadata["curve"]
    except (KeyError, TypeError, ValueError) as exc:
        raise RetrogradeError(f"{str(partial)!r}: corrupt checkpoint ({' '.join(str(exc).split())}); delete the "
                              "folder to start over") from None
