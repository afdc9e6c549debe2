"""Quixo: rules, kernels against the plain-Python reference, and solved stores against
"Quixo Is Solved" (Tanaka et al. 2020) and the lookup agent's play."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quixo_reference as qref
from conftest import run_cli
from retrograde import outcome as oc
from retrograde.agents import build_agent, resolve_agent
from retrograde.agents.lookup import LookupAgent
from retrograde.agents.random_agent import RandomAgent
from retrograde.agents.match import play_game
from retrograde.data.probing import values
from retrograde.games import make_game
from retrograde.games.base import IN_GROUP
from retrograde.games.check import first_pass_references
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.pipeline.stages import verify_stage
from retrograde.validation.audit import consistency_checks

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("size,count", [(3, 20), (4, 32), (5, 44)])
def test_move_counts_on_the_empty_board(size, count):
    game = make_game("quixo", {"size": size})
    assert len(game.moves(game.initial_position)) == count


def test_push_shifts_the_line_and_shows_the_mover():
    game = make_game("quixo", {"size": 3})
    moves = dict(game.moves(game.parse("xo./.../... x")))
    assert set(moves) == {"a1-c1", "a1-a3", "c1-a1", "c1-c3", "a2-c2", "a2-a1", "a2-a3", "c2-a2", "c2-c1",
                          "c2-c3", "a3-c3", "a3-a1", "b3-a3", "b3-c3", "b3-b1", "c3-a3", "c3-c1"}
    assert game.format(moves["a1-c1"]) == "o.x/.../... o"   # x's own cube from a1, pushed in at c1
    assert game.format(moves["a1-a3"]) == ".o./.../x.. o"
    assert game.format(moves["b3-b1"]) == "xx./.o./... o"   # column pushed down
    assert "b1-b3" not in moves  # the opponent's cube cannot be taken


def test_lines_decide_for_the_side_to_move():
    game = make_game("quixo", {"size": 3})
    assert game.primitive(game.parse("xxx/oo./o.. x")) == oc.WIN
    assert game.primitive(game.parse("xxx/oo./o.. o")) == oc.LOSS
    # Both lines: the side that made them (the one not to move) loses.
    assert game.primitive(game.parse("xxx/ooo/... x")) == oc.WIN
    assert game.primitive(game.parse("xxx/ooo/... o")) == oc.WIN
    assert game.moves(game.parse("xxx/ooo/... o")) == []


def test_a_push_making_both_lines_loses():
    game = make_game("quixo", {"size": 3})
    moves = dict(game.moves(game.parse("xxo/xxo/oo. x")))
    both = moves["c3-a3"]  # the blank from c3, pushed in at a3: column a is x x x, column c o o o
    assert game.format(both) == "xxo/xxo/xoo o"
    assert game.primitive(both) == oc.WIN  # x made o's line too: x loses, o (to move) has won
    own = moves["a1-a3"]  # x's own cube from a1, pushed in at a3: column a shifts up
    assert game.format(own) == "xxo/oxo/xo. o" and game.primitive(own) == 0
    only_x = dict(game.moves(game.parse("xx./oo./... x")))["c1-a1"]  # the blank, in at a1
    assert game.format(only_x) == "xxx/oo./... o" and game.primitive(only_x) == oc.LOSS


def _board(size):
    return st.lists(st.sampled_from("xo."), min_size=size * size, max_size=size * size).map("".join)


@SETTINGS
@given(st.sampled_from([3, 4, 5]).flatmap(lambda n: st.tuples(st.just(n), _board(n), st.sampled_from("xo"))))
def test_kernels_match_the_rules_on_random_boards(case):
    size, cells, side = case
    game = make_game("quixo", {"size": size})
    position = (cells, side)
    name, index = game.locate(position)
    tier = game.tier(name)
    partner, outside = tier.children[0], (tier.children[1] if len(tier.children) > 1 else None)
    offsets = np.array([0, 10**12][: len(tier.children)], dtype=np.int64)
    stored = _stored(position)
    # Any other member of the class is a hole: the store keeps the representative's index.
    if game.locate(stored)[1] != index:
        assert int(game.expand(tier, index, index + 1, offsets).primitive[0]) == oc.ILLEGAL
        index = game.locate(stored)[1]
    expansion = game.expand(tier, index, index + 1, offsets)
    assert int(expansion.primitive[0]) == game.primitive(position)
    got = Counter((partner if ref < 10**12 else outside, ref % 10**12)
                  for ref in expansion.children[0].tolist() if ref >= 0)
    assert got == Counter(game.locate(_stored(child)) for _, child in game.moves(stored))
    # The loopy group's first pass: partner children only counted (once a move), or given by
    # value if terminal.
    first_pass = game.expand(tier, index, index + 1, offsets, group=(name, partner))
    row = first_pass.children[0].tolist()
    row = [IN_GROUP if 0 <= ref < 10**12 else ref for ref in (row[:row.index(-1)] if -1 in row else row)]
    assert Counter(row) == Counter(first_pass_references(game, tier, (name, partner), offsets, stored))
    # The parents kernel: every in-group parent with a move into the position's class, once,
    # weighed by its moves into the class.
    refs, weights = game.loopy.parents(tier, np.array([index]), {name: 0, partner: 0} if partner != name else {name: 0})
    row = refs[0].tolist()
    row = row[:row.index(-1)] if -1 in row else row  # what follows a row's end is not set
    named = Counter(row)
    assert set(named.values()) <= {1}
    weight_of = dict(zip(row, weights[0].tolist()))
    expected = {}
    for parent_index in range(game.tier(partner).size) if size == 3 else named:
        parent = game.position_at(game.tier(partner), parent_index)
        if _stored(parent) == parent and not game.primitive(parent):
            into = sum(game.locate(_stored(child)) == (name, index) for _, child in game.moves(parent))
            if into:
                expected[parent_index] = into
    assert {i: weight_of[i] for i in named if not game.primitive(game.position_at(game.tier(partner), i))} == expected


def _stored(position):
    """The member of the position's symmetry class a store keeps, by tests/quixo_reference.py's rule."""
    cells, side = position
    board = cells if side == "x" else qref.swap(cells)
    kept = qref.representative(board)
    return (kept if side == "x" else qref.swap(kept)), side


# --- solved stores ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quixo3(solved):
    return solved("quixo", {"size": 3})


def test_3x3_is_a_first_player_win_and_verifies(quixo3, open_solved):
    store = open_solved("quixo", {"size": 3})
    root = values(store, [store.game.initial_position])[0]
    assert root.outcome == oc.WIN and root.remoteness % 2 == 1
    assert store.plan.positions == 3**9
    result = verify_stage(store, InProcessExecutor(), quiet=True)
    assert result.ok and result.positions == 3**9


def _positions_with(store, code, count, seed):
    """Up to `count` stored positions of value `code`, drawn with a seeded generator."""
    rng = np.random.default_rng(seed)
    picked = []
    for tier in store.plan.tiers:
        outcome, _ = store.read_tier(tier.name)
        where = np.flatnonzero(outcome == code)
        for index in rng.choice(where, size=min(len(where), max(1, count // 10)), replace=False):
            picked.append(store.game.position_at(store.game.tier(tier.name), int(index)))
    rng.shuffle(picked)
    return picked[:count]


def check_lookup_converts_wins(store, starts, seed):
    """From won positions the lookup agent (moving first) wins against random and against
    itself, within the stored remoteness; from lost positions it loses no faster than that."""
    for n, start in enumerate(starts):
        value = values(store, [start])[0]
        winner = LookupAgent(store.game, store=store, seed=seed + n)
        for opponent in (RandomAgent(store.game, seed=seed + n), LookupAgent(store.game, store=store, seed=seed + n + 1)):
            record = play_game(winner, opponent, start, max_plies=200)
            assert record.result == "win", (store.game.format(start), record)
            assert record.plies <= value.remoteness
            if isinstance(opponent, LookupAgent):
                assert record.plies == value.remoteness  # perfect defence delays to the end


def test_3x3_lookup_agent_converts_every_win(open_solved):
    store = open_solved("quixo", {"size": 3})
    check_lookup_converts_wins(store, _positions_with(store, oc.WIN, 150, seed=3), seed=30)
    for start in _positions_with(store, oc.DRAW, 30, seed=4):
        record = play_game(LookupAgent(store.game, store=store, seed=1), LookupAgent(store.game, store=store, seed=2), start, max_plies=60)
        assert record.result == "draw"  # neither side lets the draw slip


@pytest.fixture(scope="module")
def quixo4(tmp_path_factory):
    """The full 4x4 solve through the CLI on a local cluster (the headline run)."""
    path = tmp_path_factory.mktemp("q4") / "q4.zarr"
    result = run_cli("solve", "quixo", "--size", "4", "--store", str(path), "--workers", "2", "--quiet",
                     timeout=1800)
    assert result.returncode == 0, result.stderr
    return path


def test_4x4_totals_match_the_paper(quixo4):
    status = json.loads(run_cli("status", "--store", str(quixo4), "--json").stdout)
    assert status["complete"]
    totals = Counter()
    for tier in status["tiers"]:
        totals.update(win=tier["win"], loss=tier["loss"], draw=tier["draw"])
    assert totals == Counter(win=26_434_489, loss=15_003_736, draw=1_608_496)
    probe = json.loads(run_cli("probe", "--store", str(quixo4), "--json", "..../..../..../.... x").stdout)
    assert probe["value"] == "win" and len(probe["moves"]) == 32
    # The first player wins in exactly 21 plies: the fastest winning moves reach it, none faster.
    assert probe["remoteness"] == 21
    assert min(move["remoteness"] for move in probe["moves"] if move["value"] == "win") == 21


def test_4x4_verifies(quixo4):
    result = run_cli("verify", "--store", str(quixo4), "--workers", "2", "--quiet", timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "43,046,721 positions checked, 0 wrong, 0 bad checksums" in result.stdout


def test_4x4_lookup_agent_converts_wins(quixo4):
    from retrograde.data.store import Store

    with Store.open(quixo4) as store:
        check_lookup_converts_wins(store, _positions_with(store, oc.WIN, 60, seed=5), seed=50)


def test_5x5_full_boards_solve_and_verify(tmp_path):
    """5x5 with 25 cubes (33.5 million positions in 13 loopy groups) through the CLI on a local
    cluster, then verified: the scale the 5x5 runs work at, in the suite."""
    store = tmp_path / "q5.zarr"
    result = run_cli("solve", "quixo", "--size", "5", "--down-to", "25", "--store", str(store), "--workers", "2",
                     "--quiet", timeout=1800)
    assert result.returncode == 0, result.stderr
    result = run_cli("verify", "--store", str(store), "--workers", "2", "--quiet", timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "33,554,432 positions checked, 0 wrong, 0 bad checksums" in result.stdout


def test_probe_of_a_tier_not_solved_names_it(tmp_path):
    from conftest import store_bytes
    from retrograde.pipeline.planning import plan_stage

    store = tmp_path / "q5.zarr"
    plan_stage(make_game("quixo", {"size": 5, "down_to": 25}), store).close()  # planned, nothing solved
    before = store_bytes(store)
    full_board = "xxoox/ooxxo/xxoox/ooxxo/xoxox x"  # 25 cubes, no line: tier m13o12
    for position, message in ((full_board, "tier m13o12 is not solved yet"),
                              (full_board[:28] + ". x", "tier m12o12 is not part of this store")):
        result = run_cli("probe", "--store", str(store), position)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr, result.stderr
    assert store_bytes(store) == before


def test_propagation_resumes_from_its_last_checkpoint(tmp_path, solved, monkeypatch):
    """A propagation stopped after a few levels goes on from the level of its last checkpoint
    (it does not start the group again) and ends with the bytes of an uninterrupted solve."""
    from conftest import assert_same_store, solve_in_process, solve_killed_in_propagation
    from retrograde.data.store import Store
    from retrograde.pipeline.scratch import Scratch
    from retrograde.solvers import loopy

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    checkpoints = list(store.glob("scratch/*/propagation-*.npz"))
    assert len(checkpoints) == 1, checkpoints
    with Store.open(store) as opened:
        step = next(step for step in opened.plan.steps if step.tiers[0] == checkpoints[0].parent.name)
        assert Scratch(opened).checkpoint_level(step.tiers) == (1, 3)

    levels, settled_at = [], loopy.settled_at
    monkeypatch.setattr(loopy, "settled_at", lambda outcome, remoteness, level, *span:
                        levels.append(level) or settled_at(outcome, remoteness, level, *span))
    solve_in_process("quixo", {"size": 3}, store)
    assert levels[0] == 3, "the rerun started the interrupted group's propagation again"
    assert not (store / "scratch").exists()
    assert_same_store(store, solved("quixo", {"size": 3}))


def test_a_small_group_is_one_task_without_scratch_files_and_a_kill_costs_it_whole(tmp_path, solved, monkeypatch):
    """With 3x3 Quixo's groups (1 or 2 chunks each) every group is one `solve_group` task, unless
    RETROGRADE_SMALL_GROUP_CHUNKS says 0; killed in a propagation it leaves no first pass and no
    checkpoint behind, and the rerun solves the group again to the bytes of an uninterrupted solve
    (which the truth tests check against the references)."""
    from conftest import Killed, assert_same_store, solve_in_process
    from retrograde.games import make_game
    from retrograde.pipeline.propagation import solve_group
    from retrograde.pipeline.planning import plan_stage
    from retrograde.pipeline.stages import solve_tasks
    from retrograde.pipeline.tasks import settle_chunk
    from retrograde.solvers import loopy

    store = tmp_path / "q3.zarr"
    with plan_stage(make_game("quixo", {"size": 3}), store) as planned:
        kinds = {task.fn for task in solve_tasks(planned) if not task.in_driver}
        monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", "0")
        assert settle_chunk in {task.fn for task in solve_tasks(planned)}
        monkeypatch.delenv("RETROGRADE_SMALL_GROUP_CHUNKS")
    assert kinds == {solve_group}

    monkeypatch.setenv("RETROGRADE_CHECKPOINT_SECONDS", "0")  # even so: a small group saves nothing
    propagate = loopy.propagate

    def propagate_then_die(reached, *args, **kwargs):
        if reached == 3:
            assert not list(store.glob("scratch/*/*.npz")), "a small group wrote scratch files"
            raise Killed
        return propagate(reached, *args, **kwargs)

    monkeypatch.setattr(loopy, "propagate", propagate_then_die)
    with pytest.raises(Killed):
        solve_in_process("quixo", {"size": 3}, store)
    monkeypatch.setattr(loopy, "propagate", propagate)
    solve_in_process("quixo", {"size": 3}, store)
    assert not (store / "scratch").exists()
    assert_same_store(store, solved("quixo", {"size": 3}))


def test_the_driver_leaves_the_scratch_folder_alone_while_tasks_may_write_it(tmp_path, solved):
    """Workers write first passes of other groups while the driver drops a solved group's
    scratch files: the shared scratch folder must stay until the last task is done (checking
    it empty, then removing it, crashed a 4x4 solve on 2 workers with 'Directory not empty').
    The executor below checks, each time the driver hands control back (when a cluster's
    workers would be writing), that a first pass still finds the folder it writes into."""
    from conftest import assert_same_store
    from retrograde.pipeline.planning import plan_stage
    from retrograde.pipeline.stages import solve_stage
    from retrograde.pipeline.tasks import settle_chunk

    path = tmp_path / "q3.zarr"
    scratch = path / "scratch"

    class WatchingExecutor(InProcessExecutor):
        def run(self, tasks):
            first_passes = 0
            for task, result in super().run(tasks):
                yield task, result
                if task.fn is settle_chunk:
                    first_passes += 1
                if first_passes and task is not tasks[-1]:
                    assert scratch.is_dir(), f"the driver removed the scratch folder after {task.key}"

    with plan_stage(make_game("quixo", {"size": 3}), path) as store:
        solve_stage(store, WatchingExecutor(), quiet=True)
    assert not scratch.exists()
    assert_same_store(path, solved("quixo", {"size": 3}))


def test_kills_inside_loopy_groups_resume_to_identical_bytes(tmp_path, monkeypatch):
    """SIGKILL a Quixo solve at seeded moments (inside first passes and propagations of loopy
    groups, many chunks a tier); each rerun resumes, and the end is byte-identical to one run."""
    import random
    import subprocess
    import time

    from conftest import assert_same_store
    from processes import kill_group, run, start

    monkeypatch.setenv("RETROGRADE_CHECKPOINT_SECONDS", "0")  # kills land between checkpoints too
    args = ["solve", "quixo", "--size", "4", "--down-to", "14", "--chunk-size", "32768", "--workers", "0",
            "--quiet", "--store"]
    warm = run(["solve", "quixo", "--size", "3", "--quiet", "--store", str(tmp_path / "warm.zarr")])
    assert warm.returncode == 0  # kernels compiled: the timed run below is what the kills see
    reference = tmp_path / "reference.zarr"
    began = time.monotonic()
    assert run(args + [str(reference)], tmp_path / "logs").returncode == 0
    duration = time.monotonic() - began
    store = tmp_path / "store.zarr"
    rng = random.Random(13)
    interrupted = 0
    for delay in sorted(rng.uniform(0.2 * duration, 0.9 * duration) for _ in range(3)):
        proc = start(args + [str(store)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            pass
        finally:
            kill_group(proc)
        if (store / "scratch").exists():
            interrupted += 1
    assert interrupted >= 1, "no kill landed while a loopy group was being solved"
    assert run(args + [str(store)], tmp_path / "logs").returncode == 0
    assert not (store / "scratch").exists()
    assert_same_store(store, reference)


def test_3x3_lookup_by_value_alone_keeps_values_but_not_the_fastest_win(open_solved):
    """`lookup:remoteness=0` (seed 001's solved agent): every move keeps the position's value,
    but some wins it picks are slower than the fastest one, so in loopy games it can stall."""
    store = open_solved("quixo", {"size": 3})
    agent = build_agent("lookup:remoteness=0", store.game, seed=5, store=store)
    slower = 0
    for start in _positions_with(store, oc.WIN, 150, seed=6):
        value = values(store, [start])[0]
        if value.remoteness == 0:  # won already (a line of the mover's alone): no move
            continue
        _, child = agent.choose(start)
        after = values(store, [child])[0]  # from the opponent's view
        assert after.outcome == oc.LOSS, store.game.format(start)
        slower += after.remoteness + 1 > value.remoteness
    assert slower > 0
    checks = consistency_checks([resolve_agent("lookup:remoteness=0", store.game)],
                                {"lookup:remoteness=0": {"value_kept": 1.0}})
    assert [(c["name"], c["ok"]) for c in checks] == [("lookup:remoteness=0 keeps every value", True)]
