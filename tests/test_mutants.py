"""Pins of issue 36's second mutation pass (benchmarks/bench_mutation.py over verify, the store's
reads, the lock and the artifact loaders): each test fails under a mutant that the tests of its
module let through (BENCHMARKS.md, "Issue 36 — the second mutation pass", names each)."""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

import reference as ref

from retrograde.agents import build_agent
from retrograde.data.artifact import load_npz
from retrograde.data.lock import writer_lock
from retrograde.data.store import Store
from retrograde.errors import BadAgent, MissingTierError, StoreError
from retrograde.games import parse_game
from retrograde.training import train


def test_verify_counts_every_position_once(solved, cli):
    """verify's count is the positions it checked, from nought: nim 1,3,5,7 has 2*4*6*8 of them
    (every heap from empty to full), and the report says ok. Mutants: VerifyResult.positions
    starting at 1; `ok` negated; `to_json` returning None."""
    heaps = [1, 3, 5, 7]
    assert len(ref.nim_positions(heaps)) == 2 * 4 * 6 * 8
    code, stdout, _ = cli("verify", "--store", str(solved("nim", {"heaps": heaps})), "--workers", "0", "--quiet",
                          "--json")
    report = json.loads(stdout)
    assert code == 0 and report["positions"] == 2 * 4 * 6 * 8 and report["ok"] is True, stdout


def test_verify_shows_ten_examples_at_most(solved, tmp_path, cli):
    """Every position of tic-tac-toe's tier k5 given remoteness 7 (none of them is 7 plies from
    the end: five marks leave at most four moves): every chunk of 100 has wrong positions, and
    the report shows ten of them, not every chunk's. Mutant: `10 - len(examples)` -> `10 + ...`
    in verify_stage."""
    store = tmp_path / "t.zarr"
    shutil.copytree(solved("tictactoe", None, chunk_size=100), store)
    with Store.open(store, mode="r+") as opened:
        chunking = opened.plan.chunking("k5")
        assert chunking.count > 3
        outcome, remoteness = opened.read_tier("k5")
        summaries = []
        for chunk in range(chunking.count):
            start, stop = chunking.bounds(chunk)
            written = opened.write_chunk("k5", chunk, outcome[start:stop], np.full(stop - start, 7, remoteness.dtype))
            summaries.append({**opened.record("k5").chunks[chunk], **written, "chunk": chunk})
        opened.record_chunks("k5", summaries)
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet", "--json")
    report = json.loads(stdout)
    assert code == 1 and report["wrong"] > 10 and not report["bad_checksums"], stdout
    assert len(report["examples"]) == 10, report["examples"]


def test_verify_says_its_verdict_last(solved, cli):
    """Without --quiet, verify's progress ends with a line giving its verdict and the positions
    checked. Mutant: verify_stage's progress.finish deleted."""
    code, _, stderr = cli("verify", "--store", str(solved("nim", {"heaps": [1, 3, 5, 7]})), "--workers", "0")
    assert code == 0 and stderr.strip().splitlines()[-1].startswith("verify: ok, 384 positions in "), stderr


def test_a_store_in_a_missing_folder_is_refused_by_its_lock(tmp_path):
    """The writer lock names a store's missing folder in one line and creates nothing. Mutant:
    lock.missing_folder returning None for a folder that does not exist (the lock file's open
    then fails with FileNotFoundError)."""
    with pytest.raises(StoreError, match=r"cannot create store .*: folder .*missing.* does not exist"):
        with writer_lock(tmp_path / "missing" / "s.zarr"):
            pass
    assert list(tmp_path.iterdir()) == []


def _npz(path: Path, member: bytes, compression: int = zipfile.ZIP_STORED) -> None:
    """An .npz of one member `q.npy` holding `member`."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("q.npy", member)


def test_an_npz_member_compressed_otherwise_is_refused(tmp_path):
    """An .npy member compressed with LZMA (neither stored nor deflated, so deflate's bound says
    nothing of it) is refused by name. Mutant: `or` -> `and` in the member check (then
    `compress_size * None`: a TypeError)."""
    header = io.BytesIO()
    np.lib.format.write_array(header, np.zeros(4))
    _npz(tmp_path / "a.npz", header.getvalue(), zipfile.ZIP_LZMA)
    with pytest.raises(ValueError, match="member 'q.npy' is not a stored or deflated .npy array"):
        load_npz(tmp_path / "a.npz")


def test_an_npz_whose_directory_claims_more_than_the_file_is_refused(tmp_path):
    """A stored member whose central directory entry claims 2**30 bytes (and an .npy header that
    claims them too) in a file of a few hundred: refused before any array is made. Mutant: the
    check of the members' sizes against the file deleted (the load then makes a 1 GiB array
    before the read runs out of bytes)."""
    claimed = 2**30
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": (claimed,)})
    member = header.getvalue() + bytes(16)
    _npz(tmp_path / "a.npz", member)
    data = bytearray((tmp_path / "a.npz").read_bytes())
    entry = data.index(b"PK\x01\x02")  # the central directory entry: its sizes at 20 and 24
    data[entry + 20:entry + 28] = struct.pack("<II", claimed + len(header.getvalue()), claimed + len(header.getvalue()))
    (tmp_path / "a.npz").write_bytes(bytes(data))
    assert len(data) < 1000
    with pytest.raises(ValueError, match="its members claim more bytes than the file holds"):
        load_npz(tmp_path / "a.npz")


@pytest.mark.parametrize("planted", ["a symbolic link", "a folder", "a hard link to another file"])
def test_a_planted_lock_file_is_refused_in_one_line(tmp_path, planted):
    """Whatever is planted where the lock file goes (a link to a file elsewhere, a folder, a
    second name of a file) is refused by what it is, and the file it names is left as it was.
    Mutant: _open_lock's refusal text deleted (its three raises then end in NameError)."""
    victim, lock = tmp_path / "victim", tmp_path / ".s.zarr.lock"
    victim.write_text("keep")
    {"a symbolic link": lambda: lock.symlink_to(victim), "a folder": lock.mkdir,
     "a hard link to another file": lambda: os.link(victim, lock)}[planted]()
    with pytest.raises(StoreError, match=f"its lock file .* is {planted}; retrograde writes only a regular file"):
        with writer_lock(tmp_path / "s.zarr"):
            pass
    assert victim.read_text() == "keep"


