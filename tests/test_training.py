"""The ga and rl agents and the resumable training stage (`retrograde train`).

Kernels and players are checked against slow references written here from the rules
(`game.moves`, `game.primitive`, `game.lines`) and against exact values (a negamax over
tic-tac-toe and Nim written here, solved stores); training is checked for same-seed bytes and
for a rerun after Ctrl-C and kill -9 giving the bytes of an uninterrupted run.
"""

from __future__ import annotations

import json
import signal
import time
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from processes import assert_one_error_line, kill_group, log_paths, run, start
from retrograde import outcome as oc
from retrograde.agents import build_agent, resolve_agent
from retrograde.games.quixo.features import QuixoFeatures
from retrograde.agents.ga import GenomeAgent
from retrograde.errors import BadAgent, BadOption
from retrograde.games import make_game
from retrograde.training import train
from retrograde.training.measure import ValueKeptSample
from retrograde.training.resumable import learner_for
from retrograde.data.store import Store

NIM = {"heaps": [1, 2, 3]}


# --- references ------------------------------------------------------------------------------
def reference_features(game, child) -> list[float]:
    """The features of a Quixo board after a move, from the mover's view, straight from the docs."""
    cells, to_move = child
    me = "o" if to_move == "x" else "x"
    n = game.size
    own = {i for i, c in enumerate(cells) if c == me}
    opp = {i for i, c in enumerate(cells) if c == to_move}
    lines = [set(line) for line in game.lines]
    own_counts, opp_counts = [len(own & line) for line in lines], [len(opp & line) for line in lines]
    features = [max(own_counts) / n, max(opp_counts) / n]
    for k in range(2, n):
        features += [own_counts.count(k) / len(lines), opp_counts.count(k) / len(lines)]
    border = {i for i in range(n * n) if game.destinations(i)}
    centre, corners = set(range(n * n)) - border, {0, n - 1, n * n - n, n * n - 1}
    inner = max(1, (n - 2) ** 2)
    all_moves = sum(len(game.destinations(i)) for i in border)
    features += [len(own & centre) / inner, len(opp & centre) / inner, len(own & corners) / 4,
                 len(opp & corners) / 4, len(own & border) / len(border), len(border - own - opp) / len(border),
                 len(opp & border) / len(border),
                 sum(len(game.destinations(i)) for i in border - opp) / all_moves,
                 sum(len(game.destinations(i)) for i in border - own) / all_moves]
    return features


def immediate(game, child) -> int:
    """+1 if the move won at once, -1 if it lost at once (the opponent's line), else 0."""
    return {oc.LOSS: 1, oc.WIN: -1, 0: 0}[game.primitive(child)]


