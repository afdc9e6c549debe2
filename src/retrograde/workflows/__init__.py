"""Named end-to-end workflows: plan -> solve -> verify for a fixed game instance.

`retrograde run NAME --out DIR` keeps the store and each stage's result in DIR/NAME;
a finished stage is recorded in DIR/NAME/workflow.json and skipped when rerun, and an
unfinished solve resumes from its store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrograde.data.lock import writer_lock
from retrograde.data.probing import start_summary
from retrograde.errors import BadOption, StoreError
from retrograde.games import make_game
from retrograde.pipeline.executors import open_executor
from retrograde.pipeline.stages import check_solve, plan_stage, solve_stage, status, verify_stage, write_json


@dataclass(frozen=True)
class Workflow:
    name: str
    description: str
    game: str
    params: dict[str, Any] = field(default_factory=dict)


WORKFLOWS = {
    w.name: w
    for w in (
        Workflow("tictactoe", "solve and verify tic-tac-toe (5,478 reachable positions)", "tictactoe"),
        Workflow("nim", "solve and verify Nim 1,3,5,7 (normal play)", "nim", {"heaps": [1, 3, 5, 7]}),
        Workflow("nim-bounded", "solve and verify Nim 1,3,...,13 taking at most 4 (645,120 positions)",
                 "nim", {"heaps": [1, 3, 5, 7, 9, 11, 13], "max_take": 4}),
        Workflow("quixo3", "solve and verify 3x3 Quixo (19,683 positions)", "quixo", {"size": 3}),
        Workflow("quixo4", "solve and verify 4x4 Quixo (43,046,721 positions; about a minute on 2 cores)",
                 "quixo", {"size": 4}),
    )
}

STAGES = ("plan", "solve", "verify")


#: Where `run` keeps each workflow's folder unless told otherwise.
DEFAULT_OUT = Path("retrograde-out")


def workflow_folder(name: str, out: str | Path | None = None) -> Path:
    """The folder of workflow `name` under `out` (default DEFAULT_OUT): the same layout either way."""
    return (DEFAULT_OUT if out is None else Path(out)) / name


def run_workflow(name: str, out: str | Path | None = None, *, workers: int | None = None,
                 scheduler: str | None = None, quiet: bool = False) -> dict[str, Any]:
    """Run (or resume) a named workflow in `workflow_folder(name, out)`; returns the state
    recorded in its workflow.json, with the instance's value ("value") added."""
    if name not in WORKFLOWS:
        raise BadOption(f"unknown workflow {name!r}; known workflows: {', '.join(sorted(WORKFLOWS))}")
    workflow = WORKFLOWS[name]
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise BadOption(f"--out {str(out)!r} is not a folder")
    out_dir = workflow_folder(name, out)
    if out_dir.exists() and not out_dir.is_dir():
        raise BadOption(f"{str(out_dir)!r} is not a folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    with writer_lock(out_dir / "store.zarr"):  # before workflow.json: one run writes the folder
        state_path = out_dir / "workflow.json"
        state = json.loads(state_path.read_text()) if state_path.exists() else {}
        if state and (state.get("workflow") != name):
            raise StoreError(f"--out {str(out_dir)!r} holds workflow {state.get('workflow')!r}, not {name!r}")
        state.update({"workflow": name, "game": workflow.game, "params": workflow.params,
                      "store": "store.zarr"})
        state.setdefault("stages", {})
        game = make_game(workflow.game, workflow.params)
        found = check_solve(game, out_dir / "store.zarr", workers=workers, scheduler=scheduler)
        with open_executor(workers=workers, scheduler=scheduler, positions=found.positions) as executor, \
                plan_stage(game, out_dir / "store.zarr") as store:
            state["stages"]["plan"] = "done"
            write_json(state_path, state)
            if state["stages"].get("solve") != "done":
                solve_stage(store, executor, quiet=quiet)
                state["stages"]["solve"] = "done"
                write_json(out_dir / "status.json", status(store))
                write_json(state_path, state)
            if state["stages"].get("verify") != "done":
                result = verify_stage(store, executor, quiet=quiet)
                write_json(out_dir / "verify.json", result.to_json())
                if not result.ok:
                    raise StoreError(f"verify failed for {str(store.path)!r}: {result.wrong} wrong positions, "
                                     f"bad checksums {result.bad_checksums}; see {out_dir / 'verify.json'}")
                state["stages"]["verify"] = "done"
                write_json(state_path, state)
            return dict(state, value=start_summary(store))