@pytest.mark.parametrize("learner, game", [("ga", "nim --heaps 1,2"), ("rl", "nim --heaps 1,2"), ("dqn", "tictactoe")])
def test_a_trained_agent_without_params_is_refused(learner, game):
    """A trained agent given no params=FILE (`ga`: nor a weight for every gene) is refused in one
    line saying how to train one. Mutants: `not genes or len(given) < len(genes)` -> `and` in
    GaAgent; RlAgent's refusal deleted (then Path(None): a TypeError)."""
    with pytest.raises(BadAgent, match=f"{learner} needs params=FILE \\(train one with retrograde train {learner}"):
        build_agent(learner, parse_game(game), seed=0)


@pytest.mark.parametrize("model, spec, game", [("SparseQ", "rl:model=sparse,episodes=20", "nim --heaps 1,2"),
                                               ("LinearQ", "rl:episodes=3,opponent=random", "quixo --size 4")])
def test_an_rl_artifact_of_each_model_loads_and_plays(tmp_path, model, spec, game):
    """An rl artifact holding a sparse table (a position's notation per row) or a linear model
    (quixo 4x4's features, no table fits) loads as that model and plays a legal move. Mutants:
    SparseQ.from_arrays's `option is not None` -> `is None` or its `return` -> `return None`;
    LinearQ.from_arrays's `option = ...` deleted; RlAgent's `name = "rl"` deleted (then `play`
    announces "q plays first")."""
    played = parse_game(game)
    out = train(spec, played, tmp_path / "a.npz", seed=1)
    agent = build_agent(f"rl:params={out}", played, seed=0)
    assert type(agent.model).__name__ == model and agent.name == "rl"
    assert agent.choose(played.initial_position) in played.moves(played.initial_position)


def test_the_one_ply_classes_kept_stay_within_their_budget(solved):
    """Reading every tier of a one-ply store (quixo 3x3, chunks of 1,000) keeps the latest chunks'
    classes within `classes_cache_bytes` (here 2,500 bytes: two chunks and a half). Mutant: `+
    classes.nbytes` -> `-` in Store._classes's eviction (the cache then outgrows its budget)."""
    with Store.open(solved("quixo", {"size": 3}, chunk_size=1000)) as store:
        assert store.one_ply
        store.classes_cache_bytes = 2500
        for tier in store.plan.tiers:
            store.read_tier(tier.name)
            assert 0 < sum(kept.nbytes for kept in store._classes_cache.values()) <= 2500, tier.name


#: A `ga` artifact for nim 1,2 as artifact format 1 writes it (the fields every version-1 reader takes).
GA_VERSION_1 = {"format": "retrograde-training", "learner": "ga", "version": 1, "seed": 1, "settings": {},
                "game": {"name": "nim", "params": {"heaps": [1, 2], "max_take": None, "misere": False}},
                "learning_curve": [{"generations": 1, "best_fitness": 1.0, "mean_fitness": 1.0}], "fitness": 1.0,
                "genome": {"kind": "nim-rules", "weights": [0.5, 0.9, 0.1, 0.9, 0.3, 0.4],
                           "names": ["random_heap", "fattest_heap", "random_take", "odd_take", "prime_take",
                                     "leave_one"]}}


