"""Named end-to-end workflows: plan -> solve -> verify for a fixed game instance.

`retrograde run NAME --out DIR` keeps the store and each stage's result in DIR;
a finished stage is recorded in DIR/workflow.json and skipped when rerun, and an
unfinished solve resumes from its store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrograde.errors import BadOption, StoreError
from retrograde.games import make_game
from retrograde.pipeline.executors import open_executor
from retrograde.pipeline.stages import check_plan, plan_stage, solve_stage, status, verify_stage, write_json


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


def run_workflow(name: str, out: str | Path | None = None, *, workers: int | None = None,
                 scheduler: str | None = None, quiet: bool = False) -> dict[str, Any]:
    """Run (or resume) a named workflow; returns the state recorded in workflow.json."""
    if name not in WORKFLOWS:
        raise BadOption(f"unknown workflow {name!r}; known workflows: {', '.join(sorted(WORKFLOWS))}")
    workflow = WORKFLOWS[name]
    out_dir = Path(out) if out is not None else Path("retrograde-out") / name
    if out_dir.exists() and not out_dir.is_dir():
        raise BadOption(f"--out {str(out_dir)!r} is not a folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    state_path = out_dir / "workflow.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    if state and (state.get("workflow") != name):
        raise StoreError(f"--out {str(out_dir)!r} holds workflow {state.get('workflow')!r}, not {name!r}")
    state.update({"workflow": name, "game": workflow.game, "params": workflow.params,
                  "store": "store.zarr"})
    state.setdefault("stages", {})
    game = make_game(workflow.game, workflow.params)
    check_plan(game, out_dir / "store.zarr")
    positions = sum(tier.size for tier in game.tiers())
    with open_executor(workers=workers, scheduler=scheduler, positions=positions) as executor, \
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
    return state
