"""`retrograde run seeds`: every match figure the course reports published for a game (each
game's `figures`), played again with the reports' agents as their code played them, into
DIR/seeds/report.json, report.md and report.html (`validation.course` makes the rows).

Each instance gets a solved store in DIR/seeds/stores (once) where the estimate says this
machine can solve it: the report's agent is audited on it (value kept), and agents that read a
store play from it (elsewhere their rows are not run). A trained agent of a report's is trained
first, as the report trained it (its `AgentRef.learner`, with the store where there is one, to
record its exact learning curve), into DIR/seeds/artifacts under a name drawn from its game,
settings and seed; the trainings run side by side on the executor's workers, and a rerun finds
them done (or resumes them). What each finished row played (every version of its match, with
its counts) is kept in DIR/seeds/rows, so a rerun plays only the rows not done yet and makes
every row again from those counts and the figures as the code gives them; `--only NUMBER` plays
one report's rows (delete the folder to play rows again). The figures no match plays
(`Course.unplayed`) are listed in the report, each with why.
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from retrograde.agents import build_agent, reads_store, resolve_agent
from retrograde.data.durable import inside, write_atomically
from retrograde.data.lock import writer_lock
from retrograde.data.store import Store
from retrograde.errors import BadAgent, BadOption
from retrograde.games import Game, example_games, make_game
from retrograde.games.capabilities import course_of
from retrograde.pipeline.executors import open_executor
from retrograde.pipeline.graph import Task
from retrograde.pipeline.solve import SolveOptions, solve
from retrograde.pipeline.stages import write_json
from retrograde.spec import AgentSpec
from retrograde.training import train
from retrograde.training.measure import ValueKeptSample
from retrograde.training.resumable import learner_for
from retrograde.validation import course, exact, report
from retrograde.validation.tournament import INITIAL, Pairing, default_max_plies, run_tournament
from retrograde.workflows.runner import made_folder, read_document

#: The seed every row's games derive from (with the agents' stream names and the seat).
SEED = 0
#: The longest estimated solve of a store the rows read (an hour): full 5x5 Quixo (two days on
#: 2 cores, within a `solve`'s week) is a store "this machine cannot solve" for `run seeds`.
STORE_SECONDS = 3600
#: Why a row is not run when its artifact is missing (a run with --skip-training).
UNTRAINED = "no run has trained it yet (run seeds without --skip-training)"
#: Wall-clock seconds of each artifact this run trained and each row it played (a solve of a
#: store included in its first row), kept apart from report.json, which does not vary from run to run.
TIMINGS = "timings.json"


#: The format of DIR/seeds/rows' files (what a row played, `_played`; the row is made from it and
#: the figure as the code now gives it), part of each file's name: no older file is read as one.
ROW_FORMAT = 2


def report_figures(only: str | None = None) -> list[course.ReportFigure]:
    """Every game's published figures, in the registry's order of games.

    :raises BadOption: `only` (a report's file name or number) names no report with figures."""
    figures = [course.ReportFigure(name, figure) for name, game in example_games().items()
               for figure in course_of(game).figures]
    if only is not None and not any(figure.seed.startswith(only) for figure in figures):
        known = sorted({figure.seed[:3] for figure in figures})
        raise BadOption(f"--only {only!r}: no course report of that name has figures; reports: {', '.join(known)}")
    return figures


def report_unplayed(only: str | None = None) -> list[dict[str, Any]]:
    """Every game's published figures that no match plays (`Course.unplayed`), with why; those of
    report `only` where given."""
    return [entry for name, game in example_games().items()
            for entry in course.unplayed_rows(name, course_of(game).unplayed)
            if only is None or entry["seed"].startswith(only)]


def _key(figure: course.ReportFigure) -> str:
    """A row's name in DIR/seeds/rows: what it plays, and where it is printed."""
    what = [figure.seed, figure.where, figure.game, figure.figure.params, figure.agent, figure.opponent,
            figure.figure.seat, figure.games, SEED, figure.figure.agent.learner, figure.figure.opponent.learner,
            figure.figure.agent.text, figure.figure.opponent.text, ROW_FORMAT]
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:20]


