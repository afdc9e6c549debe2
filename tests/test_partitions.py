"""A loopy group's propagation split into partitions, level by level (pipeline.propagation):
the same bytes as one task, in-process and on a LocalCluster (a `dask scheduler` cluster:
test_executors); a resume from the level every partition saved; a damaged partition checkpoint
starts the propagation again; the split follows --partitions and --worker-memory."""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pytest

from conftest import Killed, assert_same_store, run_cli
from retrograde.data.store import Store
from retrograde.pipeline.scratch import Scratch
from retrograde.games import make_game
from retrograde.pipeline.estimate import PROCESS_BYTES, Splits, estimate, task_peaks
from retrograde.pipeline.executors import InProcessExecutor, open_executor
from retrograde.data.plan import make_plan
from retrograde.pipeline.propagation import group_bounds
from retrograde.pipeline.planning import plan_stage
from retrograde.pipeline.stages import solve_stage

#: 4x4 Quixo from 13 cubes on, in chunks of 2^16 indices: 19 loopy groups of up to 61 chunks.
GAME = ("quixo", {"size": 4, "down_to": 13})
CHUNK = 1 << 16


def _solve(path, parts: int, *, workers: int = 0):
    with open_executor(workers=workers) as executor, \
            plan_stage(make_game(*GAME), path, chunk_size=CHUNK) as store:
        solve_stage(store, executor, quiet=True, partitions=parts)
    return path


def _killed(path, parts: int, monkeypatch, *, level: int, calls: int):
    """Solve with `parts` partitions and a checkpoint after every level, killed (by `Killed`) at
    the `calls`-th propagation of a level `level` (a group at that level, after others finished)."""
    from retrograde.solvers import loopy

    monkeypatch.setenv("RETROGRADE_CHECKPOINT_SECONDS", "0")
    propagate, seen = loopy.propagate, []

    def propagate_then_die(reached, *args, **kwargs):
        seen.append(reached)
        if seen.count(level) == calls:
            raise Killed
        return propagate(reached, *args, **kwargs)

    monkeypatch.setattr(loopy, "propagate", propagate_then_die)
    with pytest.raises(Killed):
        _solve(path, parts)
    monkeypatch.setattr(loopy, "propagate", propagate)
    return path


@pytest.fixture
def reference(solved):
    """The store of one propagation task a group."""
    return solved(*GAME, chunk_size=CHUNK)


@pytest.mark.parametrize("parts", [2, 3])
def test_a_split_propagation_gives_the_bytes_of_one_task_in_process(tmp_path, reference, parts):
    assert_same_store(_solve(tmp_path / "split.zarr", parts), reference, f"{parts} partitions in-process")


def test_a_split_propagation_gives_the_bytes_of_one_task_on_a_local_cluster(tmp_path, reference):
    """3 partitions on 2 worker processes: a partition's state stays in its worker between levels."""
    assert_same_store(_solve(tmp_path / "split.zarr", 3, workers=2), reference, "3 partitions, --workers 2")


def test_a_split_propagation_resumes_from_the_level_every_partition_saved(tmp_path, reference, monkeypatch):
    """Killed in the middle of a level (a checkpoint after every level): the rerun starts from the
    latest level all partitions saved, runs no earlier level again, and ends with the same bytes."""
    from retrograde.solvers import loopy

    store = _killed(tmp_path / "split.zarr", 2, monkeypatch, level=5, calls=10)
    files = sorted(p.name for p in store.glob("scratch/*/propagation-*.npz"))
    assert files and all("-of-2-level-" in name for name in files), files
    group = next(store.glob("scratch/*/propagation-*.npz")).parent.name
    with Store.open(store) as opened:
        step = next(step for step in opened.plan.steps if step.tiers[0] == group)
        parts, level = Scratch(opened).checkpoint_level(step.tiers)
    assert parts == 2 and level >= 2

    levels, settled_at = [], loopy.settled_at
    monkeypatch.setattr(loopy, "settled_at", lambda outcome, remoteness, at, *span:
                        levels.append(at) or settled_at(outcome, remoteness, at, *span))
    _solve(store, 1)  # the saved propagation keeps its 2 partitions
    assert levels[0] == level, "the rerun did not start from the saved level"
    assert not (store / "scratch").exists()
    assert_same_store(store, reference, "resumed")


