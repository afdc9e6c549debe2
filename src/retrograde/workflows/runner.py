"""Named end-to-end workflows: plan -> solve -> verify -> train -> validate for a fixed game
instance (train and validate where the workflow names learners and agents).

`retrograde run NAME --out DIR` keeps the store, the trained artifacts, the validation report
and each stage's result in DIR/NAME; a finished stage is recorded in DIR/NAME/workflow.json and
skipped when rerun, an unfinished solve resumes from its store and an unfinished training
from its checkpoint. DIR/NAME/timings.json holds the wall seconds of the stages the latest run
did (apart from workflow.json, whose content a rerun reproduces).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from retrograde.data.durable import inside, make_folder, read_inside
from retrograde.data.lock import writer_lock
from retrograde.data.probing import start_summary
from retrograde.data.store import Store
from retrograde.errors import BadOption, StoreError
from retrograde.games import Game
from retrograde.games.capabilities import Workflow
from retrograde.pipeline.executors import open_executor
from retrograde.pipeline.solve import SolveOptions, solve
from retrograde.pipeline.stages import status, verify_stage, write_json
from retrograde.spec import AgentSpec, parse_spec
from retrograde.training import train
from retrograde.validation import validate
from retrograde.validation.report import TIMINGS  # wall-clock figures, kept apart as a report's are
from retrograde.workflows.names import SEEDS, WORKFLOWS

#: Where `run` keeps each workflow's folder unless told otherwise.
DEFAULT_OUT = Path("retrograde-out")


class StageTimes:
    """The wall seconds of each stage a run does, written to its folder's TIMINGS as each ends."""

    def __init__(self, out_dir: Path):
        self.path, self.seconds = out_dir / TIMINGS, {}

    def record(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = round(seconds, 2)
        write_json(self.path, {"stages_s": self.seconds})

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        began = time.monotonic()
        yield
        self.record(name, time.monotonic() - began)


def workflow_folder(name: str, out: str | Path | None = None) -> Path:
    """The folder of workflow `name` under `out` (default DEFAULT_OUT): the same layout either way."""
    return (DEFAULT_OUT if out is None else Path(out)) / name


@contextmanager
def made_folder(folder: Path) -> Iterator[Path]:
    """`folder`, made with its missing parents (`durable.make_folder`) for the block; if the block
    fails (a refusal: the solve does not fit, the cluster cannot be reached), the folders it made
    that are still empty are removed again, so that a refused run leaves the disk as it found it.
    A folder that holds anything (a store begun, a state recorded) stays, for the rerun to resume."""
    made = [path for path in (folder, *folder.parents) if not os.path.lexists(path)]  # deepest first
    make_folder(folder)
    try:
        yield folder
    except BaseException:
        for path in made:
            try:
                path.rmdir()
            except OSError:  # not empty (or no longer ours): kept, and so are its parents
                break
        raise


def read_document(root: Path, path: Path, what: str, remedy: str) -> dict[str, Any]:
    """The JSON object `write_json` wrote to `path` below `root` ({} if there is no file), read as
    a regular file through no link (`durable.read_inside`): a planted fifo, device or link is
    refused in one line, never followed nor waited on.

    :raises StoreError: a link, or not a JSON object (empty, cut short, edited), naming it as
        `what` and saying what to do (`remedy`); OSError: not a regular file, or unreadable."""
    try:
        document = json.loads(read_inside(root, path))
    except FileNotFoundError:
        return {}
    except ValueError as exc:  # JSON's errors, and bytes that are not UTF-8
        raise StoreError(f"{what} {str(path)!r} is damaged (not JSON: {exc}); {remedy}") from None
    if not isinstance(document, dict):
        raise StoreError(f"{what} {str(path)!r} is damaged (not a JSON object); {remedy}")
    return document


@dataclass(frozen=True)
class WorkflowPlan:
    """What `run NAME` does in `folder`: its stages in order, those workflow.json records as done,
    and whether an earlier run began the store; `line` says it before the run starts."""

    name: str
    workflow: Workflow
    game: Game
    folder: Path
    done: tuple[str, ...]
    resumed: bool

    @property
    def stages(self) -> tuple[str, ...]:
        """The workflow's stages in the order they run."""
        return (*(("plan", "solve", "verify") if self.workflow.solves else ()),
                *(("train",) if self.workflow.train else ()), *(("validate",) if self.workflow.agents else ()))

    @property
    def to_do(self) -> tuple[str, ...]:
        return tuple(stage for stage in self.stages if stage not in self.done)

    @property
    def line(self) -> str:
        """E.g. "run quixo4 on quixo --size 4: train ga and rl, validate 8 agents ->
        retrograde-out/quixo4 (3 of 5 stages done)", or "... nothing to do, ..." when all are done."""
        head = f"run {self.name} on {self.game.describe()}:"
        if not self.to_do:
            return f"{head} nothing to do, every stage is done ({', '.join(self.stages)}); results in {self.folder}"
        phrases = {"solve": "resume the solve" if self.resumed else "solve", "verify": "verify",
                   "train": "train " + " and ".join(spec.partition(":")[0] for spec, _ in self.workflow.train),
                   "validate": f"validate {len(self.workflow.agents)} agents"}
        return (f"{head} {', '.join(phrases[stage] for stage in self.to_do if stage in phrases)} -> {self.folder} "
                f"({len(self.stages) - len(self.to_do)} of {len(self.stages)} stages done)")


def run_workflow(name: str, out: str | Path | None = None, *, options: SolveOptions = SolveOptions(),
                 announce: Callable[[WorkflowPlan], None] | None = None) -> dict[str, Any]:
    """Run (or resume) a named workflow in `workflow_folder(name, out)`, solving as `options` say
    but on worker processes (`SolveOptions.kernel_threads`: the executor serves training and
    validation too); returns the state recorded in its workflow.json, with the instance's value
    ("value"), the report's path and the stages this run had to do ("to_do": none when every
    stage was done before). `announce` gets the plan once the folder is this run's and the executor
    is up, before any work: after every refusal, so that a refused run says one line only."""
    options = replace(options, kernel_threads=False)
    if name not in WORKFLOWS:
        raise BadOption(f"unknown workflow {name!r}; known workflows: {', '.join(sorted([*WORKFLOWS, SEEDS]))}")
    game_class, workflow = WORKFLOWS[name]
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise BadOption(f"--out {str(out)!r} is not a folder")
    out_dir = workflow_folder(name, out)
    if out_dir.exists() and not out_dir.is_dir():
        raise BadOption(f"{str(out_dir)!r} is not a folder")
    with made_folder(out_dir):
        return _run_in(name, game_class, workflow, out_dir, options, announce)


def _run_in(name: str, game_class: type[Game], workflow: Workflow, out_dir: Path, options: SolveOptions,
            announce: Callable[[WorkflowPlan], None] | None) -> dict[str, Any]:
    """`run_workflow` in its folder `out_dir`, which exists."""
    quiet = options.quiet
    for entry in ("store.zarr", "workflow.json", "status.json", "verify.json", "report", TIMINGS,
                  *(artifact for _, artifact in workflow.train)):  # nothing planted leads out of the folder
        inside(out_dir.parent, out_dir / entry)
    with writer_lock(out_dir / "store.zarr"):  # before workflow.json: one run writes the folder
        state_path = out_dir / "workflow.json"
        remedy = ("delete it to run the workflow's stages again (the store, artifacts and report made so far are "
                  "resumed or reused)")
        state = read_document(out_dir.parent, state_path, "workflow state", remedy)
        if not isinstance(state.get("stages", {}), dict):
            raise StoreError(f"workflow state {str(state_path)!r} is damaged (its stages are not an object); {remedy}")
        if state and (state.get("workflow") != name):
            raise StoreError(f"--out {str(out_dir)!r} holds workflow {state.get('workflow')!r}, not {name!r}")
        state.update({"workflow": name, "game": game_class.name, "params": workflow.params,
                      "store": "store.zarr" if workflow.solves else None})
        state.setdefault("stages", {})
        game = game_class(**workflow.params)
        plan = WorkflowPlan(name, workflow, game, out_dir,
                            tuple(stage for stage, done in state["stages"].items() if done == "done"),
                            (out_dir / "store.zarr").exists())
        say = announce or (lambda plan: None)
        times = StageTimes(out_dir)
        if not plan.to_do:
            say(plan)
            return dict(state, value=_value(out_dir) if workflow.solves else None, report=_report(out_dir), to_do=[])
        if not workflow.solves:
            with open_executor(workers=options.workers, scheduler=options.scheduler, positions=None) as executor:
                say(plan)
                report = _train_and_validate(workflow, state, out_dir, game, None, executor, quiet, times)
            return dict(state, value=None, report=report, to_do=list(plan.to_do))

        def planned(solving) -> None:
            say(plan)
            state["stages"]["plan"] = "done"
            write_json(state_path, state)

        with solve(game, out_dir / "store.zarr", options, locked=True, planned=planned) as solved:
            store, executor = solved.store, solved.executor
            if solved.seconds is not None:
                times.record("solve", solved.seconds)
            if state["stages"].get("solve") != "done":
                state["stages"]["solve"] = "done"
                write_json(out_dir / "status.json", status(store))
                write_json(state_path, state)
            if state["stages"].get("verify") != "done":
                with times.stage("verify"):
                    result = verify_stage(store, executor, quiet=quiet)
                write_json(out_dir / "verify.json", result.to_json())
                if not result.ok:
                    raise StoreError(f"verify failed for {str(store.path)!r}: {result.wrong} wrong positions, "
                                     f"bad checksums {result.bad_checksums}; see {out_dir / 'verify.json'}")
                state["stages"]["verify"] = "done"
                write_json(state_path, state)
            report = _train_and_validate(workflow, state, out_dir, game, store, executor, quiet, times)
            return dict(state, value=start_summary(store), report=report, to_do=list(plan.to_do))


def in_folder(preset: str, out_dir: Path) -> AgentSpec:
    """A workflow's preset spec parsed, "{folder}" in its options' values then replaced by
    `out_dir`: the path is given as a value, never spliced into spec text that is parsed again
    (a folder named 'a,b' would split the option), and the spec's text reads back the same
    (`AgentSpec.__str__`)."""
    parsed = parse_spec(preset)
    return AgentSpec(parsed.name, tuple((key, value.replace("{folder}", str(out_dir))) for key, value in parsed.options))


def _value(out_dir: Path) -> str:
    """The value of a finished workflow's instance, read from its store."""
    with Store.open(out_dir / "store.zarr") as store:
        return start_summary(store)


def _report(out_dir: Path) -> str | None:
    """The path of the workflow's report, if it has one."""
    report = out_dir / "report" / "report.html"
    return str(report) if report.exists() else None


def _train_and_validate(workflow: Workflow, state: dict[str, Any], out_dir: Path, game, store, executor,
                        quiet: bool, times: StageTimes) -> str | None:
    """The train and validate stages (those not done yet), recorded in workflow.json and timed
    in `times`; the report's path, if there is one."""
    state_path = out_dir / "workflow.json"
    write_json(state_path, state)
    if workflow.train and state["stages"].get("train") != "done":
        with times.stage("train"):
            for spec, artifact in workflow.train:  # each resumes or skips on its own
                train(str(in_folder(spec, out_dir)), game, out_dir / artifact, seed=0, store=store, quiet=quiet)
        state["stages"]["train"] = "done"
        write_json(state_path, state)
    if workflow.agents and state["stages"].get("validate") != "done":
        agents = [in_folder(spec, out_dir) for spec in workflow.agents]
        with times.stage("validate"):
            report = validate(store, out_dir / "report", agents, game=game, games=workflow.games,
                              positions=workflow.positions, seed=0, executor=executor, quiet=quiet)
        failed = [check["name"] for check in report["checks"] if not check["ok"]]
        if failed:
            raise StoreError(f"validation check failed: {failed[0]}; see {out_dir / 'report' / 'report.md'}")
        state["stages"]["validate"] = "done"
        write_json(state_path, state)
    return _report(out_dir)
