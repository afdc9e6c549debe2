"""Every number bounded before it allocates (issue 36, item 5): a Nim instance by the tiers, links
and positions of its plan; a training's settings by the moves and memory they imply; an artifact's
arrays by the bytes its members hold, its values and fields by their type and range; and the
explorer's query numbers by their ASCII digits. A command refused says one line, exits non-zero,
creates nothing and answers at once (within `ANSWER_SECONDS`, which includes starting Python)."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from processes import assert_one_error_line, run
from retrograde.agents.registry import build_agent
from retrograde.data import artifact
from retrograde.errors import BadAgent, BadOption, BadPosition
from retrograde.games import make_game, parse_game
from retrograde.training import train
from retrograde.training.resumable import learner_for

#: A refusal must come this soon (the hangs it replaces never ended).
ANSWER_SECONDS = 10
HUGE = "1000000000000"
NIM = "nim --heaps 1,2,3"


def refused(args: list[str], folder: Path, *needles: str) -> None:
    """`retrograde ARGS` run in `folder` exits non-zero within ANSWER_SECONDS with one error line
    holding the needles, and leaves `folder` as empty as it was."""
    result = run(args, cwd=folder, timeout=ANSWER_SECONDS)
    assert result.returncode not in (0, None), result.stderr
    assert_one_error_line(result.stderr, *needles)
    assert list(folder.iterdir()) == [], "a refused command created files"


# --- Nim's instances -------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["plan", "nim", "--heaps", HUGE],
    ["solve", "nim", "--heaps", HUGE, "--store", "s.zarr", "--workers", "0"],
    ["train", "ga", "--game", f"nim --heaps {HUGE}", "--out", "g.json"],
    ["match", "random", "random", "--game", f"nim --heaps {HUGE}"],
], ids=["plan", "solve", "train", "match"])
def test_a_huge_nim_heap_is_refused_at_once_naming_the_limit(tmp_path, args):
    """`nim --heaps 10^12` (a MemoryError traceback in plan, solve and train, a hang in match) is
    refused in one line naming the most tiers a plan may hold."""
    refused(args, tmp_path, "--heaps 1000000000000", "100,000 a plan may hold")


@pytest.mark.parametrize("params, needle", [
    ({"heaps": [9999]}, "1,000,000 links a plan may hold"),
    ({"heaps": [3000, 3000], "max_take": 1000}, "1,000,000 links a plan may hold"),
    ({"heaps": [1] * 41}, "at least 2^41 positions"),
    ({"heaps": [1] * 100_000}, "1,099,511,627,776 a store of Nim may hold"),
    ({"heaps": [2**20, 2**20, 2**20]}, "positions, over the 1,099,511,627,776"),
])
def test_nim_refuses_plans_over_its_bounds(params, needle):
    """Links between tiers (tier s reads s-1 .. s-k: quadratic without --max-take) and positions are
    counted from the heaps alone, without multiplying a hundred thousand heaps."""
    with pytest.raises(BadOption, match=needle.replace("^", r"\^")):
        make_game("nim", params)


def test_nim_under_its_bounds_is_planned():
    """The bounds leave room: a heap of 1,000 (500,500 links) and 70,000 tiers of --max-take 1."""
    assert len(make_game("nim", {"heaps": [1000]}).tiers()) == 1001
    make_game("nim", {"heaps": [70_000], "max_take": 1})


@pytest.mark.parametrize("text", ["١,2,3", "1,2,3\u00b2", "1_0", "1,+2,3"])
def test_nim_numbers_are_ascii_digits(text):
    """int() reads '١' (Arabic-Indic one) and '1_0': neither is a heap nor a position's heap."""
    with pytest.raises(BadOption, match="whole numbers"):
        make_game("nim", {"heaps": text})
    with pytest.raises(BadPosition, match="expected heap sizes"):
        make_game("nim", {"heaps": [1, 2, 3]}).parse(text)


