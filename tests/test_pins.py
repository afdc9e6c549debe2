"""Pins of the mutation pass (issue 26, `benchmarks/bench_mutation.py`): each test here fails
against a mutant that survived the tests of its module, and its expectation is computed by hand
or from the game, never by the code under test."""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import math
import os
import signal
import struct
import time

import matplotlib
import numpy as np
import pytest

from retrograde import outcome as oc
from retrograde.data import artifact, durable, lock
from retrograde.errors import BadAgent, BadOption, StoreError
from retrograde.games import make_game
from retrograde.data.store import Store
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.validation import plots, quality, rating, report, stage, tournament, validate


def test_ratings_count_draws_among_the_games():
    """rating.py: a pair's games are its wins, draws and losses. x scores 20 wins + 60 draws +
    10 losses first, and the mirror second: 100 points of 180 games, plus the virtual draw: a
    two-agent Bradley-Terry fit gives p = 100.5 / 181, Elo 400 log10(p / (1 - p))."""
    tournaments = [{"first": "x", "second": "random", "first_wins": 20, "draws": 60, "second_wins": 10},
                   {"first": "random", "second": "x", "first_wins": 10, "draws": 60, "second_wins": 20}]
    found = rating.ratings(["random", "x"], tournaments, seed=1, bootstrap=0)
    assert found["agents"]["random"]["elo"] == 0.0
    assert found["agents"]["x"]["elo"] == pytest.approx(400 * math.log10(100.5 / 80.5), abs=0.05)


def test_move_quality_by_value_takes_the_positions_of_that_value():
    """quality.py: `by_value` splits the positions by their value. Three won positions (one
    thrown to a draw), a draw kept, a loss; every weight 1."""
    outcome = np.array([oc.WIN, oc.WIN, oc.WIN, oc.DRAW, oc.LOSS], dtype=np.int8)
    remoteness = np.array([1, 3, 5, 0, 2])
    chosen_outcome = np.array([oc.WIN, oc.WIN, oc.DRAW, oc.DRAW, oc.LOSS], dtype=np.int8)
    chosen_remoteness = np.array([1, 5, 0, 0, 2])
    found = quality.summarise(("t",), np.zeros(5, np.int64), np.ones(5), outcome, remoteness, chosen_outcome,
                              chosen_remoteness)["by_value"]
    assert {value: found[value]["positions"] for value in ("win", "draw", "loss")} == {"win": 3, "draw": 1, "loss": 1}
    assert found["win"]["value_kept"] == pytest.approx(2 / 3)
    assert (found["win"]["won"], found["win"]["win_to_draw"]) == (3, 1)
    assert found["draw"]["value_kept"] == found["loss"]["value_kept"] == 1.0


def test_stored_openings_are_as_many_as_asked_and_distinct(solved):
    """tournament.py: a store that does not hold the start gives `count` openings, drawn without
    repeats while its first tiers hold enough positions where the game goes on (3x3 Quixo down to
    7 pieces holds thousands)."""
    store = Store.open(solved("quixo", {"size": 3, "down_to": 7}))
    try:
        openings = list(tournament.stored_openings(store, 20, 5))
        texts = {store.game.format(position) for position in openings}
        assert len(openings) == 20 and len(texts) == 20
        assert not any(store.game.primitive(position) for position in openings)
    finally:
        store.close()


def test_a_lock_file_that_cannot_be_opened_raises_its_own_error(tmp_path, monkeypatch):
    """lock.py: an error opening the lock file that is neither a link nor a folder reaches the
    caller as itself (the CLI names it in a line), not as a failure of the code after it."""
    opened = os.open

    def failing(path, *args, **kw):
        if os.fspath(path) == os.fspath(lock.lock_path(tmp_path / "out")):
            raise OSError(errno.EIO, os.strerror(errno.EIO), os.fspath(path))
        return opened(path, *args, **kw)

    monkeypatch.setattr(lock.os, "open", failing)
    with pytest.raises(OSError) as raised:
        with lock.writer_lock(tmp_path / "out"):
            pass
    assert raised.value.errno == errno.EIO