def test_a_damaged_partition_checkpoint_starts_the_propagation_again(tmp_path, reference, monkeypatch):
    store = _killed(tmp_path / "split.zarr", 3, monkeypatch, level=4, calls=15)
    target = sorted(store.glob("scratch/*/propagation-2-of-3-level-*.npz"))[-1]
    target.write_bytes(target.read_bytes()[:100])  # cut short
    result = run_cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert result.returncode == 1 and "propagation checkpoint" in result.stdout, result.stdout
    _solve(store, 3)
    assert_same_store(store, reference, "after a damaged checkpoint")


def test_a_checkpoint_is_taken_only_for_the_range_it_was_saved_for(tmp_path):
    """A partition's checkpoint names its range of the group's indices: one saved for another cut
    (or by a version that cut by indices, with no range) is damage, not state to resume."""
    from retrograde.data.store import SCRATCH
    from retrograde.errors import DamagedStore
    from retrograde.pipeline import scratch as scratch_module

    with plan_stage(make_game(*GAME), tmp_path / "q.zarr", chunk_size=CHUNK) as store:
        store.inside(SCRATCH).mkdir()
        group, scratch = (store.plan.tiers[-1].name,), Scratch(store)
        state = (np.array([1, 0], np.uint8), np.array([3, 0], np.uint8), np.array([0, 2], np.uint8))
        scratch.write_checkpoint(group, 2, 0, 5, 7, *state, span=(0, 4096))
        assert scratch.read_checkpoint(group, 2, 0, 5, span=(0, 4096))[0] == 7
        with pytest.raises(DamagedStore, match="saved for indices 0..4,095, not 0..8,191"):
            scratch.read_checkpoint(group, 2, 0, 5, span=(0, 8192))
        file = store.inside(SCRATCH, group[0], "propagation-1-of-2-level-5.npz")
        scratch_module._save_atomically(file, group=np.array(group), level=5, highest=7, outcome=state[0],
                                        remoteness=state[1], pending=state[2],
                                        counts=np.array(scratch_module.PENDING_COUNTS))
        with pytest.raises(DamagedStore, match="an earlier version, which cut the group otherwise"):
            scratch.read_checkpoint(group, 2, 0, 5, span=(0, 4096))


def test_first_passes_count_the_positions_partitions_are_cut_by(tmp_path):
    """Each chunk's count of positions (a value or children to wait for), kept in its first-pass
    file, and counted from the arrays in a file of a version that did not keep it."""
    from retrograde.data.store import SCRATCH
    from retrograde.pipeline import scratch as scratch_module

    with plan_stage(make_game(*GAME), tmp_path / "q.zarr", chunk_size=CHUNK) as store:
        store.inside(SCRATCH).mkdir()
        name = next(tier.name for tier in store.plan.tiers if store.plan.chunking(tier.name).count == 2)
        scratch, rng = Scratch(store), np.random.default_rng(3)
        lengths = [store.plan.chunking(name).length(chunk) for chunk in (0, 1)]
        arrays = [(rng.integers(0, 3, n).astype(np.uint8) * (rng.random(n) < 0.3), np.zeros(n, np.uint8),
                   rng.integers(0, 2, n).astype(np.uint8) * (rng.random(n) < 0.2)) for n in lengths]
        scratch.write_first_pass(name, 0, *arrays[0])
        scratch.write_first_pass(name, 1, *arrays[1])
        scratch_module._save_atomically(scratch._scratch_file(name, 1), outcome=arrays[1][0], remoteness=arrays[1][1],
                                        pending=arrays[1][2], counts=np.array(scratch_module.PENDING_COUNTS))
        expected = [int(((outcome != 0) | (pending != 0)).sum()) for outcome, _, pending in arrays]
        assert scratch.first_pass_positions(name).tolist() == expected and 0 < min(expected)
        with np.load(scratch._scratch_file(name, 0)) as kept:  # read without the arrays
            assert int(kept["positions"]) == expected[0]