def quixo_positions(game, count: int, seed: int) -> list:
    """Non-terminal positions met in seeded random playouts (with 'o' to move as often as 'x')."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        position = game.initial_position
        for _ in range(60):
            moves = game.moves(position)
            if not moves:
                break
            found.append(position)
            position = moves[rng.integers(len(moves))][1]
    return found[:count]


@lru_cache(maxsize=None)
def negamax(game, position) -> int:
    """Exact value (+1 win, 0 draw, -1 loss) for the side to move of an acyclic game."""
    ended = game.primitive(position)
    if ended:
        return {oc.WIN: 1, oc.DRAW: 0, oc.LOSS: -1}[ended]
    return max(-negamax(game, child) for _, child in game.moves(position))


# --- features and the ga player ---------------------------------------------------------------
@pytest.mark.parametrize("size", [3, 4, 5])
def test_feature_kernel_matches_the_reference_for_every_move(size):
    game = make_game("quixo", {"size": size})
    describe = QuixoFeatures(game)
    for position in quixo_positions(game, 40, seed=size):
        moves, features, exact = describe(position)
        children = [child for _, child in game.moves(position)]
        assert moves == game.moves(position) and len(features) == len(children)
        np.testing.assert_allclose(features, [reference_features(game, child) for child in children], atol=1e-12)
        assert np.nan_to_num(exact).tolist() == [immediate(game, child) for child in children]


def test_quixo_ga_player_wins_now_avoids_losing_and_else_maximises_the_weighted_features():
    game = make_game("quixo", {"size": 4})
    weights = np.random.default_rng(7).uniform(-1, 1, len(QuixoFeatures(game).names))
    agent = GenomeAgent(game, seed=1, weights=weights)
    seen = {"win": 0, "avoid": 0}
    for position in quixo_positions(game, 300, seed=11):
        _, chosen = agent.choose(position)
        children = [child for _, child in game.moves(position)]
        results = [immediate(game, child) for child in children]
        if 1 in results:
            assert immediate(game, chosen) == 1
            seen["win"] += 1
            continue
        safe = [child for child, result in zip(children, results) if result == 0] or children
        seen["avoid"] += len(safe) < len(children)
        scores = [float(np.dot(reference_features(game, child), weights)) for child in safe]
        assert chosen in safe
        assert np.dot(reference_features(game, chosen), weights) == pytest.approx(max(scores), abs=1e-9)
    assert seen["win"] and seen["avoid"], seen  # both rules were exercised


@pytest.mark.parametrize("genome, check", [
    ([0, 1, 0, 0, 0, 1], lambda heaps, after: after == tuple(sorted(heaps)[:-1]) + (1,) or 1 in after),
    ([1, 0, 0, 1, 0, 0], lambda heaps, after: (sum(heaps) - sum(after)) % 2 == 1),
    ([1, 0, 0, 0, 1, 0], lambda heaps, after: sum(heaps) - sum(after) in (1, 2, 3, 5, 7)),
])
def test_nim_rule_genome_plays_its_rules(genome, check):
    game = make_game("nim", {"heaps": [2, 4, 7]})
    agent = GenomeAgent(game, seed=3, weights=genome)
    for heaps in [(2, 4, 7), (1, 1, 7), (0, 4, 6), (2, 3, 0)]:
        for _ in range(20):
            move, after = agent.choose(heaps)
            assert (move, after) in game.moves(heaps)
            assert check(heaps, after), (genome, heaps, after)


def test_fattest_heap_leave_one_is_seed_001s_best_genome_in_action():
    game = make_game("nim", {"heaps": [1, 3, 5, 7], "misere": True})
    agent = GenomeAgent(game, seed=0, weights=[0, 1, 0, 0, 0, 1])
    assert agent.choose((1, 3, 5, 7)) == ("4-6", (1, 3, 5, 1))
    bounded = make_game("nim", {"heaps": [1, 3, 5, 7], "max_take": 2})
    assert GenomeAgent(bounded, seed=0, weights=[0, 1, 0, 0, 0, 1]).choose((1, 3, 5, 7)) == ("4-2", (1, 3, 5, 5))


# --- the learning curve -----------------------------------------------------------------------
def test_value_kept_sample_keeps_exactly_the_moves_negamax_says_keep_the_value(open_solved):
    game = make_game("tictactoe")
    sample = ValueKeptSample(open_solved("tictactoe"), game, seed=4, size=300)
    assert len(sample.positions) == 300
    for position, keep in zip(sample.positions, sample.keep):
        value = negamax(game, position)
        assert keep == {move for move, child in game.moves(position) if -negamax(game, child) == value}
    lookup = build_agent("lookup", game, seed=0, store=open_solved("tictactoe"))
    assert sample.value_kept(lookup) == 1.0
    random = build_agent("random", game, seed=0)
    expected = np.mean([len(keep) / len(game.moves(p)) for p, keep in zip(sample.positions, sample.keep)])
    assert abs(sample.value_kept(random) - expected) < 0.08  # random keeps the value about that often


def test_glie_epsilon_reaches_the_final_rate_at_ninety_percent_of_each_phase():
    game = make_game("nim", NIM)
    learner = learner_for("rl:episodes=1000,opponent=(random;self,expert)", game)
    rates = [learner.phases.epsilon(k) for k in range(1000)]
    for first in (0, 500):  # each phase is a training of its own (seed 001's retraining steps)
        phase = rates[first:first + 500]
        assert phase[0] == 1.0 and phase[450] == pytest.approx(0.1)
        assert all(a > b for a, b in zip(phase[:450], phase[1:451]))
        assert set(phase[450:]) == {0.1}


def test_tabular_q_learning_finds_the_exact_value_of_every_move(tmp_path, solved):
    game = make_game("nim", NIM)
    out = train("rl:episodes=3000,alpha=1,gamma=1,epsilon=0.5", game, tmp_path / "nim.npz", seed=2,
                store=solved("nim", NIM))
    with np.load(out, allow_pickle=False) as data:
        q, metadata = data["q"], json.loads(str(data["metadata"]))
    offsets = np.cumsum([0] + [tier.size for tier in game.tiers()])
    names = [tier.name for tier in game.tiers()]
    checked = 0
    for heaps in np.ndindex(*(h + 1 for h in NIM["heaps"])):
        moves = game.moves(heaps)
        if not moves:
            continue
        tier, index = game.locate(heaps)
        row = offsets[names.index(tier)] + index
        assert [float(v) for v in q[row, :len(moves)]] == [-negamax(game, child) for _, child in moves]
        checked += 1
    assert checked == 23
    assert metadata["learning_curve"][-1]["value_kept"] == 1.0
    assert metadata["game"] == {"name": "nim", "params": {"heaps": [1, 2, 3], "max_take": None, "misere": False}}


def test_rl_agent_plays_the_highest_q_of_its_artifact(tmp_path):
    game = make_game("tictactoe")
    out = train("rl:episodes=300", game, tmp_path / "t.npz", seed=1)
    with np.load(out, allow_pickle=False) as data:
        q = data["q"]
    agent = build_agent(f"rl:params={out}", game, seed=5)
    offsets = {tier.name: sum(t.size for t in game.tiers()[:i]) for i, tier in enumerate(game.tiers())}
    position = game.initial_position
    while game.moves(position):
        moves = game.moves(position)
        tier, index = game.locate(position)
        values = q[offsets[tier] + index, :len(moves)]
        move, position = agent.choose(position)
        assert values[[m for m, _ in moves].index(move)] == values.max()


def test_rl_tables_span_the_whole_game_whatever_part_of_it_an_instance_holds(tmp_path):
    """--down-to says how much of Quixo a store holds, not how it is played: rl trains on such an
    instance (play from the start meets every tier), learns what it learns on the whole game, and
    an artifact of either plays the other."""
    whole, part = "quixo --size 3", "quixo --size 3 --down-to 7"
    for name, game in (("whole.npz", whole), ("part.npz", part)):
        result = run_cli("train", "rl:episodes=10", "--game", game, "--out", name, "--seed", "1", cwd=tmp_path)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    with np.load(tmp_path / "whole.npz") as trained_whole, np.load(tmp_path / "part.npz") as trained_part:
        np.testing.assert_array_equal(trained_whole["q"], trained_part["q"])
    for name, game in (("whole.npz", part), ("part.npz", whole)):
        result = run_cli("match", f"rl:params={name}", "random", "--game", game, "--games", "2", cwd=tmp_path)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        assert f"rl:params={name} (first) vs random" in result.stdout


def test_linear_rl_and_ga_train_on_4x4_quixo_and_their_agents_play(tmp_path):
    game = make_game("quixo", {"size": 4})
    rl = train("rl:episodes=20,opponent=random", game, tmp_path / "q.npz", seed=1)
    ga = train("ga:population=3,offspring=3,generations=2,games=2", game, tmp_path / "q.json", seed=1)
    with np.load(rl, allow_pickle=False) as data:
        assert data["weights"].shape == (len(QuixoFeatures(game).names) + 1,)
        assert json.loads(str(data["metadata"]))["model"] == "linear"
    for spec in (f"rl:params={rl}", f"ga:params={ga}"):
        agent = build_agent(spec, game, seed=0)
        position = game.initial_position
        for _ in range(10):
            assert agent.choose(position) in game.moves(position)


def test_ga_fitness_from_the_store_tells_genomes_apart(solved, tmp_path):
    """Given a store, fitness is the exact share of a sample where a genome keeps the value (not
    a win share against random, which every 3x3 genome saturates); without one it is refused."""
    game = make_game("quixo", {"size": 3})
    with Store.open(solved("quixo", {"size": 3})) as store:
        learner = learner_for("ga:population=8,sample=300", game, store=store, seed=2)
        assert learner.settings["fitness"] == "exact"
        learner.start(np.random.default_rng(2))
        assert len(set(learner.fitness.tolist())) > 1 and all(0 < f < 1 for f in learner.fitness)
        matches = learner_for("ga:population=8,games=4,fitness=matches", game, store=store, seed=2)
        assert matches.sample is None
        out = train("ga:population=4,offspring=4,generations=2,sample=100", game, tmp_path / "g.json", seed=2,
                    store=store)
    document = json.loads(out.read_text())
    assert document["settings"]["fitness"] == "exact" and 0 < document["fitness"] <= 1
    with pytest.raises(BadAgent, match="fitness=exact measures genomes on a solved store: give --store"):
        train("ga:fitness=exact", "nim --heaps 1,3,5", tmp_path / "n.json", seed=1)
    assert not (tmp_path / "n.json").exists()


# --- artifacts: determinism and refusals ----------------------------------------------------
@pytest.mark.parametrize("spec, game, name", [
    ("ga:population=4,offspring=4,generations=3,games=4", "nim --heaps 1,3,5 --misere", "a.json"),
    ("rl:episodes=400,every=150", "tictactoe", "a.npz"),
    ("rl:preset=002,episodes=60,every=25", "quarto", "s.npz"),
])
def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path, spec, game, name):
    for folder in "123":
        (tmp_path / folder).mkdir()
    first = train(spec, game, tmp_path / "1" / name, seed=9)
    second = train(spec, game, tmp_path / "2" / name, seed=9)
    other = train(spec, game, tmp_path / "3" / name, seed=10)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    assert sorted(p.name for p in first.parent.iterdir()) == [name]  # no checkpoint left behind


def test_agents_refuse_missing_corrupt_and_foreign_artifacts(tmp_path):
    nim, ttt = make_game("nim", NIM), make_game("tictactoe")
    with pytest.raises(BadAgent, match=r"^ga needs params=FILE \(train one with retrograde train ga"):
        build_agent("ga", nim, seed=0)
    with pytest.raises(BadAgent, match=r"^rl needs params=FILE"):
        build_agent("rl", nim, seed=0)
    q = train("rl:episodes=10", ttt, tmp_path / "t.npz", seed=0)
    g = train("ga:population=2,offspring=2,generations=1,games=2", nim, tmp_path / "n.json", seed=0)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip")
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(q.read_bytes()[:200])
    cases = [(f"rl:params={q}", nim, "trained for tictactoe"), (f"ga:params={g}", make_game("nim", {"heaps": [4]}),
             "trained for nim"), (f"rl:params={garbage}", ttt, "not a rl artifact"),
             (f"rl:params={truncated}", ttt, "not a rl artifact"), (f"ga:params={q}", nim, "not a ga artifact"),
             (f"ga:params={g}", ttt, "cannot play tictactoe")]
    for spec, game, words in cases:
        with pytest.raises(BadAgent) as error:
            build_agent(spec, game, seed=0)
        assert words in str(error.value) and "\n" not in str(error.value), (spec, str(error.value))


def test_bad_training_input_is_one_line_and_writes_nothing(tmp_path, solved):
    (tmp_path / "a-file").write_text("")
    cases = [
        (["xx", "--game", "tictactoe", "--out", "o.npz"], "unknown learner 'xx'"),
        (["rl:speed=3", "--game", "tictactoe", "--out", "o.npz"], "has no option 'speed'"),
        (["rl", "--game", "tictactoe", "--out", "o.npz", "--store", str(solved("nim", NIM))], "holds nim"),
        (["rl", "--game", "tictactoe", "--out", "a-file/o.npz"], "no folder"),
    ]
    for args, words in cases:
        result = run_cli("train", *args, "--seed", "1", cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert_one_error_line(result.stderr, words)
    in_python = [("rl:alpha=2", "tictactoe", "o.npz", "alpha=2"), ("rl:opponent=nobody", "tictactoe", "o.npz",
                 "unknown agent 'nobody'"), ("rl", "tictactoe", "o.json", "a rl artifact is a .npz file"),
                 ("ga", "chess", "o.json", "unknown game 'chess'"), ("ga", "tictactoe", "o.json", "cannot learn")]
    for spec, game, out, words in in_python:
        with pytest.raises((BadAgent, BadOption), match=words):
            train(spec, game, tmp_path / out, seed=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


# --- resuming ----------------------------------------------------------------------------------
def _wait_for_checkpoint(folder: Path, proc, timeout: float = 60) -> int:
    """Units done in the first checkpoint the run writes (polls until one is there)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with np.load(folder / "checkpoint.npz", allow_pickle=False) as data:
                return json.loads(str(data["metadata"]))["done"]
        except (OSError, ValueError, zipfile.BadZipFile, KeyError):
            time.sleep(0.02)
    raise AssertionError(f"no checkpoint in {folder} (exit status {proc.poll()})")