# --- training settings -----------------------------------------------------------------------------
@pytest.mark.parametrize("spec, needle", [
    (f"ga:population={HUGE}", "(1,000,000,000,000 + 20 x 20) x 20 x 6"),
    (f"ga:games={HUGE},generations=1", "(20 + 1 x 20) x 1,000,000,000,000 x 6"),
    (f"rl:episodes={HUGE}", "episodes x plies: 1,000,000,000,000 x 6"),
])
def test_a_training_over_a_week_of_moves_is_refused_at_once(tmp_path, spec, needle):
    """`train ga:population=10^12` and `ga:games=10^12,generations=1` ran (or hung) with no cap:
    the moves they imply (plies at most Nim 1,2,3's 6) are over what a week allows."""
    out = "a.json" if spec.startswith("ga") else "a.npz"
    refused(["train", spec, "--game", NIM, "--out", out], tmp_path, needle, "a training may make")


def test_a_training_over_the_memory_available_is_refused(monkeypatch):
    """A population whose genomes alone exceed the memory available is refused before one is drawn."""
    monkeypatch.setattr("retrograde.training.learner.available_memory", lambda: 10**6)
    game = make_game("nim", {"heaps": [1, 2, 3]})
    with pytest.raises(BadAgent, match="20,020 individuals .* 1,000,000 bytes of memory available"):
        learner_for("ga:population=20000,games=1", game)
    learner_for("ga:population=200,games=1", game)  # 200 fit
    with pytest.raises(BadAgent, match="a sample of 100,000 positions"):
        learner_for("ga:population=2,sample=100000,fitness=exact", game, store=_FakeStore())


def test_a_dqn_replay_memory_over_the_memory_available_is_refused(monkeypatch):
    pytest.importorskip("jax")
    monkeypatch.setattr("retrograde.training.learner.available_memory", lambda: 10**8)
    game = make_game("tictactoe")
    with pytest.raises(BadAgent, match="replay memory of 10,000,000 transitions"):
        learner_for("dqn:memory=10000000,opponents=random", game)


class _FakeStore:
    """Stands for a store where a learner only needs one to be given: its cost is checked before it
    reads one."""


# --- artifacts -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict[str, Path]:
    """Small rl and ga artifacts of Nim 1,2,3."""
    folder = tmp_path_factory.mktemp("artifacts")
    return {"rl": train("rl:episodes=30", NIM, folder / "q.npz", seed=1),
            "ga": train("ga:population=2,offspring=2,generations=1,games=1", NIM, folder / "g.json", seed=1)}


def rewritten(source: Path, target: Path, arrays=None, **metadata) -> Path:
    """`source`'s artifact written to `target` with `arrays` (its own if None) and metadata changes
    (a value None deletes the key)."""
    if source.suffix == ".json":
        document = json.loads(source.read_text())
        document.update(metadata)
        target.write_text(json.dumps({key: value for key, value in document.items() if value is not None}))
        return target
    own, meta = artifact.load_npz(source)
    meta.update(metadata)
    artifact.save_npz(target, own if arrays is None else arrays, {k: v for k, v in meta.items() if v is not None})
    return target


def refuses(path: Path, learner: str, *needles: str) -> None:
    """Building the `learner` agent from `path` for Nim 1,2,3 is one BadAgent holding the needles."""
    with pytest.raises(BadAgent) as raised:
        build_agent(f"{learner}:params={path}", make_game("nim", {"heaps": [1, 2, 3]}), seed=0)
    message = str(raised.value)
    assert "\n" not in message and all(needle in message for needle in needles), message