def test_partitions_are_ranges_of_whole_chunks_of_nearly_equal_positions(tmp_path):
    with plan_stage(make_game(*GAME), tmp_path / "q.zarr", chunk_size=CHUNK) as store:
        step = max((step for step in store.plan.steps if step.loopy),
                   key=lambda step: sum(store.plan.tier(name).size for name in step.tiers))
        size = sum(store.plan.tier(name).size for name in step.tiers)
        starts = {0}
        for name in step.tiers[:-1]:
            starts.add(max(starts) + store.plan.tier(name).size)
        for parts in (1, 2, 3, 7):
            bounds = group_bounds(store, step.tiers, parts)
            assert bounds[0] == 0 and bounds[-1] == size and len(bounds) == parts + 1
            assert all(np.diff(bounds) > 0)
            offsets = [0] + [store.plan.tier(name).size for name in step.tiers]
            tier_starts = np.cumsum(offsets)[:-1]
            for bound in bounds[:-1]:  # a chunk start of one of the tiers
                t = int(np.searchsorted(tier_starts, bound, side="right")) - 1
                assert (bound - tier_starts[t]) % CHUNK == 0
            assert max(np.diff(bounds)) - min(np.diff(bounds)) <= 2 * CHUNK
        # Cut by positions: each partition's share is within one chunk's positions of an equal one,
        # on the skew Quixo's symmetry gives (a class stored at its least index: dense low indices).
        chunks = sum(store.plan.chunking(name).count for name in step.tiers)
        chunk_starts = np.concatenate([tier_starts[t] + np.arange(store.plan.chunking(name).count) * CHUNK
                                       for t, name in enumerate(step.tiers)])
        positions = (1_000 * 0.8 ** np.arange(chunks)).astype(np.int64) + 1
        for parts in (2, 3, 7):
            bounds = group_bounds(store, step.tiers, parts, positions)
            assert len(bounds) == parts + 1 and set(bounds[:-1]) <= set(chunk_starts.tolist())
            cuts = np.searchsorted(chunk_starts, bounds[:-1]).tolist() + [chunks]
            shares = [positions[a:b].sum() for a, b in zip(cuts, cuts[1:])]
            assert all(cuts[k] < cuts[k + 1] for k in range(parts))
            assert max(shares) <= positions.sum() / parts + positions.max(), (parts, shares)
            indexed = group_bounds(store, step.tiers, parts)  # equal shares of the indices: far apart
            cut = np.searchsorted(chunk_starts, indexed[:-1]).tolist() + [chunks]
            assert max(positions[a:b].sum() for a, b in zip(cut, cut[1:])) > max(shares)
        small = next(step for step in store.plan.steps
                     if sum(store.plan.chunking(name).count for name in step.tiers) == 2)
        assert len(group_bounds(store, small.tiers, 5)) == 3, "more partitions than chunks"