@pytest.mark.parametrize("spec, other, differing, total", [
    ("rl:episodes=4000,every=200", "rl:episodes=4000,every=200,alpha=0.2", "alpha", 4000),
    ("dqn:episodes=3000,every=100,hidden=32,opponents=random", "dqn:episodes=3000,every=100,hidden=33,opponents=random",
     "hidden", 3000),  # the network, its target, Adam's state and the replay memory resume too
])
def test_ctrl_c_and_kill_9_then_rerun_give_the_bytes_of_an_uninterrupted_run(tmp_path, spec, other, differing, total):
    seed = "5"
    reference = train(spec, "tictactoe", tmp_path / "reference.npz", seed=int(seed))
    out = tmp_path / "run" / "q.npz"
    out.parent.mkdir()
    args = ["train", spec, "--game", "tictactoe", "--out", str(out), "--seed", seed]
    logs = tmp_path / "logs"
    for how in (signal.SIGINT, signal.SIGKILL):
        out_log, err_log = log_paths(logs)
        with open(out_log, "wb") as stdout, open(err_log, "wb") as stderr:
            proc = start(args, stdout=stdout, stderr=stderr)
        try:
            done = _wait_for_checkpoint(out.with_name("q.npz.partial"), proc)
            if how == signal.SIGINT:
                proc.send_signal(signal.SIGINT)
                assert proc.wait(timeout=30) == 130
                assert_one_error_line(err_log.read_text().splitlines()[-1], "interrupted",
                                      "rerun the same command to resume")
            else:
                kill_group(proc)
        finally:
            kill_group(proc)
        assert 0 < done < total and not out.exists(), done
    # the partial run refuses other settings and is left as it was
    checkpoint = out.with_name("q.npz.partial") / "checkpoint.npz"
    before = checkpoint.read_bytes()
    refused = run(["train", other, *args[2:]])
    assert refused.returncode == 2
    assert_one_error_line(refused.stderr, "other settings", differing)
    assert checkpoint.read_bytes() == before
    final = run(args, logs)
    assert final.returncode == 0, final.stderr
    assert "resuming" in final.stderr
    assert out.read_bytes() == reference.read_bytes()
    assert sorted(p.name for p in out.parent.iterdir()) == ["q.npz"]
    again = run(args)  # a finished run is not trained again
    assert again.returncode == 0 and "already trained" in again.stderr
    assert out.read_bytes() == reference.read_bytes()


