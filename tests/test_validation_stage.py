"""The validate stage (validation/stage.py): the agents it takes when none are named, the executor
it opens, the report folder it makes, and what its report says of the store and its tasks."""

from __future__ import annotations

import contextlib

from retrograde.data.store import Store
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.validation import stage, validate


def test_a_report_from_a_store_names_the_store_and_the_positions_its_tasks_measured(open_solved, tmp_path):
    """validation/stage.py: the report's settings give the positions per move-quality task that
    its tasks measured (600 positions: a full task and a short one), and its `store` entry is
    the store validated (tic-tac-toe is a draw with perfect play)."""

    class Recording(InProcessExecutor):
        def run(self, tasks):
            tasks = list(tasks)
            ran.extend(tasks)
            return super().run(tasks)

    ran = []
    store = open_solved("tictactoe")
    report = validate(store, tmp_path / "report", "random", games=1, positions=600, openings=False,
                      executor=Recording(), quiet=True)
    measured = [task.cost for task in ran if task.key.startswith("quality-")]
    assert len(measured) == 2 and report["settings"]["positions_per_task"] == max(measured)
    assert report["store"]["path"] == str(store.path)
    assert report["store"]["value"] == "a draw with perfect play"


def test_default_agents_are_those_that_can_play_the_game():
    """validation/stage.py: with no agents named, validate takes the default agents that can play
    the game: for tic-tac-toe without a store, its own `expert` (the magic-square rules) but not
    `lookup` (it needs one), Nim's `rules` or Quarto's `endgame` (docs/agents.md)."""
    assert [agent.spec for agent in stage.default_agents(make_game("tictactoe"), None)] == [
        "random", "greedy", "expert", "minimax:depth=2", "minimax:depth=3", "mcts"]


def test_validate_sizes_its_executor_by_the_store(solved, tmp_path, monkeypatch):
    """validation/stage.py: a validation that opens its own executor tells `open_executor` the
    store's positions (a small store then runs in-process): for tic-tac-toe, every index of its
    tiers."""
    asked = []

    @contextlib.contextmanager
    def recording(**options):
        asked.append(options)
        yield InProcessExecutor()

    monkeypatch.setattr(stage, "open_executor", recording)
    path = solved("tictactoe")
    stage.validate(path, tmp_path / "report", "random", games=2, positions=20, quiet=True)
    with Store.open(path) as store:
        indices = sum(tier.size for tier in store.plan.tiers)
    assert [options["positions"] for options in asked] == [indices]


def test_validate_makes_the_report_folder_and_its_parents(solved, tmp_path, monkeypatch):
    """validation/stage.py: `--out a/b/report` makes a and b too (the lock goes beside the report)."""
    monkeypatch.setattr(stage, "open_executor", lambda **options: contextlib.nullcontext(InProcessExecutor()))
    stage.validate(solved("tictactoe"), tmp_path / "a" / "b" / "report", "random", games=2, positions=20, quiet=True)
    assert (tmp_path / "a" / "b" / "report" / "report.json").is_file()