def npy_claiming(shape: tuple[int, ...], data: bytes, dtype: str = "<f4") -> bytes:
    """An .npy member whose header claims `shape` of `dtype` but holds `data`."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue() + data


def test_an_npz_header_claiming_a_huge_array_is_refused_before_allocating(trained, tmp_path):
    """A Q table member whose header claims 10^12 floats (4 TB) beside a few real bytes: refused from
    the header (numpy would allocate the claim first, MemoryError)."""
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(trained["rl"]) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        target.writestr("metadata.npy", source.read("metadata.npy"))
        target.writestr("q.npy", npy_claiming((10**6, 10**6), b"\0" * 64))
    refuses(path, "rl", "q.npy", "claims (1000000, 1000000)")
    with pytest.raises(ValueError, match="claims"):
        artifact.read_metadata(path)  # the resume check reads no member unchecked either


def test_an_npz_whose_directory_claims_more_than_the_file_is_refused(trained, tmp_path):
    """A stored member whose header claims 10^9 floats and whose sizes in the zip's records (local
    and central) claim as many bytes, though the file holds 64: refused from the records, with
    nothing near the claim allocated (numpy took the 4 GB first, then found the data short)."""
    path = tmp_path / "lying.npz"
    member = npy_claiming((10**9,), b"\0" * 64)
    with zipfile.ZipFile(trained["rl"]) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as target:
        target.writestr("metadata.npy", source.read("metadata.npy"))
        target.writestr("q.npy", member)
    data = bytearray(path.read_bytes())
    claimed = (len(member) - 64 + 4 * 10**9).to_bytes(4, "little")
    local = zipfile.ZipFile(path).getinfo("q.npy").header_offset
    data[local + 22:local + 26] = claimed  # the local record's uncompressed size
    central = data.find(b"PK\x01\x02")
    while data[central + 46:central + 46 + len("q.npy")] != b"q.npy":
        central = data.find(b"PK\x01\x02", central + 4)
    data[central + 24:central + 28] = claimed  # the central directory's
    path.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        refuses(path, "rl", "q.npy", "claims 4,000,000,")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000_000, f"{peak:,} bytes allocated"


@pytest.mark.parametrize("case, arrays, needles", [
    ("nan", lambda q: {"q": np.full_like(q, np.nan)}, ("'q'", "not finite")),
    ("inf", lambda q: {"q": np.where(q == q.max(), np.inf, q)}, ("not finite",)),
    ("no q", lambda q: {}, ("arrays []", "holds ['q']")),
    ("text", lambda q: {"q": np.full(q.shape, "1")}, ("not floats",)),
    ("objects", lambda q: {"q": q, "extra": np.array(b"\x80", dtype=object)}, ("allow_pickle",)),
    ("shape", lambda q: {"q": q[:-1]}, ("shape",)),
])
def test_an_rl_artifact_with_a_bad_q_table_is_refused(trained, tmp_path, case, arrays, needles):
    """A Q table of NaN (ValueError: high <= 0 at the first move), with infinities, none at all
    (played silently as an untrained agent), of text, beside pickles, or of another shape: each one
    line at load."""
    q = artifact.load_npz(trained["rl"])[0]["q"]
    target = tmp_path / "bad.npz"
    if case == "objects":  # save_npz writes no pickles: write one as np.savez does
        own, metadata = artifact.load_npz(trained["rl"])
        np.savez(target, q=q, extra=np.array([{1: 2}], dtype=object), metadata=np.array(json.dumps(metadata)))
    else:
        rewritten(trained["rl"], target, arrays(q))
    refuses(target, "rl", *needles)


@pytest.mark.parametrize("field, value, needle", [
    ("seed", None, "seed None"),
    ("seed", "1", "seed '1'"),
    ("seed", -1, "seed -1"),
    ("settings", [], "no settings"),
    ("learning_curve", [{"episodes": 10, "epsilon": float("nan")}], "learning_curve"),
    ("learning_curve", [{"episodes": "10"}], "learning_curve"),
    ("learning_curve", [{"episodes": 10, "value_kept": 1.5}], "value_kept"),
    ("model", None, "no model"),
])
def test_an_rl_artifact_with_a_bad_field_is_refused(trained, tmp_path, field, value, needle):
    """Every field an artifact carries is of its type and range: missing, text for a number, NaN in
    the learning curve, a share above 1."""
    metadata = artifact.load_npz(trained["rl"])[1]
    if value is None:
        metadata.pop(field)
    else:
        metadata[field] = value
    target = tmp_path / "bad.npz"
    artifact.save_npz(target, artifact.load_npz(trained["rl"])[0], metadata)
    refuses(target, "rl", "corrupt rl artifact", needle)


@pytest.mark.parametrize("change, needle", [
    (lambda ga: ga["genome"].update(weights=[str(w) for w in ga["genome"]["weights"]]), "finite weights"),
    (lambda ga: ga["genome"].update(weights=ga["genome"]["weights"][:-1]), "as many finite weights"),
    (lambda ga: ga["genome"].update(weights=[True] * len(ga["genome"]["weights"])), "finite weights"),
    (lambda ga: ga["genome"].update(names=list(reversed(ga["genome"]["names"]))), "genes"),
    (lambda ga: ga["genome"].pop("kind"), "genome is not a kind"),
    (lambda ga: ga.update(fitness=float("nan")), "fitness nan"),
    (lambda ga: ga.update(fitness=2), "fitness 2 is not a share"),
])
def test_a_ga_artifact_with_a_bad_genome_is_refused(trained, tmp_path, change, needle):
    """A genome's weights as text or booleans (numpy read them as numbers), too few, its genes under
    other names, no kind, a fitness of NaN or above 1: refused, not played."""
    document = json.loads(trained["ga"].read_text())
    change(document)
    target = tmp_path / "bad.json"
    target.write_text(json.dumps(document))
    refuses(target, "ga", needle)


def test_a_dqn_artifact_of_nan_weights_is_refused_before_jax(trained, tmp_path):
    """A dqn artifact's arrays are checked at load, before the network (and JAX) sees them."""
    game = make_game("nim", {"heaps": [1, 2, 3]})
    target = rewritten(trained["rl"], tmp_path / "d.npz", {"w1": np.full((3, 4), np.nan, np.float32)},
                       learner="dqn", model="mlp")
    with pytest.raises(BadAgent, match="network is not its inputs"):
        artifact.load_artifact(target, "dqn", game)
    rewritten(target, target, network={"inputs": 3, "hidden": 4, "actions": 3})
    with pytest.raises(BadAgent, match="array 'w1' holds values that are not finite"):
        artifact.load_artifact(target, "dqn", game)