class Stores:
    """The solved stores the rows read, solved on first use (None, with why, where this machine cannot)."""

    def __init__(self, folder: Path, executor, stack: ExitStack, options: SolveOptions):
        self.folder, self.executor, self.stack = folder, executor, stack
        self.options = replace(options, max_seconds=min(options.max_seconds, STORE_SECONDS))
        self.found: dict[str, tuple[Store | None, str | None, ValueKeptSample | None]] = {}

    def get(self, game: Game) -> tuple[Store | None, str | None, ValueKeptSample | None]:
        name = game.describe()
        if name not in self.found:
            path = inside(self.folder, self.folder / (hashlib.sha256(name.encode()).hexdigest()[:12] + ".zarr"))
            self.folder.mkdir(parents=True, exist_ok=True)
            try:
                with solve(game, path, self.options, executor=self.executor):
                    pass
            except BadOption as exc:  # the estimate's refusal, before anything is written
                self.found[name] = None, f"needs a solved store of {name}, which this machine cannot solve: {exc}", None
                return self.found[name]
            store = self.stack.enter_context(Store.open(path))
            self.found[name] = store, None, ValueKeptSample(store, game, SEED)
        return self.found[name]


class Artifacts:
    """The artifacts of the reports' trained agents, each trained once into `folder`."""

    def __init__(self, folder: Path, stores: Stores):
        self.folder, self.stores = folder, stores

    def path(self, learner: str, game: Game) -> tuple[Path, Store | None, int]:
        """(where the artifact `learner` trains for `game` lies, the store its training reads, the
        training's rough work): the name is drawn from the game, the learner's settings, the seed
        and whether a store measures it."""
        store = self.stores.get(game)[0]
        trainer = learner_for(learner, game, store=store, seed=SEED)
        what = [game.name, game.params, trainer.name, trainer.settings, SEED, store is not None]
        key = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]
        return inside(self.folder, self.folder / f"{trainer.name}-{key}{trainer.suffix}"), store, trainer.work

    def spec(self, ref, game: Game) -> tuple[AgentSpec, str] | None:
        """(the spec that plays `ref`, its artifact's path given as a value: never spliced into
        text parsed again; the text that names it, the path relative to DIR/seeds); None where
        the artifact is not trained yet."""
        path, _, _ = self.path(ref.learner, game)
        if not path.is_file():
            return None
        played = AgentSpec(ref.name, (*ref.options, ("params", str(path))))
        shown = AgentSpec(ref.name, (*ref.options, ("params", f"{self.folder.name}/{path.name}")))
        return played, str(shown)

    def train_all(self, figures: list[course.ReportFigure], executor, quiet: bool) -> dict[str, float]:
        """Train every artifact the figures' agents need and no earlier run finished, side by side
        on the executor's workers; returns each training's wall-clock seconds."""
        tasks, seen = [], set()
        for figure in figures:
            for ref in (figure.figure.agent, figure.figure.opponent):
                if ref.learner is None:
                    continue
                game = make_game(figure.game, figure.figure.params)
                path, store, cost = self.path(ref.learner, game)
                if path in seen:
                    continue
                seen.add(path)
                self.folder.mkdir(parents=True, exist_ok=True)
                store_path = None if store is None else str(store.path)
                tasks.append(Task(f"train {ref.learner} for {game.describe()}", _train,
                                  (ref.learner, game.name, game.params, str(path), store_path, quiet), cost=cost))
        return {task.key: seconds for task, seconds in executor.run(tasks)}


def _train(worker, learner: str, game_name: str, params: dict, path: str, store: str | None, quiet: bool) -> float:
    """Train one artifact (a no-op for one already trained); returns the wall-clock seconds."""
    started = time.monotonic()
    train(learner, make_game(game_name, params), path, seed=SEED, store=store, quiet=quiet)
    return round(time.monotonic() - started, 2)