def test_train_refuses_an_unreadable_checkpoint_and_a_folder_as_out(tmp_path):
    out = tmp_path / "n.npz"
    partial = tmp_path / "n.npz.partial"
    partial.mkdir()
    (partial / "checkpoint.npz").write_bytes(b"junk")
    with pytest.raises(Exception, match="unreadable checkpoint"):
        train("rl:episodes=10", make_game("nim", NIM), out, seed=0)
    (tmp_path / "folder.npz").mkdir()
    with pytest.raises(BadOption, match="is a folder"):
        train("rl:episodes=10", "tictactoe", tmp_path / "folder.npz", seed=0)


def test_a_second_run_writing_the_same_artifact_is_refused(tmp_path):
    """One writer per artifact: while a run holds it, another refuses naming the holder and
    writes nothing (neither the artifact nor its checkpoint folder)."""
    from retrograde.data.lock import writer_lock
    from retrograde.errors import StoreError

    out = tmp_path / "t.npz"
    with writer_lock(out, "training artifact"):
        with pytest.raises(StoreError, match=r"training artifact .* is being written by another run \(pid \d+ on "):
            train("rl:episodes=10", make_game("tictactoe"), out, seed=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert train("rl:episodes=10", make_game("tictactoe"), out, seed=0) == out


# --- the reports' training settings (presets), phases and rewards -------------------------------
def test_a_learner_preset_trains_as_the_report_did_and_given_options_win():
    settings = learner_for("rl:preset=001,episodes=10", make_game("tictactoe")).settings
    assert settings["rewards"] == "10/-10/3" and settings["opponent"] == "random;random,copy,expert;copy,expert"
    assert settings["episodes"] == 10 and settings["first"] == "random" and settings["preset"] == "001"
    dqn = learner_for("dqn:preset=001", make_game("quixo", {"size": 4})).settings
    assert dqn["episodes"] == 300_000 and dqn["hidden"] == 256
    assert dqn["opponents"].split(";")[2] == "minimax:depth=2,eval=cmax,ties=first"
    assert "preset" not in learner_for("rl", make_game("tictactoe")).settings  # no preset: settings as before


def test_rewards_and_opponent_phases_of_the_rl_learner(tmp_path):
    ttt = make_game("tictactoe")
    out = train("rl:episodes=200,opponent=(random;copy,expert),rewards=10/-10/3,first=random", ttt,
                tmp_path / "t.npz", seed=1)
    settings = json.loads(str(np.load(out)["metadata"]))["settings"]
    assert settings["opponent"] == "random;copy,expert" and settings["rewards"] == "10/-10/3"
    q = np.load(out)["q"]
    assert q.max() > 1.5  # a win worth 10 shows in the table (with +1 rewards Q never exceeds 1)
    bad = [("rl:rewards=1/2", "three numbers"), ("rl:rewards=-1/1/0", "more than a loss"),
           ("rl:opponent=(random;;expert)", "an empty phase"), ("rl:preset=009", "has no preset '009' for tictactoe"),
           ("ga:preset=001", "trains no course report's way here")]
    for spec, words in bad:
        with pytest.raises(BadAgent, match=words):
            learner_for(spec, ttt)
    with pytest.raises(BadAgent, match="other rewards need a Q table"):
        learner_for("rl:rewards=10/-10/3", make_game("quixo", {"size": 4}))
    result = run_cli("train", "rl:preset=009", "--game", "tictactoe", "--out", "o.npz", cwd=tmp_path)
    assert result.returncode == 2
    assert_one_error_line(result.stderr, "learner 'rl' has no preset '009' for tictactoe: presets: 001")


def test_the_reports_nim_genomes_train_and_their_artifacts_play_the_reports_players(tmp_path):
    nim = make_game("nim", {"heaps": [1, 3, 5, 7]})
    formula = train("ga:preset=003,generations=2", nim, tmp_path / "f.json", seed=2)
    document = json.loads(formula.read_text())
    assert document["genome"]["kind"] == "nim-003-formula" and len(document["genome"]["weights"]) == 11
    genes = ",".join(str(gene) for gene in document["genome"]["weights"])
    ours, theirs = build_agent(f"ga:params={formula}", nim, seed=0), build_agent(f"ga:preset=003,genome=({genes})",
                                                                                 nim, seed=0)
    for position in _nim_positions(nim):
        assert ours.choose(position) == theirs.choose(position)
    probability = train("ga:preset=000,generations=1,offspring=4,population=4,games=4", nim, tmp_path / "p.json",
                        seed=2)
    assert json.loads(probability.read_text())["genome"]["kind"] == "nim-000-probability"
    always, never = (GenomeAgent(nim, seed=1, weights=[p], genome=nim.course.genomes["000"](nim)) for p in (1.0, 0.0))
    for position in _nim_positions(nim):
        heaps_after_all = always.choose(position)[1]
        emptied = [i for i, (a, b) in enumerate(zip(position, heaps_after_all)) if a != b]
        assert len(emptied) == 1 and heaps_after_all[emptied[0]] == 0  # p = 1: a row emptied
        after = never.choose(position)[1]
        (row,) = [i for i, (a, b) in enumerate(zip(position, after)) if a != b]
        assert after[row] == (1 if position[row] > 1 else 0)  # p = 0: one object left (none of one)


def _nim_positions(game) -> list:
    """Every non-terminal position of a small Nim instance, reached from its start."""
    seen, frontier = {game.initial_position}, [game.initial_position]
    while frontier:
        position = frontier.pop()
        for _, child in game.moves(position):
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return sorted(position for position in seen if not game.primitive(position))


def test_ga_operators_of_the_reports(tmp_path):
    nim = make_game("nim", {"heaps": [1, 3, 5, 7]})
    rng = np.random.default_rng(4)
    mean = learner_for("ga:crossover=mean,mutation=0,selection=tournament-plus,tournament=2", nim, seed=1)
    flip = learner_for("ga:mutant=1,mutant_kind=flip,mutation=0", nim, seed=1)
    for learner in (mean, flip):
        learner.population = rng.uniform(0, 1, (6, len(learner.names)))
        learner.fitness = rng.uniform(0, 1, 6)
    low, high = mean.population.min(axis=0), mean.population.max(axis=0)
    for _ in range(50):
        child = mean._child(rng)  # the mean of two parents lies between the population's extremes
        assert np.all(child >= low) and np.all(child <= high)
        assert any(np.allclose(child, (a + b) / 2) for a in mean.population for b in mean.population)
        mutant = flip._child(rng)  # one gene g of a parent became 1 - g
        assert any(np.sum(~np.isclose(mutant, parent)) == 1 and
                   np.allclose(mutant[~np.isclose(mutant, parent)], 1 - parent[~np.isclose(mutant, parent)])
                   for parent in flip.population)


def test_a_rising_schedule_meets_the_last_opponent_more_and_more():
    nim = make_game("nim", {"heaps": [1, 3, 5, 7], "misere": True})
    learner = learner_for("ga:preset=001,games=400,generations=10", nim, seed=1)
    learner.opponents = [resolve_agent(spec, nim) for spec in ("random", "expert")]  # expert wins every match it can from the start
    rng = np.random.default_rng(0)
    genome = np.full(len(learner.names), 0.5)
    early, late = learner._fitness(genome, rng, 0), learner._fitness(genome, rng, 10)
    assert early > 0.3 and late < early  # at the first generation only random, at the last only expert


def test_a_sparse_q_table_keeps_the_positions_met_and_plays_them_greedily(tmp_path):
    """Seed 002's dictionary of states: the artifact holds a row per position met (by its notation);
    at such a position the agent plays the move of highest Q, elsewhere a random one."""
    quarto = make_game("quarto")
    out = train("rl:preset=002,episodes=300", quarto, tmp_path / "s.npz", seed=3)
    with np.load(out, allow_pickle=False) as data:
        keys, q = list(data["keys"]), data["q"]
        assert json.loads(str(data["metadata"]))["settings"]["model"] == "sparse"
    assert len(keys) == len(set(keys)) == len(q) > 300 and q.shape[1] == 16
    agent = build_agent(f"rl:params={out}", quarto, seed=0)
    features = quarto.features.with_genome(np.array([0.1, 0.3]))
    checked = 0
    for key, row in zip(keys, q):
        position = quarto.parse(key)
        moves = features(position, np.random.default_rng(0))[0]
        values = row[:len(moves)]
        if len(moves) > 1 and np.sum(values == values.max()) == 1:
            cell = agent.choose(position)[0].split(":")[0]
            assert cell == moves[int(np.argmax(values))][0].split(":")[0]
            checked += 1
    assert checked > 20
    unseen = quarto.parse("a.../..../..../.... 1")
    assert quarto.format(unseen) not in keys
    cells = {build_agent(f"rl:params={out}", quarto, seed=seed).choose(unseen)[0].split(":")[0] for seed in range(40)}
    assert len(cells) > 5  # a position never met: a random placement