def test_a_bad_artifact_is_one_line_on_the_command_line(trained, tmp_path):
    """`match rl:params=NAN.npz random`: one line, exit 2, nothing written."""
    q = artifact.load_npz(trained["rl"])[0]["q"]
    folder = tmp_path / "run"
    folder.mkdir()
    target = rewritten(trained["rl"], tmp_path / "nan.npz", {"q": np.full_like(q, np.nan)})
    refused(["match", f"rl:params={target}", "random", "--game", NIM, "--games", "2"], folder, "not finite")


# --- the explorer's query numbers ------------------------------------------------------------------
@pytest.fixture(scope="module")
def client(solved):
    from retrograde.data.store import Store
    from retrograde.explorer.app import Explorer, create_app

    with Store.open(solved("nim", {"heaps": [1, 2, 3]})) as store:
        yield create_app(Explorer(store, "random")).test_client()


@pytest.mark.parametrize("query", ["seed=\u00b2", "seed=\u0661", "seed=1_0", "seed=" + "9" * 5000,
                                   "seed=18446744073709551616", "p=\u0661", "p=nan", "p=0_5", "p=inf"],
                         ids=["superscript", "arabic", "underscore", "5000-digits", "2^64", "p-arabic", "p-nan",
                              "p-underscore", "p-inf"])
