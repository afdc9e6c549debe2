"""A damaged store is found, never built on, and never answered with a traceback: bytes flipped
at seeded random places in a solved store's documents and chunks."""

from __future__ import annotations

import random
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import zarr

import reference as ref

from retrograde.data.store import Store
from retrograde.errors import DamagedStore

#: Tic-tac-toe: ten tiers, verified in a fraction of a second.
GAME, PARAMS, CHUNK = "tictactoe", None, None
FLIPS = 40


def stored_values(store: Path) -> dict[str, bytes]:
    """Each tier's decoded arrays, read with zarr alone (None where they cannot be read)."""
    values = {}
    for tier in sorted(p.name for p in (store / "tiers").iterdir()):
        for key in ("outcome", "remoteness"):
            try:
                values[f"{tier}/{key}"] = np.asarray(zarr.open_array(store / "tiers" / tier / key, mode="r")[:]).tobytes()
            except Exception:  # noqa: BLE001 - any failure to decode is what the test looks for
                values[f"{tier}/{key}"] = None
    return values


@pytest.fixture
def store(solved, tmp_path) -> Path:
    copy = tmp_path / "store.zarr"
    shutil.copytree(solved(GAME, PARAMS, chunk_size=CHUNK), copy)
    return copy


def test_every_flipped_byte_of_a_document_or_a_chunk_is_reported(store, cli):
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 0, stdout
    original = stored_values(store)
    files = sorted(p for p in store.rglob("*") if p.is_file())
    rng = random.Random(11)
    kinds = {"document": 0, "chunk": 0, "ignored by the codecs": 0}
    for _ in range(FLIPS):
        path = rng.choice(files)
        data = bytearray(path.read_bytes())
        at, bit = rng.randrange(len(data)), 1 << rng.randrange(8)
        data[at] ^= bit
        path.write_bytes(bytes(data))
        try:
            code, stdout, stderr = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
            where = f"{path.relative_to(store)} byte {at}"
            assert "Traceback" not in stdout + stderr, where
            document = path.name == "zarr.json"
            kinds["document" if document else "chunk"] += 1
            if not document and stored_values(store) == original:
                kinds["ignored by the codecs"] += 1  # caught by the chunk's stored digest alone
            assert code == 1, f"{where}: verify said {stdout or stderr}"
            if code == 1 and stderr:  # the store cannot be opened: one line naming the document
                assert len(stderr.strip().splitlines()) == 1 and "damaged" in stderr, where
            else:
                assert "FAILED" in stdout, where
                tier = path.relative_to(store).parts[1] if len(path.relative_to(store).parts) > 2 else None
                assert tier is None or tier in stdout, f"{where}: the report does not name the tier: {stdout}"
        finally:
            data[at] ^= bit
            path.write_bytes(bytes(data))
    assert kinds["document"] >= 5 and kinds["chunk"] >= 5, kinds  # both kinds were tried


def test_a_damaged_chunk_stops_every_reader_with_its_name(store, cli):
    """Solve tasks (reading child tiers), probes and agents read through the same calls: a
    chunk that cannot be decoded is a DamagedStore naming tier and chunk, never data; a
    command meeting it says so in one line."""
    chunk = sorted(store.glob("tiers/*/outcome/c/*"))[0]
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0xFF
    chunk.write_bytes(bytes(data))
    tier, index = chunk.parts[-4], int(chunk.name)
    size = Store.open(store).plan.chunking(tier).chunk_size
    with Store.open(store) as opened:
        with pytest.raises(DamagedStore, match=f"tier {tier} chunk {index}: its data is damaged"):
            opened.read_tier(tier)
        with pytest.raises(DamagedStore, match=f"tier {tier} chunk {index}"):
            opened.read_values(tier, np.array([index * size]))
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 1 and f"tier {tier} chunk {index}: its data is damaged" in stdout
    code, _, stderr = cli("status", "--store", str(store))
    assert code in (0, 1) and "Traceback" not in stderr and len(stderr.strip().splitlines()) <= 1, stderr