def test_a_link_below_the_first_component_is_refused(tmp_path):
    """durable.py: every component of the path below the root is checked, the deeper ones too."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a").mkdir(parents=True)
    outside.mkdir()
    (root / "a" / "b").symlink_to(outside)
    with pytest.raises(StoreError, match="symbolic link"):
        durable.inside(root, root / "a" / "b" / "c")
    assert durable.inside(root, root / "a" / "c" / "d") == root / "a" / "c" / "d"


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


def test_the_blunder_plot_grows_with_its_tier_groups():
    """validation/plots.py: the plot is 0.3 in wide per tier group, 8 in at least and 12 in at
    most: 40 groups draw a plot 4 in wider than 10 groups do, of which the axes (the figure less
    matplotlib's side margins, which the tight crop trims) keep their share."""
    tiers = [f"t{i}" for i in range(40)]
    by_tier = {tier: {"positions": 1, "value_kept": 0.5} for tier in tiers}

    def width(groups: int) -> int:
        report = {"tiers": tiers[:groups], "agents": {"a": {"by_tier": by_tier}}}
        png = base64.b64decode(plots.blunder_rate_by_tier(report, {"a": "a"}))
        return struct.unpack(">I", png[16:20])[0]  # the PNG header's width

    axes_share = matplotlib.rcParams["figure.subplot.right"] - matplotlib.rcParams["figure.subplot.left"]
    assert width(40) - width(10) == pytest.approx((12 - 8) * plots.DPI * axes_share, abs=3)


def test_the_chunk_cache_keeps_the_chunks_its_budget_holds(solved):
    """data/store.py: a store's decoded-chunk cache drops the least recently used chunk past its
    budget and no more: with room for three chunks, after chunks 0, 1, 2, 3 are read, chunks
    1, 2, 3 are read again without decoding."""
    store = Store.open(solved("tictactoe", chunk_size=64))
    try:
        name = max(store.plan.tiers, key=lambda tier: store.plan.chunking(tier.name).count).name
        assert store.plan.chunking(name).count >= 5
        one = store.read_chunk_raw(name, 0)
        store.cache_bytes = 3 * (one[0].nbytes + one[1].nbytes)
        decoded, read = [], store.read_chunk_stored
        store.read_chunk_stored = lambda tier, chunk, **kw: decoded.append(chunk) or read(tier, chunk, **kw)
        for chunk in (0, 1, 2, 3, 1, 2, 3):
            store.read_values(name, np.array([64 * chunk]))
        assert decoded == [0, 1, 2, 3]
    finally:
        store.close()


def test_remoteness_given_away_counts_the_won_positions_kept():
    """quality.py: the histogram of remoteness given away is over won positions whose move kept
    the win: a win in 3 played as a win in 5 gives 2, a win in 1 kept as a win in 1 gives 0; a
    win thrown to a draw and a loss are not in it."""
    outcome = np.array([oc.WIN, oc.WIN, oc.WIN, oc.LOSS], dtype=np.int8)
    remoteness = np.array([3, 1, 3, 2])
    chosen_outcome = np.array([oc.WIN, oc.WIN, oc.DRAW, oc.LOSS], dtype=np.int8)
    chosen_remoteness = np.array([5, 1, 0, 2])
    summary = quality.summarise(("t",), np.zeros(4, dtype=np.int64), np.ones(4), outcome, remoteness,
                                chosen_outcome, chosen_remoteness)
    assert summary["remoteness_given_away"] == {"0": 1, "2": 1}


def test_an_artifact_trained_for_another_game_is_refused(tmp_path):
    """artifact.py: a `ga` artifact whose metadata names another game (nim) is refused for
    tic-tac-toe, in one line naming the game it was trained for."""
    path = tmp_path / "ga.json"
    path.write_text(json.dumps({"format": artifact.FORMAT, "learner": "ga", "version": artifact.VERSION,
                                "game": {"name": "nim", "params": {"heaps": [3]}}}))
    with pytest.raises(BadAgent, match="trained for nim"):
        artifact.load_artifact(path, "ga", make_game("tictactoe"))


def test_default_agents_are_those_that_can_play_the_game():
    """validation/stage.py: with no agents named, validate takes the default agents that can play
    the game: for tic-tac-toe without a store, its own `expert` (the magic-square rules) but not
    `lookup` (it needs one), Nim's `rules` or Quarto's `endgame` (docs/agents.md)."""
    assert stage.default_agents(make_game("tictactoe"), None) == [
        "random", "greedy", "expert", "minimax:depth=2", "minimax:depth=3", "mcts"]


def test_learning_curves_get_a_panel_each():
    """validation/plots.py: the learning curves' figure is 4.2 inches wider for each trained agent
    (a panel each), at the plots' DPI; the tight crop of the saved PNG takes up to an inch of the
    spacing between panels."""
    curves = {"ga": [{"step": 1, "value_kept": 0.4}, {"step": 2, "value_kept": 0.5}],
              "rl": [{"step": 10, "value_kept": 0.3}, {"step": 20, "value_kept": 0.6}]}

    def width(specs):
        png = base64.b64decode(plots.learning_curves({spec: curves[spec] for spec in specs},
                                                     {"ga": "generations", "rl": "episodes"}, {"ga": "ga", "rl": "rl"}))
        return struct.unpack(">I", png[16:20])[0]  # the PNG header's width

    assert 3.2 * plots.DPI <= width(["ga", "rl"]) - width(["ga"]) <= 4.2 * plots.DPI


def test_flushing_a_file_leaves_no_descriptor_open(tmp_path):
    """data/durable.py: each flush opens the file and closes it again: 50 flushes leave this
    process's open descriptors as they were."""
    path = tmp_path / "f"
    path.write_bytes(b"x")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        durable._flush(path)
    assert len(os.listdir("/proc/self/fd")) == before


def test_only_the_trickiest_positions_link_to_the_explorer():
    """validation/report.py: the trickiest positions' first column links each position to the
    explorer (its text URL-quoted); no other table does."""
    head, rows = ["position", "value", "agents"], [["x.o/.../... x", "win", "random"]]
    tricky = report._html_section(report.Section("Trickiest positions", head, rows))
    other = report._html_section(report.Section("Positions", head, rows))
    assert f'<a href="{report.EXPLORER}x.o/.../...%20x">' in tricky
    assert "<a href" not in other


def test_validate_sizes_its_executor_by_the_store(solved, tmp_path, monkeypatch):
    """validation/stage.py: a validation that opens its own executor tells `open_executor` the
    store's positions (a small store then runs in-process): for tic-tac-toe, every index of its
    tiers."""
    import contextlib

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


def test_reading_a_folder_inside_a_store_says_so_and_closes_it(tmp_path):
    """data/durable.py: `read_inside` on a folder raises IsADirectoryError (errno EISDIR), as
    `open` does, and leaves no descriptor open (the mutation pass found its own check of a
    folder unreachable: `os.fdopen` raises first, and then did not close the descriptor)."""
    (tmp_path / "tiers").mkdir()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        with pytest.raises(IsADirectoryError) as raised:
            durable.read_inside(tmp_path, tmp_path / "tiers")
        assert raised.value.errno == errno.EISDIR
    assert len(os.listdir("/proc/self/fd")) == before

def test_a_ctrl_c_while_reading_inside_a_store_stays_a_ctrl_c(tmp_path):
    """data/durable.py: an interrupt landing anywhere in `read_inside` propagates as itself. (CI
    caught a Ctrl-C to a starting solve reported as a damaged plan, "OSError: [Errno 9] Bad file
    descriptor": landing in `os.fdopen` once the file object existed, it made the object close the
    descriptor, and then `read_inside` closed it again.) A timer interrupts about half the reads
    here; the code that double-closed failed about one read in 300."""
    (tmp_path / "zarr.json").write_bytes(b"{}" * 1500)
    armed = False

    def interrupt(signum, frame):  # once a read: never inside the test's own handling
        nonlocal armed
        if armed:
            armed = False
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 5e-5, 5e-5)
    reads = interrupted = 0
    failures = []
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                reads += 1
                armed = True
                assert durable.read_inside(tmp_path, tmp_path / "zarr.json") == b"{}" * 1500
                armed = False
            except KeyboardInterrupt:
                interrupted += 1
            except OSError as exc:
                failures.append(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not failures, f"{len(failures)} of {reads} reads: {failures[0]!r}"
    assert reads > 1000 and interrupted > 100, (reads, interrupted)


def test_the_trickiest_positions_are_at_most_five():
    """validation/quality.py: of seven sampled Nim positions that an agent throws away, the report
    lists the first five (`TRICKIEST`), in the sample's order."""
    game = make_game("nim", {"heaps": [1, 3, 5, 7]})
    selection = quality.Selection(("s8",), np.zeros(7, dtype=np.int64), np.arange(7), np.ones(7), False, {"s8": 46})
    outcome = np.full(7, oc.WIN, dtype=np.int8)
    found = quality.trickiest(game, selection, np.ones(7, dtype=bool), outcome,
                              {"a": np.full(7, oc.LOSS, dtype=np.int8)})
    assert quality.TRICKIEST == 5
    assert [entry["position"] for entry in found] == ["0,0,1,7", "0,0,2,6", "0,0,3,5", "0,0,4,4", "0,0,5,3"]


def test_an_exclusive_publish_onto_an_existing_file_fails_and_cleans_up(tmp_path):
    """data/durable.py: publishing a temporary file onto a name that exists, exclusively, raises
    FileExistsError, leaves the existing file as it was and removes the temporary one."""
    target, partial = tmp_path / "record", tmp_path / "record.x.partial"
    target.write_bytes(b"first")
    partial.write_bytes(b"second")
    with pytest.raises(FileExistsError):
        durable._publish(partial, target, exclusive=True)
    assert target.read_bytes() == b"first" and not partial.exists()


def test_the_given_away_plot_draws_the_counts():
    """validation/plots.py: the remoteness-given-away histogram draws each agent's counts: two
    reports that differ only in the counts give different pictures."""
    def picture(counts):
        return plots.remoteness_histogram({"a": {"remoteness_given_away": counts}}, {"a": "a"})

    assert picture({"0": 5, "2": 1}) != picture({"0": 1, "2": 5})


def test_a_stored_win_at_an_even_remoteness_keeps_the_chunk_whole():
    """data/encoding_kernels.py: a win at remoteness 2 (stored: r >= 2) breaks the parity rule
    (a stored win's r is odd), so the chunk is not halved: half False and s = r, numba encoder
    and numpy encoder alike (docs/STORE.md)."""
    from retrograde.data import encoding, packing
    from retrograde.data.encoding_kernels import encode_packed

    outcome, remoteness = np.array([oc.WIN, oc.LOSS], dtype=np.uint8), np.array([2, 4], dtype=np.uint16)
    packed, s = np.zeros(1, np.uint8), np.empty(2, np.uint16)
    assert encode_packed(outcome, remoteness, packed, s) is False and s.tolist() == [2, 4]
    assert packing.unpack(packed, 2).tolist() == [oc.WIN, oc.LOSS]
    codes, s, half = encoding.encode(outcome, remoteness)
    assert half is False and s.tolist() == [2, 4]


def test_a_tablebase_holds_every_chunk_of_its_tiers(solved):
    """data/tablebase.py: a search's tablebase copies each tier chunk by chunk into its buffers:
    with tic-tac-toe cut in chunks of 64, every tier's outcomes and remoteness read from the
    buffers (at the tier's start) are the store's."""
    from retrograde.data import packing
    from retrograde.data.tablebase import StoreTablebase

    store = Store.open(solved("tictactoe", chunk_size=64))
    try:
        names = [tier.name for tier in store.plan.tiers]
        assert max(store.plan.chunking(name).count for name in names) >= 5
        tablebase = StoreTablebase(store, {name: k for k, name in enumerate(names)}, len(names))
        tablebase.require(names)
        packed, remoteness, start = tablebase.arrays()
        for k, name in enumerate(names):
            outcome, values = store.read_tier(name)
            base = int(start[k])
            assert np.array_equal(packing.unpack(packed[base // 4:], outcome.size), outcome), name
            assert np.array_equal(remoteness[base:base + values.size], values), name
    finally:
        store.close()


def test_a_chunk_write_of_a_superseded_attempt_is_refused(solved, tmp_path):
    """data/store.py: a task writes for its driver's attempt; once a newer solve has begun its own
    attempt, the old task's next chunk write raises Superseded and writes nothing."""
    import shutil

    from retrograde.data import packing
    from retrograde.errors import Superseded

    path = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", {"heaps": [1, 3, 5, 7]}), path)
    with Store.open(path, mode="r+") as driver:
        attempt = driver.begin_attempt()
    task = Store.open(path, mode="r+", attempt=attempt)
    try:
        name = task.plan.tiers[-1].name
        files = sorted((path / "tiers" / name).rglob("c/*"))
        before = [file.read_bytes() for file in files]
        packed, remoteness = task.read_chunk_raw(name, 0)
        outcome = packing.unpack(packed, remoteness.size)
        with Store.open(path, mode="r+") as newer:
            newer.begin_attempt()
        with pytest.raises(Superseded):
            task.write_chunk(name, 0, outcome, remoteness)
        assert [file.read_bytes() for file in files] == before
    finally:
        task.close()


def test_a_tier_smaller_than_a_chunk_is_one_chunk_of_a_multiple_of_4():
    """data/plan.py: a tier smaller than the chunk size is one chunk of its size rounded up to a
    multiple of 4 (a packed byte holds 4 outcomes): Nim 1,3,5,7's tiers s0 and s16 hold one
    position each, in a chunk of 4 (docs/STORE.md)."""
    from retrograde.data.plan import make_plan

    plan = make_plan(make_game("nim", {"heaps": [1, 3, 5, 7]}))
    assert [plan.chunking(name).chunk_size for name in ("s0", "s16")] == [4, 4]


def test_the_seeds_summary_counts_each_verdict():
    """validation/seeds.py: the summary line counts the rows of each verdict."""
    from retrograde.validation import seeds

    rows = [{"verdict": "reproduced"}, {"verdict": "not run"}, {"verdict": "reproduced"}]
    assert seeds.summary(rows) == "3 published figures: 2 reproduced, 0 not reproduced, 1 not run"


def test_read_values_takes_any_sequence_of_indices(solved):
    """data/store.py: `read_values` reads indices given as a list (or any integer array) as it
    reads them given as int64: the same outcomes and remoteness."""
    store = Store.open(solved("tictactoe"))
    try:
        name = max(store.plan.tiers, key=lambda tier: tier.size).name
        wanted = [0, 3, 7]
        expected = store.read_values(name, np.array(wanted, dtype=np.int64))
        for given in (wanted, np.array(wanted, dtype=np.int32)):
            found = store.read_values(name, given)
            assert all(np.array_equal(a, b) for a, b in zip(found, expected))
    finally:
        store.close()


def _drawn(draw, monkeypatch):
    """The matplotlib figure a `plots` function draws (its PNG left unmade)."""
    figures = []
    monkeypatch.setattr(plots, "to_png", lambda figure: figures.append(figure) or "png")
    draw()
    return figures[0]


def test_the_blunder_plot_draws_each_agent_per_tier_group(monkeypatch):
    """validation/plots.py: one line an agent, its blunder rate (1 - value kept) at each tier
    group, every one of the 10 groups labelled on the x axis, which is named after the groups."""
    tiers = [f"t{i}" for i in range(10)]
    report = {"tiers": tiers, "agents": {"a": {"by_tier": {t: {"positions": 1, "value_kept": i / 10}
                                                           for i, t in enumerate(tiers)}}}}
    axes = _drawn(lambda: plots.blunder_rate_by_tier(report, {"a": "a"}), monkeypatch).axes[0]
    assert len(axes.lines) == 1
    assert axes.lines[0].get_ydata() == pytest.approx([1 - i / 10 for i in range(10)])
    assert [label.get_text() for label in axes.get_xticklabels()] == tiers
    assert axes.get_xlabel() == "tier"


def test_metadata_of_an_npz_holding_pickles_is_refused(tmp_path):
    """data/artifact.py: an .npz whose `metadata` member is a pickled object array is refused
    (ValueError) and never unpickled: a crafted artifact runs no code."""
    path = tmp_path / "crafted.npz"
    np.savez(path, metadata=np.array(['{"format": "retrograde-training"}'], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        artifact.read_metadata(path)


def test_a_spec_of_an_agent_no_game_knows_is_not_the_reports_agent():
    """validation/published.py: a report's agent and a spec of the same name that is no agent of
    ours (its options cannot be known) do not match."""
    from retrograde.games.hooks import AgentRef
    from retrograde.validation import published

    assert published.matches(AgentRef("theirs", "nosuchagent"), "nosuchagent", make_game("tictactoe")) is False


def test_encoding_differs_finds_the_indices_not_canonically_encoded():
    """data/encoding.py: a win in 3, a loss in 2 and a draw are stored as codes W, L, D and half
    s 0, 0, 0 (docs/STORE.md); against those arrays nothing differs, a changed s differs at its
    index, and a wrong half flag at every index."""
    from retrograde.data import encoding, packing

    outcome, remoteness = np.array([oc.WIN, oc.LOSS, oc.DRAW], np.uint8), np.array([3, 2, 0], np.uint16)
    codes = packing.pack(np.array([oc.WIN, oc.LOSS, oc.DRAW], np.uint8))
    s, half = np.zeros(3, np.uint16), np.array([1], np.uint8)
    assert encoding.differs((codes, s, half), outcome, remoteness).tolist() == [False, False, False]
    changed = s.copy()
    changed[1] = 1
    assert encoding.differs((codes, changed, half), outcome, remoteness).tolist() == [False, True, False]
    assert encoding.differs((codes, s, np.array([0], np.uint8)), outcome, remoteness).tolist() == [True] * 3


def test_the_trained_finding_names_who_beats_the_best_baseline():
    """validation/summary.py: with two trained agents (ga keeps 80% of values, rl 50%) against
    greedy (60%, the best imperfect baseline) and random (30%, the floor), the finding says ga
    is above the best baseline, with each figure and rating."""
    from retrograde.validation import summary

    kept = {"ga": 0.8, "rl": 0.5, "greedy": 0.6, "random": 0.3}
    elo = {"ga": 120.0, "rl": -10.0, "greedy": 40.0, "random": -150.0}
    report = {"agents": {spec: {"move_quality": {"value_kept": v}} for spec, v in kept.items()},
              "training": {"ga": {}, "rl": {}},
              "ratings": {"agents": {spec: {"elo": e} for spec, e in elo.items()}}}
    assert summary._trained(report, {spec: spec for spec in kept}) == (
        "Trained agents (value kept, rating): ga 80.0%, +120; rl 50.0%, -10: ga above the best baseline "
        "(best baseline greedy 60.0%, +40; floor random 30.0%, -150).")


def test_the_given_away_bars_share_each_step_between_the_agents(monkeypatch):
    """validation/plots.py: two agents' bars are 0.4 wide each (0.8 of a step shared), side by
    side about each step."""
    agents = {"a": {"remoteness_given_away": {"0": 3, "1": 1}}, "b": {"remoteness_given_away": {"0": 1, "1": 1}}}
    axes = _drawn(lambda: plots.remoteness_histogram(agents, {"a": "a", "b": "b"}), monkeypatch).axes[0]
    assert [round(bar.get_width(), 6) for bar in axes.patches] == [0.4] * 4
    assert [round(bar.get_x(), 6) for bar in axes.patches] == [-0.4, 0.6, 0.0, 1.0]


def test_a_tablebase_loads_each_tier_once(solved):
    """data/tablebase.py: asking twice for a tier already held (the first, at buffer start 0)
    loads nothing more: the buffers hold its positions once."""
    from retrograde.data.tablebase import StoreTablebase

    store = Store.open(solved("tictactoe"))
    try:
        name = max(store.plan.tiers, key=lambda tier: tier.size).name
        tablebase = StoreTablebase(store, {name: 0}, 1)
        tablebase.require([name])
        tablebase.require([name])
        assert tablebase.held == -(-store.plan.tier(name).size // 4) * 4
    finally:
        store.close()


def test_validate_makes_the_report_folder_and_its_parents(solved, tmp_path, monkeypatch):
    """validation/stage.py: `--out a/b/report` makes a and b too (the lock goes beside the report)."""
    monkeypatch.setattr(stage, "open_executor", lambda **options: contextlib.nullcontext(InProcessExecutor()))
    stage.validate(solved("tictactoe"), tmp_path / "a" / "b" / "report", "random", games=2, positions=20, quiet=True)
    assert (tmp_path / "a" / "b" / "report" / "report.json").is_file()


def test_a_plan_without_one_of_its_keys_names_it(solved, tmp_path):
    """data/store.py: a store whose plan lacks a key (here `encoding`) is damaged, and the one line
    names the key."""
    import json as json_module
    import shutil

    from retrograde.errors import DamagedStore

    path = tmp_path / "ttt.zarr"
    shutil.copytree(solved("tictactoe"), path)
    document = json_module.loads((path / "zarr.json").read_text())
    del document["attributes"]["retrograde"]["plan"]["encoding"]
    (path / "zarr.json").write_text(json_module.dumps(document))
    with pytest.raises(DamagedStore, match="KeyError: 'encoding'"):
        Store.open(path)


def test_a_match_may_cap_its_games_at_one_ply():
    """validation/tournament.py: `--max-plies 1` is the least cap a match takes (0 is refused)."""
    game = make_game("tictactoe")
    assert tournament._check_match("random", "random", game, games=1, seed=0, store=None, max_plies=1) == 1
    with pytest.raises(BadOption, match="--max-plies 0"):
        tournament._check_match("random", "random", game, games=1, seed=0, store=None, max_plies=0)