def test_worker_memory_decides_the_partitions_and_counts_those_a_worker_holds():
    """The fewest partitions whose peak fits, where a worker's peak counts the partitions it holds
    between levels (ceil(parts / workers) of them, each a share of the group's state): more
    workers hold less each, and where what one worker holds is over the limit no split fits."""
    plan = make_plan(make_game("quixo", {"size": 5, "down_to": 22}))
    big = max((step for step in plan.steps if step.loopy), key=lambda step: sum(plan.tier(n).size for n in step.tiers))
    name = " ".join(big.tiers)
    assert Splits(plan).parts[big.tiers] == 1 and Splits(plan, partitions=4).parts[big.tiers] == 4
    whole = dict((task, peak) for peak, task in task_peaks(plan))[f"propagation of {name}"]
    size = sum(plan.tier(tier).size for tier in big.tiers)
    state = size // 4 + size * make_game("quixo", {"size": 5}).costs.position_share * 4  # 2 bits, 4 bytes
    for workers in (1, 2, 4):
        for limit in (whole // 2, whole // 3):
            parts = Splits(plan, worker_memory=limit, workers=workers).parts[big.tiers]
            label = f"propagation of {name}, 1 of {parts} partitions"
            (peak,) = [peak for peak, task in task_peaks(plan, worker_memory=limit, workers=workers)
                       if task.startswith(label)]
            assert parts > 1 and peak - PROCESS_BYTES >= -(-parts // workers) / parts * state * 0.99
            if peak <= limit:  # the fewest that fit, of one and the multiples of the workers
                splits = Splits(plan, worker_memory=limit, workers=workers)
                assert parts % workers == 0 and all(PROCESS_BYTES + splits.peak(big.tiers, fewer) > limit
                                                    for fewer in range(1, parts) if fewer == 1 or fewer % workers == 0)
            else:  # none fits: one worker holds the whole state, and the messages' frames grow with parts
                assert workers == 1 and PROCESS_BYTES + state < limit < peak
    # A third of the whole peak fits on 4 workers; on one, what it holds alone is over it.
    assert estimate(plan, workers=4, worker_memory=whole // 3).peak_bytes <= whole // 3 < \
        estimate(plan, workers=1, worker_memory=whole // 3).peak_bytes
    assert Splits(plan, worker_memory=whole).parts[big.tiers] == 1


def test_plan_and_solve_take_partitions_and_worker_memory(tmp_path, cli):
    code, out, _ = cli("plan", "quixo", "--size", "5", "--down-to", "22", "--worker-memory", "3GB")
    assert code == 0 and "propagation of m10o12 m12o10, 1 of 4 partitions (2 held a worker)" in out, out
    code, out, _ = cli("plan", "quixo", "--size", "5", "--down-to", "23", "--partitions", "3")
    assert code == 0 and "1 of 3 partitions" in out, out
    store = tmp_path / "q.zarr"
    for args, message in ((["--partitions", "0"], "--partitions 0: must be >= 1"),
                          (["--worker-memory", "lots"], "--worker-memory 'lots': must be a size"),
                          (["--worker-memory", "-2GB"], "--worker-memory '-2GB': must be a size"),
                          (["--worker-memory", "200MB"], "more than --worker-memory 200 MB")):
        code, _, err = cli("solve", "quixo", "--size", "4", "--store", str(store), "--workers", "0", *args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
        assert not store.exists()


def test_worker_memory_splits_and_a_wave_holds_one_split_group_at_a_time(tmp_path, reference, cli, monkeypatch):
    """--worker-memory small enough splits the larger groups as `Splits` says for 2 workers (frames
    of 300 messages, so that more partitions pay), and the store is the same. Two groups of one
    wave are split: their propagations do not overlap in time, and each worker holds at most
    ceil(parts / 2) partitions, of one group only, as the estimate counts."""
    from retrograde.pipeline import estimate as estimate_module
    from retrograde.pipeline import propagation
    from retrograde.pipeline import scratch as scratch_module

    monkeypatch.setattr(scratch_module, "FRAME_MESSAGES", 300)
    monkeypatch.setattr(estimate_module, "FRAME_MESSAGES", 300)
    rounds, run_round = [], propagation.propagation_round

    def recorded(worker, ref, tier_names, bounds, *args):
        began = time.monotonic()
        report = run_round(worker, ref, tier_names, bounds, *args)
        held = Counter(group for _, group, _ in propagation._held(worker))  # this worker's own: no race
        rounds.append((tier_names, len(bounds) - 1, began, time.monotonic(), held))
        return report

    monkeypatch.setattr(propagation, "propagation_round", recorded)
    store = tmp_path / "q.zarr"
    code, _, err = cli("solve", "quixo", "--size", "4", "--down-to", "13", "--chunk-size", str(CHUNK),
                       "--store", str(store), "--workers", "2", "--quiet", "--worker-memory", "204MB", "--force")
    assert code == 0, err
    plan = make_plan(make_game(*GAME), chunk_size=CHUNK)
    splits = Splits(plan, worker_memory=204_000_000, workers=2)
    expected = {(tiers, parts) for tiers, parts in splits.parts.items() if parts > 1}
    assert {(tiers, parts) for tiers, parts, *_ in rounds} == expected, rounds
    wave = {step.tiers: step.wave for step in plan.steps}
    together = [(a, b) for a, _ in expected for b, _ in expected if a < b and wave[a] == wave[b]]
    assert together, expected  # two split groups in one wave
    for a, b in together:
        spans = [(min(r[2] for r in rounds if r[0] == g), max(r[3] for r in rounds if r[0] == g)) for g in (a, b)]
        assert spans[0][1] <= spans[1][0] or spans[1][1] <= spans[0][0], (a, b, spans)
    for tiers, parts, _, _, held in rounds:
        assert set(held) == {tiers} and held[tiers] <= -(-parts // 2), (tiers, parts, held)
    assert_same_store(store, reference, "--worker-memory 204MB on 2 workers")


def test_the_in_process_executor_runs_what_in_driver_tasks_spawn_in_order():
    from retrograde.pipeline.graph import Task, waits_for

    ran = []

    def step(worker, name):
        ran.append(name)
        return name

    def spawn(depth, results):
        ran.append(("spawn", depth, results))
        if depth == 2:
            return []
        return [Task(f"s{depth}", step, (f"s{depth}",)), Task(f"spawn{depth + 1}", spawn, (depth + 1,),
                                                               (f"s{depth}",), in_driver=True)]

    tasks = [Task("a", step, ("a",)), Task("spawn0", spawn, (0,), ("a",), in_driver=True),
             Task("z", step, ("z",), ("spawn0",)), waits_for("end", ("z",))]
    seen = [task.key for task, _ in InProcessExecutor().run(tasks)]
    assert ran == ["a", ("spawn", 0, ["a"]), "s0", ("spawn", 1, ["s0"]), "s1", ("spawn", 2, ["s1"]), "z"]
    assert seen == ["a", "s0", "s1", "spawn2", "spawn1", "spawn0", "z", "end"]


def test_messages_travel_in_deflated_frames_and_come_back_whole(tmp_path, monkeypatch):
    """What a partition sends is kept a frame at a time, written sorted and deflated, and read back
    as the same messages (in any order), in pieces; a damaged file is named, not misread."""
    from retrograde.data.store import SCRATCH
    from retrograde.errors import DamagedStore
    from retrograde.pipeline import scratch as scratch_module

    monkeypatch.setattr(scratch_module, "FRAME_MESSAGES", 1_000)
    rng = np.random.default_rng(7)
    sent = [(rng.integers(0, 1 << 40, size) << 8) | rng.integers(0, 256, size) for size in (10, 999, 2_500, 1)]
    with plan_stage(make_game(*GAME), tmp_path / "store.zarr", chunk_size=CHUNK) as store:
        store.inside(SCRATCH).mkdir()
        group, scratch = (store.plan.tiers[-1].name,), Scratch(store)
        with scratch.message_writer(group, 1, 0) as write:
            for messages in sent:
                write(2, messages)
            write(1, sent[0])
        pieces = list(scratch.read_messages(group, 1, 2, 3, 700))
        assert max(piece.size for piece in pieces) <= 700
        assert np.array_equal(np.sort(np.concatenate(pieces)), np.sort(np.concatenate(sent)))
        assert np.array_equal(np.sort(np.concatenate(list(scratch.read_messages(group, 1, 1, 3, 700)))),
                              np.sort(sent[0]))
        assert not list(scratch.read_messages(group, 1, 0, 3, 700))  # nothing sent to itself

        monkeypatch.setattr(scratch_module, "FRAME_MESSAGES", 1 << 22)
        parents = np.repeat(np.arange(0, 3_000_000, 7), 3)  # close parents, as a level's are
        with scratch.message_writer(group, 2, 1) as write:
            write(0, (rng.permutation(parents) << 8) | 2)
        file = store.inside(SCRATCH, group[0], "level-2", "1-0.bin")
        assert file.stat().st_size < parents.size // 4  # 8 bytes a message undeflated
        assert np.array_equal(np.concatenate(list(scratch.read_messages(group, 2, 0, 2, 1 << 20))) >> 8, parents)

        file.write_bytes(file.read_bytes()[:-5])
        with pytest.raises(DamagedStore, match="the messages file scratch/.*level-2/1-0.bin is damaged"):
            list(scratch.read_messages(group, 2, 0, 2, 1 << 20))


def test_a_split_propagation_in_small_frames_gives_the_bytes_of_one_task(tmp_path, reference, monkeypatch):
    """Partitions whose messages span many frames (a frame each few hundred messages)."""
    from retrograde.pipeline import scratch as scratch_module

    monkeypatch.setattr(scratch_module, "FRAME_MESSAGES", 300)
    assert_same_store(_solve(tmp_path / "split.zarr", 3), reference, "3 partitions in frames of 300 messages")