def test_explorer_query_numbers_are_ascii_and_bounded(client, query):
    """`seed=²` answered 500 (isdigit passes it, int refuses it): every number of a query is ASCII
    digits and in range, or 400 and one line."""
    answer = client.get(f"/api/move?{query}")
    body = answer.get_data(as_text=True)
    assert answer.status_code == 400, body
    assert body.count("\n") == 1 and query.partition("=")[0] + "=" in body, body


def test_explorer_takes_the_largest_seed(client):
    answer = client.get("/api/move?seed=18446744073709551615&p=0.5")
    assert answer.status_code == 200, answer.get_data(as_text=True)


def test_a_checkpoint_of_a_nan_q_table_is_one_line(tmp_path, monkeypatch):
    """A checkpoint is read as an artifact is: a Q table of NaN in OUT.partial/checkpoint.npz stops
    the resumed training with one line (it went on to a ValueError traceback)."""
    from retrograde.errors import RetrogradeError
    from retrograde.training.resumable import CHECKPOINT, partial_folder
    from retrograde.training.rl import RlLearner

    out = tmp_path / "q.npz"

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(RlLearner, "write", killed)
        with pytest.raises(KeyboardInterrupt):
            train("rl:episodes=20,every=10", NIM, out, seed=1)
    checkpoint = partial_folder(out) / CHECKPOINT
    arrays, metadata = artifact.load_npz(checkpoint)
    artifact.save_npz(checkpoint, {"q": np.full_like(arrays["q"], np.nan)}, metadata)
    with pytest.raises(RetrogradeError, match="corrupt checkpoint .*'q' holds values that are not finite"):
        train("rl:episodes=20,every=10", NIM, out, seed=1)
    assert not out.exists()


@pytest.mark.parametrize("spec, game, needle", [
    ("rl:rewards=1e300/-1e300/0", NIM, "at most 1.7e+38 either way"),
    ("dqn:batch=64,memory=10,opponents=random", "tictactoe", "batch=64 is more than the memory=10"),
])
def test_training_values_that_would_overflow_or_never_learn_are_refused(spec, game, needle):
    """Rewards whose Q updates overflow float32 (inf, then NaN), and a dqn batch larger than its
    replay memory (it never took a step: silently untrained)."""
    if spec.startswith("dqn"):
        pytest.importorskip("jax")
    with pytest.raises(BadAgent, match=needle.replace("+", r"\+")):
        learner_for(spec, parse_game(game))


def test_checkpoints_over_a_week_of_writing_are_refused():
    """A dqn replay memory of 10 million transitions (910 MB) checkpointed every episode of 300,000:
    273 TB to write, refused before the memory is allocated; every=1000 writes 273 GB and starts."""
    pytest.importorskip("jax")
    game = make_game("tictactoe")
    with pytest.raises(BadAgent, match="300,000 checkpoints .every=1. of a replay memory .* a training may write"):
        learner_for("dqn:episodes=300000,memory=10000000,every=1,opponents=random", game)
    learner_for("dqn:episodes=300000,memory=10000000,every=1000,opponents=random", game)


def test_a_sparse_q_table_is_bounded_by_the_positions_it_can_meet(monkeypatch):
    """A sparse table gains a row a move at most, and never more than the game has positions: Nim
    1,2,3 (24) takes a hundred million episodes; on Nim of eight heaps of 15 (4.3 billion positions,
    games of 120 plies at most) a million episodes' rows do not fit 1 GB."""
    monkeypatch.setattr("retrograde.training.learner.available_memory", lambda: 10**9)
    learner_for("rl:model=sparse,episodes=100000000", make_game("nim", {"heaps": [1, 2, 3]}))
    with pytest.raises(BadAgent, match="a sparse Q table of up to 120,000,000 positions met .* memory available"):
        learner_for("rl:model=sparse,episodes=1000000", make_game("nim", {"heaps": [15] * 8}))
