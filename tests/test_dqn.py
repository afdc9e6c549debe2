"""Deep Q-learning (`retrograde train dqn`, the `dqn` agent; seed 001 §5.3).

The encodings are checked against the boards' text and the rules' moves, the network's choice
against its Q values computed here in numpy from the artifact's weights, training for learning
(tic-tac-toe against random), same-seed bytes and its refusals (a rerun after Ctrl-C and kill -9:
test_training), and Ctrl-C while JAX is imported, compiles and trains (issue 36, item 9):
one line and exit status 130, never a crash, no checkpoint lost, the rerun resuming to the bytes
of an uninterrupted run (benchmarks/bench_dqn_interrupt.py sends 20 and more).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from conftest import run_cli
from processes import assert_one_error_line, kill_group, log_paths, start
from retrograde.agents import build_agent
from retrograde.agents.match import play_game
from retrograde.agents.qnet import StopSignalsHeld
from retrograde.data.artifact import load_npz, save_npz
from retrograde.errors import BadAgent
from retrograde.games import make_game
from retrograde.training import train

SMALL = "dqn:episodes={episodes},hidden=16,memory=300,batch=16,sync=50,opponents=random"


def _random_positions(game, count: int, seed: int) -> list:
    """Non-terminal positions met in seeded random games."""
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        position = game.initial_position
        while not game.primitive(position) and len(found) < count:
            found.append(position)
            moves = game.moves(position)
            position = moves[rng.integers(len(moves))][1]
    return found


@pytest.mark.parametrize("size", [3, 4, 5])
def test_quixo_encoding_reads_the_board_from_the_mover_and_gives_every_move_its_own_output(size):
    game = make_game("quixo", {"size": size})
    encoding = game.network_input
    border = [cell for cell in range(size * size) if cell // size in (0, size - 1) or cell % size in (0, size - 1)]
    corners = {0, size - 1, size * size - size, size * size - 1}
    every_move = sum(2 if cell in corners else 3 for cell in border)  # corners push along two lines
    assert (encoding.inputs, encoding.actions) == (size * size, every_move)
    output_of: dict[str, int] = {}
    for position in _random_positions(game, 300, seed=size):
        moves, board, actions = encoding(position)
        cells, side = position
        assert board.tolist() == [1.0 if c == side else 0.0 if c == "." else -1.0 for c in cells]
        assert [text for text, _ in moves] == [text for text, _ in game.moves(position)]
        assert len(set(actions.tolist())) == len(moves) and all(0 <= a < every_move for a in actions)
        for (text, _), action in zip(moves, actions.tolist()):
            assert output_of.setdefault(text, action) == action  # one output per move, at every position
    assert len(set(output_of.values())) == len(output_of)


#: Report 001's 4N outputs on 4x4, by hand from its code (quixo_deep_q_learning.py: output d*N + i,
#: d = TOP, BOTTOM, LEFT, RIGHT): the bottom row's cube i pushed in at the top, the top row's at the
#: bottom, the right column's cube of row i pushed in at the left, the left column's at the right.
LINE_4X4 = ["a4-a1", "b4-b1", "c4-c1", "d4-d1", "a1-a4", "b1-b4", "c1-c4", "d1-d4",
            "d1-a1", "d2-a2", "d3-a3", "d4-a4", "a1-d1", "a2-d2", "a3-d3", "a4-d4"]


def _line_outputs(size: int) -> list[str]:
    """Report 001's 4N outputs on any size, written from its code's (row, column) pairs."""
    def name(row, column):
        return f"{'abcde'[column]}{row + 1}"

    last = size - 1
    return ([f"{name(last, i)}-{name(0, i)}" for i in range(size)] + [f"{name(0, i)}-{name(last, i)}" for i in range(size)]
            + [f"{name(i, last)}-{name(i, 0)}" for i in range(size)] + [f"{name(i, 0)}-{name(i, last)}" for i in range(size)])


def _artifact_with(path, out, weights=None, **settings):
    """A copy of the artifact at `path` at `out`, with other weights or settings (None: removed)."""
    arrays, metadata = load_npz(path)
    metadata["settings"] = {k: v for k, v in {**metadata["settings"], **settings}.items() if v is not None}
    save_npz(out, {**arrays, **(weights or {})}, metadata)
    return out


def test_line_outputs_are_report_001s_pushes_and_a_position_with_moves_has_one():
    assert _line_outputs(4) == LINE_4X4
    for size in (3, 4, 5):
        game = make_game("quixo", {"size": size})
        line = game.network_input.layers["line"]
        assert (line.inputs, line.actions) == (size * size, 4 * size)
        outputs = _line_outputs(size)
        for position in _random_positions(game, 300, seed=size):
            moves, board, actions = line(position)
            cells, side = position
            assert board.tolist() == [1.0 if c == side else 0.0 if c == "." else -1.0 for c in cells]
            legal = [text for text, _ in game.moves(position) if text in outputs]
            assert legal and [text for text, _ in moves] == legal  # never without a move, in the rules' order
            assert [outputs[a] for a in actions.tolist()] == legal
            assert all(child == dict(game.moves(position))[text] for text, child in moves)


def test_the_line_layer_plays_the_best_legal_output_when_the_best_output_is_illegal(tmp_path):
    """A hand-worked 4x4 position: x may take the blank and x cubes only (a2-a1 is a move of the
    rules the layer has no output for); the network's highest Q is b4-b1's (an o cube: report
    001's code walks down to the next legal output), then d3-a3's, then a4-a1's."""
    game = make_game("quixo", {"size": 4})
    position = ("oxo." "x..o" "o..." ".oxo", "x")
    moves, _, actions = game.network_input.layers["line"](position)
    assert dict(zip([text for text, _ in moves], actions.tolist())) == {
        "a4-a1": 0, "c4-c1": 2, "b1-b4": 5, "d1-d4": 7, "d1-a1": 8, "d3-a3": 10, "a2-d2": 13, "a4-d4": 15}
    artifact = train(SMALL.format(episodes=2) + ",outputs=line", game, tmp_path / "line.npz", seed=0)
    q = np.zeros(16, np.float32)
    q[[1, 10, 0]] = [9.0, 5.0, 4.0]  # b4-b1 (illegal: o's cube), d3-a3, a4-a1
    hand = {"w1": np.zeros((16, 16), np.float32), "b1": np.ones(16, np.float32),
            "w2": np.tile(q / 16, (16, 1)), "b2": np.zeros(16, np.float32)}
    agent = build_agent(f"dqn:params={_artifact_with(artifact, tmp_path / 'hand.npz', hand)}", game, seed=0)
    assert agent.choose(position) == ("d3-a3", ("oxo." "x..o" "xo.." ".oxo", "o"))


def test_a_trained_line_network_round_trips_and_plays_its_best_legal_push_computed_in_numpy(tmp_path):
    game = make_game("quixo", {"size": 4})
    artifact = train(SMALL.format(episodes=30) + ",outputs=line", game, tmp_path / "q.npz", seed=2)
    arrays, metadata = load_npz(artifact)
    assert metadata["settings"]["outputs"] == "line" and metadata["network"] == {"inputs": 16, "hidden": 16, "actions": 16}
    w1, b1, w2, b2 = (arrays[name].astype(np.float64) for name in ("w1", "b1", "w2", "b2"))
    agent = build_agent(f"dqn:params={artifact}", game, seed=0)
    for position in _random_positions(game, 200, seed=3):
        cells, side = position
        x = np.array([1.0 if c == side else 0.0 if c == "." else -1.0 for c in cells])
        q = np.maximum(x @ w1 + b1, 0) @ w2 + b2
        legal = [text for text, _ in game.moves(position) if text in LINE_4X4]
        assert agent.choose(position)[0] == max(legal, key=lambda text: q[LINE_4X4.index(text)])


def test_an_artifact_without_outputs_plays_one_output_per_move_and_a_contradicting_one_is_refused(tmp_path):
    game = make_game("quixo", {"size": 4})
    ours = train(SMALL.format(episodes=5), game, tmp_path / "ours.npz", seed=1)
    line = train(SMALL.format(episodes=5) + ",outputs=line", game, tmp_path / "line.npz", seed=1)
    old = _artifact_with(ours, tmp_path / "old.npz", outputs=None)
    positions = _random_positions(game, 50, seed=4)
    before, after = (build_agent(f"dqn:params={path}", game, seed=0) for path in (ours, old))
    assert [before.choose(p) for p in positions] == [after.choose(p) for p in positions]
    assert after.network.network_input.actions == 32
    cases = [(_artifact_with(ours, tmp_path / "a.npz", outputs="line"), "w2 of shape (16, 32)"),
             (_artifact_with(line, tmp_path / "b.npz", outputs="move"), "w2 of shape (16, 16)"),
             (_artifact_with(line, tmp_path / "c.npz", outputs=None), "w2 of shape (16, 16)"),
             (_artifact_with(line, tmp_path / "d.npz", outputs="diagonal"), "output layers move, line"),
             (_artifact_with(line, tmp_path / "e.npz", outputs=[5]), "output layers move, line")]
    for path, words in cases:
        with pytest.raises(BadAgent) as error:
            build_agent(f"dqn:params={path}", game, seed=0)
        message = str(error.value)
        assert "corrupt Q network artifact" in message and words in message and "\n" not in message, message


def test_tictactoe_encoding_marks_the_movers_cells_and_outputs_by_cell():
    game = make_game("tictactoe")
    for position in _random_positions(game, 200, seed=1):
        moves, board, actions = game.network_input(position)
        board_text, mover = game.format(position).split()
        cells = board_text.replace("/", "")
        assert board.tolist() == [1.0 if c == mover else 0.0 if c == "." else -1.0 for c in cells]
        assert actions.tolist() == [i for i, c in enumerate(cells) if c == "."]
        assert [text for text, _ in moves] == [text for text, _ in game.moves(position)]


def test_the_dqn_agent_plays_the_legal_move_of_highest_q_computed_in_numpy(tmp_path):
    game = make_game("quixo", {"size": 4})
    artifact = train(SMALL.format(episodes=30), game, tmp_path / "q.npz", seed=2)
    with np.load(artifact, allow_pickle=False) as data:
        w1, b1, w2, b2 = (data[name].astype(np.float64) for name in ("w1", "b1", "w2", "b2"))
    agent = build_agent(f"dqn:params={artifact}", game, seed=0)
    sources = [f"{chr(97 + s % 4)}{s // 4 + 1}" for s in range(16)]
    border = [s for s in range(16) if s // 4 in (0, 3) or s % 4 in (0, 3)]
    # the outputs in the rules' order: sources by cell, destinations as the rules list them
    outputs = [text for text, _ in game.moves(("." * 16, "x"))]
    assert len(outputs) == w2.shape[1] and {text.split("-")[0] for text in outputs} == {sources[s] for s in border}
    for position in _random_positions(game, 200, seed=3):
        cells, side = position
        x = np.array([1.0 if c == side else 0.0 if c == "." else -1.0 for c in cells])
        q = np.maximum(x @ w1 + b1, 0) @ w2 + b2
        legal = [text for text, _ in game.moves(position)]
        best = max(legal, key=lambda text: q[outputs.index(text)])
        assert agent.choose(position)[0] == best


def test_dqn_learns_to_beat_random_at_tictactoe(tmp_path):
    game = make_game("tictactoe")
    scores = {}
    for episodes in (1, 3000):
        artifact = train(f"dqn:episodes={episodes},opponents=random", game, tmp_path / f"{episodes}.npz", seed=1)
        agent = build_agent(f"dqn:params={artifact}", game, seed=0)
        opponent = build_agent("random", game, seed=7)
        first = [play_game(agent, opponent, game.initial_position, max_plies=9).result for _ in range(200)]
        second = [play_game(opponent, agent, game.initial_position, max_plies=9).result for _ in range(200)]
        scores[episodes] = (first.count("win") / 200, second.count("loss") / 200)
    assert scores[3000][0] >= 0.9 and scores[3000][1] >= 0.7, scores
    assert scores[1][0] < 0.75 and scores[1][1] < 0.5, scores


def test_dqn_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    spec = SMALL.format(episodes=80) + ",every=30"
    for folder in "123":
        (tmp_path / folder).mkdir()
    first = train(spec, "quixo --size 3", tmp_path / "1" / "d.npz", seed=9)
    second = train(spec, "quixo --size 3", tmp_path / "2" / "d.npz", seed=9)
    other = train(spec, "quixo --size 3", tmp_path / "3" / "d.npz", seed=10)
    assert first.read_bytes() == second.read_bytes() != other.read_bytes()
    assert sorted(p.name for p in first.parent.iterdir()) == ["d.npz"]


def test_dqn_refusals_are_one_line_and_write_nothing(tmp_path):
    ttt, quixo = make_game("tictactoe"), make_game("quixo", {"size": 3})
    artifact = train(SMALL.format(episodes=5), ttt, tmp_path / "t.npz", seed=0)
    rl = train("rl:episodes=5", ttt, tmp_path / "r.npz", seed=0)
    truncated = tmp_path / "cut.npz"
    truncated.write_bytes(artifact.read_bytes()[:300])
    cases = [(f"dqn:params={artifact}", quixo, "trained for tictactoe"), (f"dqn:params={rl}", ttt, "not a dqn artifact"),
             (f"dqn:params={truncated}", ttt, "not a dqn artifact"), ("dqn", ttt, "dqn needs params=FILE"),
             (f"dqn:params={artifact}", make_game("nim", {"heaps": [3]}), "network_input")]
    for spec, game, words in cases:
        with pytest.raises(BadAgent) as error:
            build_agent(spec, game, seed=0)
        assert words in str(error.value) and "\n" not in str(error.value), (spec, str(error.value))
    before = sorted(p.name for p in tmp_path.iterdir())
    for args, words in [(["dqn", "--game", "nim --heaps 3"], "network_input"),
                        (["dqn:opponents=(random;nobody)", "--game", "tictactoe"], "unknown agent 'nobody'"),
                        (["dqn:hidden=0", "--game", "tictactoe"], "hidden=0"),
                        (["dqn:outputs=line", "--game", "tictactoe"], "output layers move")]:
        result = run_cli("train", *args, "--out", "new.npz", cwd=tmp_path)
        assert result.returncode == 2, (args, result.stderr)
        assert_one_error_line(result.stderr, words)
    # without JAX installed, the agent and the learner say how to install it
    no_jax = ("import sys; sys.modules['jax'] = None; from retrograde.cli import main; main()")
    for args in (["match", f"dqn:params={artifact}", "random", "--game", "tictactoe", "--games", "2"],
                 ["train", "dqn", "--game", "tictactoe", "--out", "new.npz"]):
        result = subprocess.run([sys.executable, "-c", no_jax, *args], capture_output=True, text=True, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert_one_error_line(result.stderr, "pip install 'retrograde[dqn]'")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# --- Ctrl-C (issue 36, item 9) -------------------------------------------------------------------
def test_held_stop_signals_reach_their_own_handlers_when_delivered_and_the_first_decides():
    class Stopped(Exception):
        pass

    def stop(signum, frame):
        raise Stopped(signum)

    # Python's own Ctrl-C handler, whatever this process inherited (a job a shell started in the
    # background ignores SIGINT, and pytest then never sees the KeyboardInterrupt below)
    before = signal.signal(signal.SIGTERM, stop), signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(Stopped) as stopped:
            with StopSignalsHeld() as held:
                os.kill(os.getpid(), signal.SIGTERM)
                with StopSignalsHeld():  # an inner block delivers to the outer one
                    os.kill(os.getpid(), signal.SIGINT)
                    inner_reached = True
                assert inner_reached and held.arrived == [signal.SIGTERM, signal.SIGINT]
                held.deliver()
                raise AssertionError("deliver returned with a signal held")
        assert stopped.value.args == (signal.SIGTERM,)
        assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == (stop, signal.default_int_handler)
        with pytest.raises(KeyboardInterrupt):  # Python's own Ctrl-C handler, at the block's end
            with StopSignalsHeld():
                os.kill(os.getpid(), signal.SIGINT)
                ended = True
        assert ended
    finally:
        signal.signal(signal.SIGTERM, before[0])
        signal.signal(signal.SIGINT, before[1])


#: The CLI with SIGINT sent 10 ms into XLA's compilation of the Adam step: jaxlib's wait for a
#: compilation gives way to Ctrl-C while XLA's threads compile on (jax's private compile entry
#: names the moment). Unheld, the exit crashed under them: SIGSEGV, 6 times of 6.
INTERRUPTED_COMPILING = """
import os, signal, sys, threading
from jax._src import compiler
compile_and_load = compiler.backend_compile_and_load
def interrupted(backend, module, *args, **kwargs):
    if "jit_step" in str(module.operation.attributes["sym_name"]):
        threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGINT)).start()
    return compile_and_load(backend, module, *args, **kwargs)
compiler.backend_compile_and_load = interrupted
from retrograde.cli import main
main()
"""

#: An import of JAX whose last module (optax) sends Ctrl-C as it starts: held, the import ends
#: whole and the Ctrl-C comes after it (unheld, it landed inside jaxlib's initialisation, which
#: aborted: SIGABRT).
INTERRUPTED_IMPORTING = """
import os, signal, sys
from importlib.abc import MetaPathFinder
class Interrupt(MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "optax":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
sys.meta_path.insert(0, Interrupt())
from retrograde.agents.qnet import jax_modules
try:
    jax_modules()
except KeyboardInterrupt:
    print(sorted(name for name in ("jax", "jax.numpy", "optax") if name in sys.modules))
"""


def test_ctrl_c_while_jax_compiles_or_is_imported_stops_in_one_line_not_a_crash(tmp_path):
    out = tmp_path / "q.npz"
    result = subprocess.run([sys.executable, "-c", INTERRUPTED_COMPILING, "train", SMALL.format(episodes=200),
                             "--game", "tictactoe", "--out", str(out), "--quiet"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert result.returncode == 130, (result.returncode, result.stderr)
    assert_one_error_line(result.stderr, "interrupted", "rerun the same command to resume")
    assert not out.exists()
    imported = subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORTING], capture_output=True, text=True,
                              timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (imported.returncode, imported.stdout.strip()) == (0, "['jax', 'jax.numpy', 'optax']"), imported.stderr


def _checkpoint_done(partial) -> int | None:
    """Episodes the run's checkpoint holds (0: none; None: unreadable)."""
    if not (partial / "checkpoint.npz").exists():
        return 0
    try:
        with np.load(partial / "checkpoint.npz", allow_pickle=False) as data:
            return json.loads(str(data["metadata"]))["done"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None


def test_ctrl_c_at_seeded_moments_of_train_dqn_is_one_line_and_the_rerun_resumes_to_the_same_bytes(tmp_path):
    """Three SIGINTs at seeded moments from the interpreter's start on (JAX's import, its
    compilations, steps, checkpoints): each run ends with exit 130 and one line, keeps the
    checkpoint it had, and the rerun ends with the bytes of an uninterrupted run (a run that
    ends before its signal starts the chain again)."""
    spec = SMALL.format(episodes=400) + ",every=20"
    expected = train(spec, "tictactoe", tmp_path / "reference.npz", seed=4).read_bytes()
    logs, chain, sent = tmp_path / "logs", 0, 0
    delays = iter(np.random.default_rng(36).uniform(0.5, 4.0, size=20))
    while True:
        out = tmp_path / f"chain{chain}" / "q.npz"
        out.parent.mkdir(exist_ok=True)
        partial = out.with_name("q.npz.partial")
        out_log, err_log = log_paths(logs)
        with open(out_log, "wb") as stdout, open(err_log, "wb") as stderr:
            proc = start(["train", spec, "--game", "tictactoe", "--out", str(out), "--seed", "4", "--quiet"],
                         stdout=stdout, stderr=stderr)
        try:
            if sent < 3:
                try:
                    proc.wait(timeout=next(delays))
                except subprocess.TimeoutExpired:
                    before = _checkpoint_done(partial)
                    proc.send_signal(signal.SIGINT)
                    sent += 1
            code = proc.wait(timeout=120)
        finally:
            kill_group(proc)
        if code == 0:
            assert out.read_bytes() == expected and not partial.exists()
            if sent == 3:
                break
            chain += 1
            continue
        assert code == 130, (code, err_log.read_text())
        assert_one_error_line(err_log.read_text(), "interrupted", "rerun the same command to resume")
        after = _checkpoint_done(partial)
        assert after is not None and after >= before, (before, after)
