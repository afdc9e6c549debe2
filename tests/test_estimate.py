"""Estimates of a solve before it starts (pipeline/estimate.py), against solved stores and the
figures measured in BENCHMARKS.md, and the refusal of what a machine cannot do."""

from __future__ import annotations

import json
import math
import os
import re

import pytest

from retrograde.errors import BadOption
from retrograde.games import example_games, make_game
from retrograde.games.capabilities import Costs, costs_of
from retrograde.pipeline import estimate as estimating
from retrograde.pipeline.estimate import (Machine, Splits, check_fits, estimate, human_bytes, task_peaks,
                                          this_machine, worker_processes)
from retrograde.pipeline.executors import IN_PROCESS_LIMIT
from retrograde.data.plan import make_plan

#: The project machine (2 cores, 24 GiB): about 23 GiB available, and the 53 GB of free disk of the issue.
PROJECT_MACHINE = Machine(memory=23 * 2**30, disk=53 * 10**9, folder=".")


def plan_of(name, params=None):
    return make_plan(make_game(name, params or {}))


def quixo(size, down_to=None, workers=2):
    return estimate(plan_of("quixo", {"size": size, "down_to": down_to}), workers=workers)


def within(value, truth, factor):
    return truth / factor <= value <= truth * factor


@pytest.mark.parametrize("name, params, positions", [
    ("nim", {"heaps": [1, 3, 5, 7]}, 2 * 4 * 6 * 8),
    ("tictactoe", {}, 6_046),
    ("quixo", {"size": 4}, 3**16),
    ("quixo", {"size": 5, "down_to": 24}, 452_984_832),  # SCALING.md
    ("quixo", {"size": 5}, 3**25),
])
def test_positions_are_the_plans(name, params, positions):
    plan = plan_of(name, params)
    result = estimate(plan, workers=2)
    assert result.positions == sum(tier.size for tier in plan.tiers) == positions
    assert result.to_solve == positions
    assert estimate(plan, workers=2, done_positions=positions // 4).to_solve == positions - positions // 4


@pytest.mark.parametrize("name, params", [("quixo", {"size": 3}), ("tictactoe", {}), ("nim", {"heaps": [1, 3, 5, 7]})])
def test_disk_matches_a_solved_store(solved, name, params):
    path = solved(name, params)
    written = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    assert within(estimate(plan_of(name, params), workers=1).disk_bytes, written, 1.5), written


def test_quixo_against_the_benchmarks():
    """BENCHMARKS.md: store bytes (format 4), largest process and time on 2 workers of 4x4 and 5x5
    solves."""
    full = quixo(4)
    assert within(full.disk_bytes, 1_125_827, 2)
    assert within(full.peak_bytes, 348_000_000, 2)
    assert within(full.seconds, 17.0, 1.5)
    for down_to, disk, peak, seconds in ((24, 6_389_209, 579e6, 84.8), (23, 44_384_706, 2.318e9, 592.7)):
        part = quixo(5, down_to)
        assert within(part.disk_bytes, disk, 1.5), down_to
        assert within(part.peak_bytes, peak, 1.5), down_to
        assert within(part.seconds, seconds, 1.5), down_to


def test_peak_names_the_largest_task():
    # In one task, the propagation of the largest group is the largest task of the full game. Split
    # to fit 32 GB on each of 8 workers, every task fits; the first pass of m8o8 reads the values of
    # m8o9 (2.6e10 indices, positions only, held once): about 17 GB (SCALING.md), unsplit and so
    # beside no partitions held.
    assert quixo(5).peak_task == "propagation of m8o9 m9o8"
    split = estimate(plan_of("quixo", {"size": 5}), workers=8, worker_memory=32 * 10**9)
    assert split.peak_task.startswith("propagation of ") and split.peak_bytes <= 32 * 10**9
    first = dict((task, peak) for peak, task in task_peaks(plan_of("quixo", {"size": 5})))
    assert 16e9 < first["first pass of m8o8"] < 18e9
    assert quixo(5, 24).peak_task == "propagation of m11o13 m13o11"
    # Loop-free games: a chunk reading its child tiers whole; tiny next to the worker process itself.
    ttt = estimate(plan_of("tictactoe"), workers=1)
    assert ttt.peak_task == "chunk of k6"
    # k7 (1,260 indices) read whole, 2 bits an index and 1 + 1 bytes a stored position (one in
    # `position_share`), beside the largest set a worker may have kept (k6's, 1,680 indices) and one
    # chunk of k7 read (1 + 1 bytes an index, and its outcome unpacked); k6's 1,680 rows expanded
    # (1 + 8 x 9 moves), with outcome, remoteness and fault outputs.
    share = make_game("tictactoe", {}).costs.position_share
    k7, k6 = (size // 4 + 2 * math.ceil(size * share) for size in (1_260, 1_680))
    assert ttt.peak_bytes == estimating.PROCESS_BYTES + k7 + k6 + 1_260 * 3 + 1_680 * (1 + 8 * 9 + 3)


def test_time_and_scratch_scale_with_workers(monkeypatch):
    # Every 4x4 group (4 chunks at most) is solved in one task, writing no scratch file ...
    assert quixo(4, workers=1).scratch_bytes == 0
    monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", "0")  # ... unless none is
    one, two = quixo(4, workers=1), quixo(4, workers=2)
    assert one.seconds == pytest.approx(2 * two.seconds)
    assert one.workers == 1 and two.workers == 2
    # One group in progress with one worker: the largest; its first pass (4 bytes an index) and
    # checkpoint (4 bytes a position), deflated to the game's measured share.
    costs = make_game("quixo", {"size": 4}).costs
    share, SCRATCH_SHARE = costs.position_share, costs.scratch_share
    assert SCRATCH_SHARE < 1
    assert one.scratch_bytes == math.ceil((1 + share) * 4 * 2 * 2_018_016 * SCRATCH_SHARE)  # m5o6 + m6o5
    assert one.scratch_bytes < two.scratch_bytes < 2 * one.scratch_bytes
    assert quixo(5, workers=1).scratch_bytes == math.ceil((1 + share) * 4 * 52_586_176_500 * SCRATCH_SHARE)  # about 24 GB, not 237
    assert estimate(plan_of("tictactoe"), workers=2).scratch_bytes == 0  # no loopy groups
    half = estimate(plan_of("quixo", {"size": 4}), workers=2, done_positions=3**16 // 2)
    assert half.seconds == pytest.approx(two.seconds / 2, rel=1e-6)
    assert half.disk_needed == pytest.approx(half.disk_bytes / 2 + half.scratch_bytes, abs=1)


def test_describe_is_one_human_line():
    line = quixo(4).describe()
    assert line == ("43,046,721 positions; about 1.5 MB on disk, peak 223 MB per worker (group m5o6 m6o5 in one "
                    "task), about 0:00:17 on 2 workers")
    resumed = estimate(plan_of("quixo", {"size": 4}), workers=1, done_positions=3**16 - 1000)
    assert "43,046,721 positions (1,000 still to solve);" in resumed.describe()
    assert resumed.describe().endswith("about 0:00:01 on 1 worker")  # never under a second
    assert "scratch" not in estimate(plan_of("tictactoe"), workers=1).describe()


def test_full_5x5_is_refused_on_the_project_machine():
    with pytest.raises(BadOption) as refused:
        check_fits(quixo(5), store_path="q5.zarr", machine=PROJECT_MACHINE)
    line = str(refused.value)
    assert "\n" not in line
    assert line.startswith("quixo --size 5: 847,288,609,443 positions need about ")
    assert "of disk (53 GB free at '.')" in line
    assert "139 GB of memory per worker x 2 workers (propagation of m8o9 m9o8; 25 GB available)" in line
    assert line.endswith("solve part of it with --down-to N (the tiers with at least N cubes) "
                         "or pass --force to start anyway")
    check_fits(quixo(5), store_path="q5.zarr", machine=PROJECT_MACHINE, force=True)


def test_a_solve_over_the_time_allowed_is_refused():
    """`max_seconds`: a workflow's own stores allow less time than `solve`'s week (`run seeds`
    solved the full 5x5 game, 94 hours on one worker, once its scratch shrank to fit the disk)."""
    full = quixo(5)
    roomy = Machine(10**15, 10**15, ".")
    check_fits(full, store_path="q5.zarr", machine=roomy)
    with pytest.raises(BadOption, match=r"on 2 workers \(over the 1:00:00 allowed\)"):
        check_fits(full, store_path="q5.zarr", machine=roomy, max_seconds=3600)
    check_fits(full, store_path="q5.zarr", machine=roomy, max_seconds=3600, force=True)


def test_run_seeds_solves_no_store_over_an_hour(tmp_path):
    from contextlib import ExitStack

    from retrograde.pipeline.solve import SolveOptions
    from retrograde.workflows.course import Stores

    with ExitStack() as stack:
        store, why, _ = Stores(tmp_path, None, stack, SolveOptions(workers=1)).get(make_game("quixo", {"size": 5}))
    assert store is None and "which this machine cannot solve" in why and "over the 1:00:00 allowed" in why
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("size, down_to", [(4, None), (5, 24), (5, 23)])
def test_what_the_project_machine_does_fits(size, down_to):
    check_fits(quixo(size, down_to), store_path="q.zarr", machine=PROJECT_MACHINE)


def test_fewer_workers_are_suggested_when_one_fits():
    with pytest.raises(BadOption, match=r"8\.0 GB of memory per worker x 4 workers .* "
                                        r"--down-to N \(the tiers with at least N cubes\), use --workers 3 "
                                        r"or pass --force to start anyway$"):
        check_fits(quixo(5, 22, workers=4), store_path="q.zarr", machine=PROJECT_MACHINE)


def test_tiny_limits_refuse():
    ttt = estimate(plan_of("tictactoe"), workers=1)
    small = Machine(memory=10**6, disk=1_000, folder="/small")
    with pytest.raises(BadOption) as refused:
        check_fits(ttt, store_path="t.zarr", machine=small)
    assert str(refused.value) == ("tictactoe: 6,046 positions need about 30 kB of disk (1.0 kB free at '/small') "
                                  "and 200 MB of memory (chunk of k6; 1.0 MB available); "
                                  "pass --force to start anyway")
    with pytest.raises(BadOption, match=r"^quixo --size 4: 43,046,721 positions need about 0:00:34 "
                                        r"on 1 worker \(over the 0:00:10 allowed\); solve part"):
        check_fits(quixo(4, workers=1), store_path="q.zarr", machine=PROJECT_MACHINE, max_seconds=10)
    check_fits(quixo(4, workers=1), store_path="q.zarr", machine=small, force=True)


def test_this_machine_looks_at_the_nearest_existing_folder(tmp_path):
    machine = this_machine(tmp_path / "not" / "yet" / "q.zarr")
    assert machine.folder == str(tmp_path)
    assert machine.disk > 0 and machine.memory > 0
    check_fits(estimate(plan_of("nim", {"heaps": [1, 3, 5, 7]}), workers=1), store_path=tmp_path / "n.zarr")


def test_worker_processes_follow_open_executor():
    assert worker_processes(0, 10**9) == 1
    assert worker_processes(None, IN_PROCESS_LIMIT - 1) == 1
    assert worker_processes(None, IN_PROCESS_LIMIT) == (os.cpu_count() or 1)
    assert worker_processes(3, 10) == 3


def test_human_bytes():
    assert [human_bytes(n) for n in (0, 999, 1_000, 7_974_780, 99_960_000, 157e9, 2.5e15)] == [
        "0 B", "999 B", "1.0 kB", "8.0 MB", "100 MB", "157 GB", "2.5 PB"]


def test_every_game_has_its_measured_rate_or_says_it_has_none():
    """A game's costs are measured (not the defaults), or absent: every game of retrograde's own
    gives them; one that gives none (the tests' minimal game) is estimated as unmeasured."""
    for name, game in example_games().items():
        costs = game.costs
        assert costs is None or (costs.measured and costs.solve_rate != Costs().solve_rate), name
        assert costs is not None or not type(game).__module__.startswith("retrograde."), name
        assert costs_of(game).measured == (costs is not None)
    assert make_game("quixo", {"size": 4}).costs.solve_rate == 1_266_000  # 4x4 Quixo, BENCHMARKS.md
    assert "--down-to N" in make_game("quixo", {"size": 5}).costs.too_big_hint
    assert "--from POSITION" in make_game("quarto").costs.too_big_hint
    # 5x4 Connect Four, the measured board nearest 4x4
    assert make_game("connect4", {"width": 4, "height": 4}).costs.solve_rate == 5_621_939 / 7.37 / 2


def test_an_estimate_without_measured_costs_says_it_is_unmeasured():
    unmeasured = estimate(make_plan(make_game("treblecross", {"cells": 7})), workers=0)
    measured = estimate(make_plan(make_game("tictactoe")), workers=0)
    assert "(unmeasured: the game gives no costs)" in unmeasured.describe()
    assert "unmeasured" not in measured.describe()


def test_plan_command_lists_each_task_peak_before_anything_runs(tmp_path):
    """`retrograde plan GAME`: the solve's estimate line and every step's tasks with their peak memory,
    the largest first; nothing is written. Within 32 GB a worker, every 5x5 task fits, the first pass of
    m8o8 included (SCALING.md)."""
    from conftest import run_cli

    result = run_cli("plan", "quixo", "--size", "5", "--workers", "8", "--worker-memory", "32GB", "--json",
                     cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    plan = make_plan(make_game("quixo", {"size": 5}))
    expected = estimate(plan, workers=8, worker_memory=32 * 10**9)
    assert (found["positions"], found["peak_bytes"], found["peak_task"], found["workers"]) == \
        (expected.positions, expected.peak_bytes, expected.peak_task, 8)
    assert expected.peak_bytes <= 32 * 10**9
    tasks = {task["task"]: task["peak_bytes"] for task in found["tasks"]}
    assert max(tasks.values()) == expected.peak_bytes and len(tasks) == len(found["tasks"])
    # Every tier has its first pass, as a task or within its small group's one task (a task beside a
    # split group's held partitions says so after a comma).
    names = {task.split(", beside ")[0] for task in tasks}
    in_one = {name for task in names if task.endswith(" in one task") for name in task.split()[1:-3]}
    assert in_one and {f"first pass of {tier.name}" for tier in plan.tiers if tier.name not in in_one} <= names
    assert any(", beside " in task for task in tasks)
    # The largest propagation (210 GB in one task) is split to fit 32 GB a worker.
    (split,) = [task for task in tasks if task.startswith("propagation of m8o9 m9o8, 1 of ")]
    parts = int(re.search(r"1 of (\d+) partitions", split)[1])
    assert tasks[split] <= 32 * 10**9 and parts >= 2, split
    assert parts == Splits(plan, worker_memory=32 * 10**9, workers=8).parts[("m8o9", "m9o8")]
    text = run_cli("plan", "quixo", "--size", "4", cwd=tmp_path)
    lines = text.stdout.splitlines()
    four = estimate(make_plan(make_game("quixo", {"size": 4})), workers=None)
    assert text.returncode == 0 and lines[0] == f"plan: {four.describe()}"
    assert lines[2].split()[-5:] == ["m5o6", "m6o5", "in", "one", "task"] and len(lines) == 12
    assert list(tmp_path.iterdir()) == []
    for bad in (["plan"], ["plan", "chess"], ["plan", "quixo", "--size", "7"],
                ["plan", "nim", "--heaps", "1,3", "--workers", "-1"]):
        result = run_cli(*bad, cwd=tmp_path)
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, (bad, result.stderr)
    assert list(tmp_path.iterdir()) == []