@pytest.mark.parametrize("damaged", ["checkpoint", "first pass"])
def test_a_damaged_scratch_file_is_never_built_on(tmp_path, solved, monkeypatch, cli, damaged):
    """A loopy group's saved work is recomputable: a damaged propagation checkpoint is dropped
    (the propagation starts again); a damaged first-pass file stops the solve with one line
    naming tier and chunk, and is removed, so the rerun recomputes it. Either way the store
    ends with the bytes of an uninterrupted solve; before that, verify reports the damage and
    changes nothing."""
    from conftest import assert_same_store, solve_in_process, solve_killed_in_propagation, store_bytes

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    (checkpoint,) = store.glob("scratch/*/propagation-*.npz")
    target = checkpoint if damaged == "checkpoint" else sorted(checkpoint.parent.glob("[0-9]*.npz"))[0]
    assert target != checkpoint or damaged == "checkpoint"
    data = bytearray(target.read_bytes())
    with zipfile.ZipFile(target) as archive:  # a byte of the largest array's data (the zip's CRC covers it)
        largest = max(archive.infolist(), key=lambda member: member.compress_size)
    data[largest.header_offset + 30 + len(largest.filename) + len(largest.extra) + largest.compress_size // 2] ^= 0x10
    target.write_bytes(bytes(data))
    before = store_bytes(store)
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    name = "propagation checkpoint" if damaged == "checkpoint" else f"chunk {target.stem}: its first-pass file"
    assert code == 1 and f"tier {target.parent.name}" in stdout and name in stdout, stdout
    assert store_bytes(store) == before, "verify changed the store"
    if damaged == "first pass":
        checkpoint.unlink()  # else the propagation goes on from it and reads no first pass
        with pytest.raises(DamagedStore, match=f"tier {target.parent.name} chunk {target.stem}: its first-pass file"):
            solve_in_process("quixo", {"size": 3}, store)
        assert not target.exists()
    solve_in_process("quixo", {"size": 3}, store)
    assert_same_store(store, solved("quixo", {"size": 3}))


@pytest.mark.parametrize("older", ["checkpoint", "first pass"])
def test_scratch_files_of_an_earlier_version_are_never_built_on(tmp_path, solved, monkeypatch, cli, older):
    """A solve stopped by a version that counted a position's children inside its group
    otherwise (a class each, not a move each) left files without the `counts` mark: they read
    as damaged, naming why, and the rerun recomputes them (a checkpoint is dropped, a first
    pass removed after one failed run) to the bytes of an uninterrupted solve."""
    from conftest import assert_same_store, solve_in_process, solve_killed_in_propagation

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    (checkpoint,) = store.glob("scratch/*/propagation-*.npz")
    target = checkpoint if older == "checkpoint" else sorted(checkpoint.parent.glob("[0-9]*.npz"))[0]
    with np.load(target) as data:
        arrays = {key: data[key] for key in data.files if key != "counts"}
    with open(target, "wb") as file:
        np.savez(file, **arrays)
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 1 and "written by an earlier version" in stdout, stdout
    if older == "first pass":
        checkpoint.unlink()
        with pytest.raises(DamagedStore, match="written by an earlier version"):
            solve_in_process("quixo", {"size": 3}, store)
        assert not target.exists()
    solve_in_process("quixo", {"size": 3}, store)
    assert_same_store(store, solved("quixo", {"size": 3}))


class _Planted:
    """An object whose unpickling would create a file: proof that nothing was unpickled."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_a_pickle_planted_in_a_checkpoint_is_never_unpickled(tmp_path, solved, monkeypatch):
    """Scratch files are read with allow_pickle=False: a checkpoint holding a pickled object is
    dropped as damaged (the propagation starts again), and the object's code never runs."""
    from conftest import assert_same_store, solve_in_process, solve_killed_in_propagation

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    (checkpoint,) = store.glob("scratch/*/propagation-*.npz")
    marker = tmp_path / "unpickled"
    with np.load(checkpoint) as data:
        arrays = dict(data)
    arrays["group"] = np.array([_Planted(marker)], dtype=object)
    with open(checkpoint, "wb") as file:
        np.savez(file, **arrays)
    solve_in_process("quixo", {"size": 3}, store)
    assert not marker.exists(), "a pickle in the store was loaded"
    assert_same_store(store, solved("quixo", {"size": 3}))


def test_a_resumed_solve_refuses_to_build_on_a_damaged_tier(tmp_path, monkeypatch):
    """A changed byte in a solved tier's chunk file stops the resumed solve that reads the tier,
    with one line naming tier and chunk (the chunk's stored digest is checked before decoding)."""
    from conftest import solve_in_process, solve_killed_in_propagation

    store = tmp_path / "q3.zarr"
    solve_killed_in_propagation(store, monkeypatch, level=3)
    with Store.open(store) as opened:
        unsolved = [tier for tier in opened.plan.tiers if opened.record(tier.name).status != "solved"]
        read = sorted({child for tier in unsolved for child in tier.children
                       if opened.record(child).status == "solved"})
    assert read, "the kill left no solved tier for the rest of the solve to read"
    # its first outcome chunk changed: a byte flipped, or a file where none was written (in the
    # one-ply encoding a tier of positions one ply decides stores nothing)
    chunk = store / "tiers" / read[0] / "outcome" / "c" / "0"
    data = bytearray(chunk.read_bytes() if chunk.exists() else b"\x00")
    data[-1] ^= 0x01
    chunk.parent.mkdir(parents=True, exist_ok=True)
    chunk.write_bytes(bytes(data))
    with pytest.raises(DamagedStore, match=f"tier {chunk.parts[-4]} chunk {chunk.name}: its data is damaged"):
        solve_in_process("quixo", {"size": 3}, store)


def _rewrite_remoteness(path: Path, tier: str, index: int, remoteness: int) -> None:
    """Store `remoteness` at `index` of `tier` as a solve would write it: the chunk rewritten and
    its record's checksum and digest updated, so that only verify's value check can see it."""
    with Store.open(path, mode="r+") as store:
        chunking = store.plan.chunking(tier)
        chunk = index // chunking.chunk_size
        start, stop = chunking.bounds(chunk)
        outcome, stored = store.read_tier(tier)
        changed = stored.copy()
        changed[index] = remoteness
        written = store.write_chunk(tier, chunk, outcome[start:stop], changed[start:stop])
        store.record_chunks(tier, [{**store.record(tier).chunks[chunk], **written, "chunk": chunk}])


@pytest.mark.parametrize("kind, shown", [("draw", "draw"), ("hole", "none")])
def test_a_draw_or_a_hole_holding_remoteness_fails_verify(store, cli, kind, shown):
    """A draw and an index that is no position (a hole) hold remoteness 0 (SPEC §5): a store
    whose records and checksums agree with a draw or a hole holding 5 still fails verify,
    naming the index. The draw is chosen by the reference (xxo/.o./...: x must block the
    diagonal c1-a3), the hole as the first index of tier k4 whose board is not the one the store
    keeps for its symmetry class (the reference's representative)."""
    assert ref.ttt_value("xxo.o....") == (ref.DRAW, 0)
    wanted = {"draw": lambda board: board == "xxo.o....",
              "hole": lambda board: ref.ttt_representative(board) != board}[kind]
    with Store.open(store) as opened:
        game, tier = opened.game, opened.game.tier("k4")
        index = next(i for i in range(opened.plan.chunking("k4").size)
                     if wanted(game.format(game.position_at(tier, i)).split()[0].replace("/", "")))
    _rewrite_remoteness(store, "k4", index, 5)
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 1 and "FAILED" in stdout and ", 1 wrong, 0 bad checksums, 0 damaged" in stdout, stdout
    assert f"k4[{index}]" in stdout and f"stored {shown}/5, rules give {shown}/0" in stdout, stdout


@pytest.mark.parametrize("board, wanted", [("xx..o.o..", (ref.WIN, 1)), (".xx...xoo", (ref.LOSS, 2))])
def test_a_win_or_a_loss_one_move_off_fails_verify(store, cli, board, wanted):
    """A decided position's remoteness is checked, not only its outcome: a win in 1 (x to play
    completes the top row) stored as a win in 2, and a loss in 2 (o to play, x threatening the
    top row and a diagonal) stored as a loss in 3, with
    records and checksums agreeing, fail verify naming the position and both values. The
    positions and their values come from the reference."""
    assert ref.ttt_value(board) == wanted and ref.ttt_representative(board) == board
    tier_name = f"k{9 - board.count('.')}"
    with Store.open(store) as opened:
        game, tier = opened.game, opened.game.tier(tier_name)
        index = next(i for i in range(opened.plan.chunking(tier_name).size)
                     if game.format(game.position_at(tier, i)).split()[0].replace("/", "") == board)
    shown = {ref.WIN: "win", ref.LOSS: "loss"}[wanted[0]]
    _rewrite_remoteness(store, tier_name, index, wanted[1] + 1)
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 1 and "FAILED" in stdout and "0 bad checksums, 0 damaged" in stdout, stdout
    assert f"{tier_name}[{index}]" in stdout, stdout
    assert f"stored {shown}/{wanted[1] + 1}, rules give {shown}/{wanted[1]}" in stdout, stdout