def test_an_artifact_of_format_1_still_loads(tmp_path):
    """Artifacts already trained keep working: a version-1 `ga` artifact loads as `ga` and plays;
    one of a version this retrograde does not know is refused naming both versions. Mutants:
    artifact.VERSION 1 -> 2 (every artifact trained before refused as another format);
    GaAgent's `name = "ga"` deleted; load_artifact's version refusal deleted."""
    path = tmp_path / "g.json"
    path.write_text(json.dumps(GA_VERSION_1))
    game = parse_game("nim --heaps 1,2")
    agent = build_agent(f"ga:params={path}", game, seed=0)
    assert agent.name == "ga"
    assert agent.choose(game.initial_position) in game.moves(game.initial_position)
    path.write_text(json.dumps({**GA_VERSION_1, "version": 2}))
    with pytest.raises(BadAgent, match="artifact format version 2, this retrograde reads 1"):
        build_agent(f"ga:params={path}", game, seed=0)


def test_verify_lists_damage_in_order(solved, tmp_path, cli):
    """Damage in two tiers is listed sorted (tic-tac-toe's plan goes from k9 down to k0, its
    report from k0 up), whatever order the chunks were checked in. Mutant: verify_stage's
    `result.damaged.sort()` deleted."""
    store = tmp_path / "t.zarr"
    shutil.copytree(solved("tictactoe"), store)
    files = sorted(store.glob("tiers/*/outcome/c/*"))
    for chunk in (files[0], files[-1]):
        data = bytearray(chunk.read_bytes())
        data[len(data) // 2] ^= 0xFF
        chunk.write_bytes(bytes(data))
    assert files[0].parts[-4] != files[-1].parts[-4]
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet", "--json")
    damaged = json.loads(stdout)["damaged"]
    assert code == 1 and damaged == sorted(damaged), damaged
    for chunk in (files[0], files[-1]):
        assert any(f"tier {chunk.parts[-4]} chunk {chunk.name}: its data is damaged" in line for line in damaged)


def test_a_lock_file_removed_while_held_is_no_error(tmp_path):
    """A lock file removed by hand while its lock is held (a cleanup of dot files) does not make
    the run fail as it releases the lock. Mutant: `lock.unlink(missing_ok=True)` -> False."""
    with writer_lock(tmp_path / "s.zarr"):
        (tmp_path / ".s.zarr.lock").unlink()
    assert list(tmp_path.iterdir()) == []


def test_a_chunk_whose_record_holds_another_checksum_fails_verify(solved, tmp_path, cli):
    """A chunk record whose values checksum is not its values' (the data and its stored digest
    intact, the record rewritten through the store) is a bad checksum naming tier/chunk.
    Mutant: verify_stage's `bad_checksums.append(...)` deleted (verify then says OK)."""
    store = tmp_path / "t.zarr"
    shutil.copytree(solved("tictactoe"), store)
    with Store.open(store, mode="r+") as opened:
        record = opened.record("k5").chunks[0]
        opened.record_chunks("k5", [{**record, "checksum": "0" * len(record["checksum"]), "chunk": 0}])
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet", "--json")
    report = json.loads(stdout)
    assert code == 1 and report["bad_checksums"] == ["k5/0"] and report["ok"] is False, report


def test_values_of_a_tier_not_solved_are_refused(tmp_path, monkeypatch):
    """read_values (probes, lookup agents) of a tier a stopped solve left unsolved, or of a name
    no tier has, is MissingTierError naming it, never the fill value. Mutant: read_values's
    `require_solved` deleted."""
    from conftest import solve_killed_in_propagation

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    with Store.open(store) as opened:
        unsolved = next(tier.name for tier in opened.plan.tiers if opened.record(tier.name).status != "solved")
        with pytest.raises(MissingTierError, match=f"tier {unsolved} is not solved yet"):
            opened.read_values(unsolved, np.array([0]))
        with pytest.raises(MissingTierError, match="tier nonsense is not part of this store"):
            opened.read_values("nonsense", np.array([0]))


def test_an_npz_member_in_npy_format_2_loads(tmp_path):
    """numpy writes .npy format 2.0 where a header outgrows format 1.0's (many fields): such a
    member is read like any other. Mutant: the accepted versions' (2, 0) -> (2, 1)."""
    with zipfile.ZipFile(tmp_path / "a.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in {"q": np.arange(6.0).reshape(2, 3), "metadata": np.array(json.dumps({"seed": 1}))}.items():
            with archive.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, array, version=(2, 0))
    arrays, metadata = load_npz(tmp_path / "a.npz")
    assert metadata == {"seed": 1} and arrays["q"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_read_values_of_a_one_ply_store_are_its_values(solved):
    """Probes and lookup agents read single indices (read_values, numpy alone); in the one-ply
    encoding what one ply decides is not stored, and each index is decoded from its class: the
    outcomes and remoteness of every index of quixo 3x3 are those a whole-tier read (the numba
    kernel) gives. Mutant: read_values's decode deleted (the stored codes answered as values)."""
    with Store.open(solved("quixo", {"size": 3})) as store:
        assert store.one_ply
        for tier in store.plan.tiers:
            outcome, remoteness = store.read_tier(tier.name)
            read = store.read_values(tier.name, np.arange(tier.size))
            assert np.array_equal(read[0], outcome) and np.array_equal(read[1], remoteness), tier.name