def _play(figure: course.ReportFigure, agent: str | AgentSpec, opponent: str | AgentSpec, game: Game,
          store: Store | None, executor, quiet: bool) -> tuple[int, int, int]:
    """(wins, draws, losses) of the report's `agent` in its seat against `opponent`: the games of
    `figure.games`, half a seat where the report drew who started."""
    seat, games = figure.figure.seat, figure.games
    agent, opponent = resolve_agent(agent, game), resolve_agent(opponent, game)
    pairings = []
    if seat in ("first", "either"):
        pairings.append(Pairing(agent, opponent, INITIAL, games if seat == "first" else games // 2, "agent first"))
    if seat in ("second", "either"):
        pairings.append(Pairing(opponent, agent, INITIAL, games if seat == "second" else games - games // 2,
                                "agent second"))
    entries = run_tournament(game, store, pairings, seed=SEED, executor=executor, max_plies=default_max_plies(game),
                             quiet=quiet)
    return _tally(pairings, entries)


def _tally(pairings: list[Pairing], entries: list[dict[str, Any]]) -> tuple[int, int, int]:
    """(wins, draws, losses) of the report's agent over the pairings' tournament entries."""
    wins = draws = losses = 0
    for pairing, entry in zip(pairings, entries):
        first = pairing.label == "agent first"
        wins += entry["first_wins"] if first else entry["second_wins"]
        losses += entry["second_wins"] if first else entry["first_wins"]
        draws += entry["draws"]
    return wins, draws, losses


def _play_instances(figure: course.ReportFigure, agent: str, opponent: str, executor) -> tuple[int, int, int]:
    """(wins, draws, losses) over a figure's many instances: one game a seat on each (no store, no
    audit; no progress lines: a hundred two-game tournaments)."""
    wins = draws = losses = 0
    for params in figure.figure.instances:
        game = make_game(figure.game, params)
        first, second = resolve_agent(agent, game), resolve_agent(opponent, game)
        pairings = [Pairing(first, second, INITIAL, 1, "agent first"),
                    Pairing(second, first, INITIAL, 1, "agent second")]
        won, drawn, lost = _tally(pairings, run_tournament(game, None, pairings, seed=SEED, executor=executor,
                                                           max_plies=default_max_plies(game), quiet=True))
        wins, draws, losses = wins + won, draws + drawn, losses + lost
    return wins, draws, losses


def _played(figure: course.ReportFigure, stores: Stores, artifacts: Artifacts, executor, quiet: bool
            ) -> dict[str, Any]:
    """What a row plays, as DIR/seeds/rows keeps it: {"versions": each version of the match
    (`ReportFigure.versions`) with the specs that name its sides in the row, its [wins, draws,
    losses] and its exact rates where they can be had (`_exact`), "value_kept": our audit of the
    report's agent, "not_run": why, where it cannot be played}."""
    if figure.figure.instances:
        return {"versions": [{"version": label, "agent": agent, "opponent": opponent,
                              "counts": list(_play_instances(figure, agent, opponent, executor)),
                              "exact": _exact(figure, agent, opponent, None)}
                             for label, agent, opponent in figure.versions()], "value_kept": None, "not_run": None}
    game = make_game(figure.game, figure.figure.params)
    store, why, sample = stores.get(game)  # for the exact audit, where this machine can solve the game
    if store is None and any(reads_store(ref.name) for ref in (figure.figure.agent, figure.figure.opponent)):
        return {"versions": [], "value_kept": None, "not_run": why}
    played, shown = {}, {}
    for side, ref, spec in (("agent", figure.figure.agent, figure.agent),
                            ("opponent", figure.figure.opponent, figure.opponent)):
        found = artifacts.spec(ref, game) if ref.learner else (spec, spec)
        if found is None:
            return {"versions": [], "value_kept": None,
                    "not_run": f"{ref.label} is trained as the report trained it ({ref.learner}), and {UNTRAINED}"}
        played[side], shown[side] = found
        try:
            build_agent(played[side], game, seed=SEED, store=store)
        except BadAgent as exc:
            if ref.learner or "needs params=FILE" not in str(exc):
                raise
            return {"versions": [], "value_kept": None,
                    "not_run": f"{ref.label} needs an artifact trained as the report trained it, and no preset "
                               f"of ours trains it yet ({exc})"}
    versions = []
    for (label, agent, opponent), (_, agent_shown, opponent_shown) in zip(
            figure.versions(played["agent"], played["opponent"]), figure.versions(shown["agent"], shown["opponent"])):
        versions.append({"version": label, "agent": str(agent_shown), "opponent": str(opponent_shown),
                         "counts": list(_play(figure, agent, opponent, game, store, executor, quiet)),
                         "exact": _exact(figure, agent, opponent, store)})
    kept = sample.value_kept(build_agent(played["agent"], game, seed=SEED, store=store)) if sample else None
    return {"versions": versions, "value_kept": kept, "not_run": None}


def _exact(figure: course.ReportFigure, agent: str | AgentSpec, opponent: str | AgentSpec, store: Store | None
           ) -> dict[str, float] | None:
    """The version's exact rates (`validation.exact`), where it can compute them, else None."""
    if figure.figure.instances:
        return exact.exact_rates(figure.game, agent, opponent, figure.figure.seat, figure.figure.instances)
    return exact.exact_rates(make_game(figure.game, figure.figure.params), agent, opponent, figure.figure.seat,
                             store=store)


def _row(figure: course.ReportFigure, played: dict[str, Any]) -> dict[str, Any]:
    """A row of report.json from what it played (`_played`) and the figure as the code now gives it."""
    theirs = figure.theirs()
    evidence = [course.version(entry["version"], entry["agent"], entry["opponent"], entry["counts"], theirs,
                               played["value_kept"] if k == 0 else None, entry.get("exact"))
                for k, entry in enumerate(played["versions"])]
    return course.row(figure, evidence or None, played["not_run"])


def run_seeds(out_dir: Path, *, only: str | None = None, train: bool = True,
              options: SolveOptions = SolveOptions()) -> dict[str, Any]:
    """Play every published figure's row not played yet into `out_dir` (those of report `only`, if
    given: the report then holds them and the rows earlier runs played); returns report.json's
    document. With `train` false nothing is trained: a row whose agent needs an artifact that no
    earlier run trained is not run (and not kept, so that a later run plays it). The stores the
    rows read are solved as `options` say, on the executor the rows play on."""
    figures = report_figures(only)
    with made_folder(out_dir):
        return _play_rows(out_dir, figures, only, train, options)


def _play_rows(out_dir: Path, figures: list[course.ReportFigure], only: str | None, train: bool,
               options: SolveOptions) -> dict[str, Any]:
    """`run_seeds` in its folder `out_dir`, which exists."""
    quiet = options.quiet
    rows_dir = out_dir / "rows"
    for entry in ("stores", "artifacts", "rows", "report.json", "report.md", "report.html", TIMINGS):
        inside(out_dir, out_dir / entry)  # nothing planted leads out of the folder
    with writer_lock(out_dir / "report.json", "seeds report"), ExitStack() as stack, \
            open_executor(workers=options.workers, scheduler=options.scheduler, positions=None) as executor:
        stores = Stores(out_dir / "stores", executor, stack, options)
        artifacts = Artifacts(out_dir / "artifacts", stores)
        to_play = [figure for figure in figures if not (rows_dir / f"{_key(figure)}.json").exists()
                   and (only is None or figure.seed.startswith(only))]
        trained = artifacts.train_all(to_play, executor, quiet) if train else {}
        rows, seconds = [], {}
        for figure in figures:
            done = rows_dir / f"{_key(figure)}.json"
            played = read_document(out_dir, done, "played row", "delete it to play the row again")
            if not played and (only is None or figure.seed.startswith(only)):
                started = time.monotonic()
                played = _played(figure, stores, artifacts, executor, quiet)
                if UNTRAINED not in (played["not_run"] or ""):
                    rows_dir.mkdir(exist_ok=True)
                    write_json(done, played)
                    name = f"{figure.seed[:3]} {figure.where}: {figure.agent} vs {figure.opponent}, {figure.figure.seat}"
                    seconds[name] = round(time.monotonic() - started, 2)
            if played:
                rows.append(_row(figure, played))
        unplayed = report_unplayed(only)
        document = {"rows": rows, "unplayed": unplayed, "summary": course.summary(rows, unplayed)}
        write_json(out_dir / "report.json", document)
        write_json(out_dir / TIMINGS, {"rows_played_s": seconds, "artifacts_trained_s": trained})
        for name, text in (("report.md", report.seeds_markdown(rows, unplayed)),
                           ("report.html", report.seeds_html(rows, unplayed))):
            write_atomically(out_dir / name, lambda file, text=text: file.write(text.encode()))
    return document
