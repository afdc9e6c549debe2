"""`retrograde upgrade --store S` (data/upgrade.py): a format-3 store becomes format 4 in place,
value for value, resumably after a kill (during the conversion, or between the swap's two
renames), and anything else is refused in one line with nothing changed. The format-3 stores
are written here by zarr itself, as format 3 wrote them (docs/STORE.md of format 3)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import zarr
from zarr.codecs import BloscCodec, ZstdCodec

from conftest import Killed, run_cli, store_bytes
from retrograde.data import upgrade as upgrading
from retrograde.pipeline.stages import verified
from test_store import NIM, _move_tier, unbind
from retrograde.data.store import Store
from retrograde.errors import StoreError
from retrograde.games import GAMES

#: A small instance of every game (its first example; Quixo's in chunks of 256 positions, as above).
EVERY_GAME = [pytest.param(name, GAMES[name].examples[0], 256 if name == "quixo" else None, id=name)
              for name in ("nim", "tictactoe", "quixo", "quarto", "connect4")]


def _pack(codes: np.ndarray) -> np.ndarray:
    """Four 2-bit codes a byte, the first in the lowest bits (format 3's outcome array)."""
    padded = np.concatenate([codes, np.zeros(-codes.size % 4, np.uint8)]).reshape(-1, 4).astype(np.uint8)
    return padded[:, 0] | padded[:, 1] << 2 | padded[:, 2] << 4 | padded[:, 3] << 6


def format3_copy(source: Path, target: Path, *, unsolved: int = 0) -> None:
    """The values of the store at `source` as a format-3 store at `target`, written by zarr: the
    plan of format 3, zstd 5 / blosc zstd 4 arrays, records over the values (the first `unsolved`
    chunks of the largest tier left unsolved)."""
    with Store.open(source) as store:
        plan = store.plan.to_json()
        del plan["encoding"]
        plan["format"] = 3
        root = zarr.open_group(str(target), mode="w", attributes={"retrograde": {"plan": plan}})
        root.create_group("tiers")
        largest = max(store.plan.tiers, key=lambda tier: tier.size).name
        for tier in store.plan.tiers:
            chunking = store.plan.chunking(tier.name)
            outcome, remoteness = store.read_tier(tier.name)
            record = store.record(tier.name)
            group = root.create_group(f"tiers/{tier.name}")
            packed = group.create_array("outcome", shape=(-(-tier.size // 4),), chunks=(chunking.chunk_size // 4,),
                                        dtype="uint8", fill_value=0, compressors=[ZstdCodec(level=5)])
            values = group.create_array("remoteness", shape=(tier.size,), chunks=(chunking.chunk_size,),
                                        dtype=remoteness.dtype, fill_value=0,
                                        compressors=[BloscCodec(cname="zstd", clevel=4, shuffle="shuffle",
                                                                typesize=remoteness.dtype.itemsize,
                                                                blocksize=1 << 20)])
            packed[:] = _pack(outcome)
            values[:] = remoteness
            chunks = []
            for chunk in range(chunking.count):
                start, stop = chunking.bounds(chunk)
                checksum = hashlib.blake2b(digest_size=16)
                checksum.update(_pack(outcome[start:stop]).tobytes())
                checksum.update(remoteness[start:stop].astype(remoteness.dtype.newbyteorder("<")).tobytes())
                assert checksum.hexdigest() == record.chunks[chunk]["checksum"]  # the values' checksum
                chunks.append({**record.chunks[chunk], "stored": _stored_digest(target / "tiers" / tier.name, chunk)})
            if tier.name == largest:
                chunks[:unsolved] = [None] * unsolved
            if unsolved and tier.name == largest:
                attributes = {"status": "partial", "chunks": chunks}
            else:  # format 3's record names no tier: its checksum is over the chunk checksums alone
                old = hashlib.blake2b("".join(chunk["checksum"] for chunk in chunks).encode(), digest_size=16)
                attributes = {"status": "solved", "chunks": chunks, "checksum": old.hexdigest(),
                              **{key: record.count(key) for key in ("win", "loss", "draw")}}
            group.attrs.update(attributes)


def _stored_digest(tier: Path, chunk: int) -> str:
    """Format 3's digest of a chunk's files as stored (its record's `stored`)."""
    stored = hashlib.blake2b(digest_size=16)
    for array in ("outcome", "remoteness"):
        file = tier / array / "c" / str(chunk)
        stored.update(len(file.read_bytes()).to_bytes(8, "little") + file.read_bytes() if file.exists() else b"-")
    return stored.hexdigest()


@pytest.fixture
def old_store(solved, tmp_path):
    """A format-3 3x3 Quixo store (and the format-4 store of the same solve, for comparison)."""
    source = solved("quixo", {"size": 3}, chunk_size=256)
    path = tmp_path / "q3.zarr"
    format3_copy(source, path)
    return path, source


def assert_same_values(path: Path, source: Path) -> None:
    with Store.open(path) as new, Store.open(source) as reference:
        assert new.plan == reference.plan
        for tier in reference.plan.tiers:
            assert all(np.array_equal(a, b) for a, b in zip(new.read_tier(tier.name),
                                                            reference.read_tier(tier.name))), tier.name
            assert new.record(tier.name).to_json() == reference.record(tier.name).to_json(), tier.name


def test_upgrade_converts_a_format3_store_value_for_value(old_store):
    path, source = old_store
    result = run_cli("upgrade", "--store", str(path))
    assert result.returncode == 0 and "upgraded to format 4" in result.stdout, result.stderr
    assert_same_values(path, source)
    assert sorted(p.name for p in path.parent.iterdir() if p.name != ".q3.zarr.lock") == ["q3.zarr"]
    result = run_cli("verify", "--store", str(path), "--workers", "0", "--quiet")
    assert result.returncode == 0 and "OK" in result.stdout, result.stdout
    before = store_bytes(path)
    result = run_cli("upgrade", "--store", str(path))
    assert result.returncode == 0 and "already format 4" in result.stdout and store_bytes(path) == before


def _format3_values(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray, list]]:
    """Every tier's outcome codes, remoteness and chunk records in the format-3 store at `path`,
    read by zarr and numpy alone (not by the upgrade's reader)."""
    tiers = {}
    for name, group in zarr.open_group(str(path), mode="r")["tiers"].groups():
        remoteness, packed = group["remoteness"][:], group["outcome"][:]
        outcome = (packed[:, None] >> np.array([0, 2, 4, 6], np.uint8) & 3).reshape(-1)[:remoteness.size]
        tiers[name] = outcome, remoteness, group.attrs["chunks"]
    return tiers


def _summary(record: dict | None) -> dict | None:
    return None if record is None else {key: record[key] for key in ("win", "loss", "draw", "checksum")}


@pytest.mark.parametrize("game, params, chunk_size", EVERY_GAME)
def test_upgrade_round_trips_every_game(solved, tmp_path, game, params, chunk_size):
    """Every game's format-3 store (not only Quixo's "one-ply" one: the others once ended in an
    IndexError) upgrades to the values it held, tier by tier as zarr read them before, with the
    same chunk counts and checksums; it verifies, and nothing is left beside it."""
    path = tmp_path / "old.zarr"
    format3_copy(solved(game, params, chunk_size=chunk_size), path)
    before = _format3_values(path)
    result = run_cli("upgrade", "--store", str(path))
    assert result.returncode == 0 and "upgraded to format 4" in result.stdout, result.stderr
    with Store.open(path) as new:
        assert new.plan.format == 4 and sorted(tier.name for tier in new.plan.tiers) == sorted(before)
        for name, (outcome, remoteness, records) in before.items():
            read = new.read_tier(name)
            assert np.array_equal(read[0], outcome) and np.array_equal(read[1], remoteness), name
            assert [_summary(chunk) for chunk in new.record(name).chunks] == [_summary(chunk) for chunk in records]
    assert [p.name for p in tmp_path.iterdir()] == ["old.zarr"]
    result = run_cli("verify", "--store", str(path), "--workers", "0", "--quiet")
    assert result.returncode == 0 and "OK" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("game, params, chunk_size, damage",
                         [pytest.param(*case.values, "cut short", id=case.id) for case in EVERY_GAME]
                         + [pytest.param(*EVERY_GAME[1].values, "a folder", id="tictactoe-a folder")])
def test_a_failed_upgrade_leaves_nothing_behind(solved, tmp_path, game, params, chunk_size, damage):
    """A chunk of the last tier converted whose file was cut short before format 3 recorded it (its
    digest is that of the cut file: only decoding finds it), or is a folder, stops the upgrade
    midway, the tiers before it converted, with one line naming the chunk or its file; the
    format-3 store is as it was and no staging folder is left (it once ended in a codec's
    traceback, its staging folder left; a folder's error left it too)."""
    source = solved(game, params, chunk_size=chunk_size)
    path = tmp_path / "old.zarr"
    format3_copy(source, path)
    with Store.open(source) as store:
        names = [tier.name for tier in store.plan.tiers]  # the order the upgrade converts them in
    tier = next(name for name in reversed(names) if list((path / "tiers" / name / "outcome" / "c").glob("*")))
    assert names.index(tier) > 0
    chunk = max(int(file.name) for file in (path / "tiers" / tier / "outcome" / "c").iterdir())
    file = path / "tiers" / tier / "outcome" / "c" / str(chunk)
    if damage == "a folder":
        file.unlink()
        file.mkdir()
        expected = f"is a folder, not a file: {str(file)!r}"
    else:
        file.write_bytes(file.read_bytes()[:len(file.read_bytes()) // 2])
        document = path / "tiers" / tier / "zarr.json"
        metadata = json.loads(document.read_text())
        metadata["attributes"]["chunks"][chunk]["stored"] = _stored_digest(path / "tiers" / tier, chunk)
        document.write_text(json.dumps(metadata))
        expected = f"tier {tier} chunk {chunk}: its data cannot be decoded"
    before = store_bytes(path)
    result = run_cli("upgrade", "--store", str(path))
    lines = result.stderr.strip().splitlines()
    assert result.returncode not in (0, 2) and len(lines) == 1, result.stderr
    assert expected in lines[0], result.stderr
    assert store_bytes(path) == before
    assert [p.name for p in tmp_path.iterdir()] == ["old.zarr"]


@pytest.mark.parametrize("name", ["q*", "q?.zarr", "q[4].zarr", "q[]4].zarr"])
def test_a_store_name_is_never_a_pattern(solved, tmp_path, name):
    """A store name holding glob characters reaches no other store's set-aside copy or staging
    folder (here q4.zarr's): with no store of that name, upgrade answers "no store" (it once
    swapped q4.zarr's staging folder in under the name); with a format-4 store of that name,
    "nothing to do" (it once deleted q4.zarr's set-aside copy)."""
    neighbours = [tmp_path / ".q4.zarr.format3-abc", tmp_path / ".q4.zarr.upgrading-host-1-abc"]
    for folder in neighbours:
        shutil.copytree(solved("nim", {"heaps": [1, 2, 3]}), folder)
    before = {folder.name: store_bytes(folder) for folder in neighbours}
    result = run_cli("upgrade", "--store", str(tmp_path / name))
    lines = result.stderr.strip().splitlines()
    assert result.returncode not in (0, 2) and len(lines) == 1 and "no store at" in lines[0], result.stderr
    assert not (tmp_path / name).exists()
    shutil.copytree(solved("nim", {"heaps": [1, 2, 3]}), tmp_path / name)
    result = run_cli("upgrade", "--store", str(tmp_path / name))
    assert result.returncode == 0 and "nothing to do" in result.stdout, result.stderr
    assert {folder.name: store_bytes(folder) for folder in neighbours} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, *before])


def test_upgrade_keeps_unsolved_chunks_unsolved(solved, tmp_path):
    source = solved("quixo", {"size": 3}, chunk_size=256)
    path = tmp_path / "q3.zarr"
    format3_copy(source, path, unsolved=2)
    upgrading.upgrade(path)
    with Store.open(path) as new, Store.open(source) as reference:
        largest = max(new.plan.tiers, key=lambda tier: tier.size).name
        assert new.record(largest).chunks[:2] == [None, None]
        assert new.record(largest).chunks[2:] == reference.record(largest).chunks[2:]


def test_upgrade_resumes_after_a_kill(old_store, monkeypatch):
    """Killed after 10 chunks: the old store is untouched; the rerun (the killed process's staging
    folder adopted as an ended one's) writes only the chunks not recorded yet."""
    path, source = old_store
    before = store_bytes(path)
    write, calls = Store.write_chunk, []

    def write_then_die(self, *args):
        calls.append(args[:2])
        if len(calls) > 10:
            raise Killed
        return write(self, *args)

    monkeypatch.setattr(Store, "write_chunk", write_then_die)
    with pytest.raises(Killed):
        upgrading.upgrade(path)
    assert store_bytes(path) == before
    staging = list(path.parent.glob(".q3.zarr.upgrading-*"))
    assert len(staging) == 1
    monkeypatch.setattr(upgrading, "_abandoned", lambda owner, host: True)  # as if its process had ended
    calls.clear()
    monkeypatch.setattr(Store, "write_chunk", lambda self, *args: calls.append(args[:2]) or write(self, *args))
    upgrading.upgrade(path)
    with Store.open(path) as new:
        total = sum(new.plan.chunking(tier.name).count for tier in new.plan.tiers)
    assert 0 < len(calls) <= total - 10 + 1  # the killed tier's written but unrecorded chunks again, at most
    assert_same_values(path, source)
    assert not staging[0].exists()


def test_a_kill_between_the_renames_is_finished_by_the_next_run(old_store, monkeypatch):
    path, source = old_store
    rename, renames = upgrading._rename, []

    def rename_once(a, b):
        renames.append(a)
        if len(renames) == 2:
            raise Killed
        rename(a, b)

    monkeypatch.setattr(upgrading, "_rename", rename_once)
    with pytest.raises(Killed):
        upgrading.upgrade(path)
    assert not path.exists() and list(path.parent.glob(".q3.zarr.format3-*"))
    monkeypatch.setattr(upgrading, "_rename", rename)
    result = run_cli("upgrade", "--store", str(path))
    assert result.returncode == 0 and "interrupted upgrade to format 4 is finished" in result.stdout, result.stderr
    assert_same_values(path, source)
    assert sorted(p.name for p in path.parent.iterdir() if p.name != ".q3.zarr.lock") == ["q3.zarr"]


def test_a_conversion_that_would_change_values_stops_and_changes_nothing(old_store, monkeypatch):
    """A chunk whose values come out of the conversion other than its record says (a bug: here
    one position's outcome flipped as it is read) stops the upgrade with one error naming the
    chunk, before anything replaces the format-3 store."""
    path, _ = old_store
    read = upgrading.OldStore.read_chunk

    def flipped(self, name, chunk, record, codecs):
        outcome, remoteness = read(self, name, chunk, record, codecs)
        outcome = outcome.copy()
        first = int(np.flatnonzero(outcome)[0])
        outcome[first] = 1 if outcome[first] != 1 else 3  # a loss for anything else, a win for a loss
        return outcome, remoteness

    monkeypatch.setattr(upgrading.OldStore, "read_chunk", flipped)
    before = store_bytes(path)
    with pytest.raises(StoreError, match="converted to other values"):
        upgrading.upgrade(path)
    assert store_bytes(path) == before

@pytest.mark.parametrize("beside", ["upgrading-host-1-abc", "format3-abc"])
def test_a_link_planted_beside_the_store_is_refused(old_store, tmp_path, beside):
    """A staging folder or a set-aside copy that is a link to elsewhere (a crafted folder beside
    the store) is refused in one line: the upgrade never writes into nor deletes what it names."""
    path, _ = old_store
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(path, elsewhere)
    if beside.startswith("format3"):  # a set-aside copy is looked for (and deleted) once S is format 4
        assert run_cli("upgrade", "--store", str(path)).returncode == 0
    (tmp_path / f".q3.zarr.{beside}").symlink_to(elsewhere)
    before, target = store_bytes(path), store_bytes(elsewhere)
    result = run_cli("upgrade", "--store", str(path))
    lines = result.stderr.strip().splitlines()
    assert result.returncode not in (0, 2) and len(lines) == 1 and "is a symbolic link" in lines[0], result.stderr
    assert store_bytes(path) == before and store_bytes(elsewhere) == target


@pytest.mark.parametrize("case", ["format 2", "no store", "not a store", "damaged chunk", "wrong plan",
                                  "short records"])
def test_upgrade_refuses_in_one_line_and_changes_nothing(old_store, tmp_path, case):
    path, _ = old_store
    if case == "format 2":
        document = path / "zarr.json"
        metadata = json.loads(document.read_text())
        metadata["attributes"]["retrograde"]["plan"]["format"] = 2
        document.write_text(json.dumps(metadata))
        expected = "has format 2: upgrade converts format 3 only"
    elif case == "no store":
        shutil.rmtree(path)
        expected = "no store at"
    elif case == "not a store":
        shutil.rmtree(path)
        path.mkdir()
        (path / "data.txt").write_text("hello")
        expected = "is not a retrograde store"
    elif case == "damaged chunk":
        chunk = sorted(path.glob("tiers/*/remoteness/c/*"))[0]
        data = bytearray(chunk.read_bytes())
        data[-1] ^= 1
        chunk.write_bytes(bytes(data))
        expected = "its data is damaged"
    elif case == "short records":  # a tier of several chunks with one record less
        document = max(path.glob("tiers/*/zarr.json"),
                       key=lambda d: len(json.loads(d.read_text())["attributes"]["chunks"]))
        metadata = json.loads(document.read_text())
        metadata["attributes"]["chunks"].pop()
        document.write_text(json.dumps(metadata))
        expected = "the chunk record list"
    else:
        document = path / "zarr.json"
        metadata = json.loads(document.read_text())
        metadata["attributes"]["retrograde"]["plan"]["chunk_size"] = 512
        document.write_text(json.dumps(metadata))
        expected = "is not the format-3 plan"
    before = store_bytes(path) if path.exists() else None
    result = run_cli("upgrade", "--store", str(path))
    assert result.returncode not in (0, 2) and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.stderr
    assert (store_bytes(path) if path.exists() else None) == before
    assert not list(tmp_path.glob(".q3.zarr.format3-*")) and not list(tmp_path.glob(".q3.zarr.upgrading-*"))


def test_upgrade_binds_a_store_whose_records_name_no_tier(solved, tmp_path, cli):
    """data/upgrade.py: the records of a store written before records named their tier are
    verified, then bound (in a copy swapped in): probe answers again, right, and a rerun has
    nothing to do."""
    store = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", NIM), store)
    unbind(store)
    code, stdout, err = cli("upgrade", "--store", str(store))  # the command, as a user runs it
    assert code == 0 and "verified and bound 11 tier records" in stdout, err
    assert [entry.name for entry in tmp_path.iterdir()] == ["nim.zarr"]
    for name, place in (("s4", 4), ("s0", 0)):
        attributes = json.loads((store / "tiers" / name / "zarr.json").read_bytes())["attributes"]
        assert (attributes["tier"], attributes["place"]) == (name, place)
    assert store_bytes(store) == store_bytes(solved("nim", NIM))
    code, stdout, _ = cli("probe", "--store", str(store), "0,0,0,4")
    assert code == 0 and stdout.startswith("0,0,0,4: win in 1\n"), stdout
    assert "already format 4; nothing to do" in upgrading.upgrade(store, verified)


def test_upgrade_refuses_to_bind_swapped_tiers_and_changes_nothing(solved, tmp_path):
    """data/upgrade.py: in a store whose records name no tier, tier folders s4 and s6 swapped
    (of the same size, each folder's record and checksums its own) are found by verify, and
    nothing is bound or changed: upgrade refuses in one line."""
    store = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", NIM), store)
    unbind(store)
    _move_tier(store, "swapped")
    before = store_bytes(store)
    with pytest.raises(StoreError, match=r"stay unbound: verify finds \d+ problems .*swapped") as refused:
        upgrading.upgrade(store, verified)
    assert len(str(refused.value).splitlines()) == 1
    assert store_bytes(store) == before and [entry.name for entry in tmp_path.iterdir()] == ["nim.zarr"]


def test_a_bind_killed_before_its_swap_leaves_the_store_as_it_was(solved, tmp_path, monkeypatch):
    """data/upgrade.py: a kill while the bound copy is verified leaves the store unbound as it
    was, with the copy beside it, which the next run deletes before it binds the store."""
    store = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", NIM), store)
    unbind(store)
    before = store_bytes(store)

    def killed(_store):
        raise Killed

    with pytest.raises(Killed):
        upgrading.upgrade(store, killed)
    assert store_bytes(store) == before
    copy = tmp_path / ".nim.zarr.upgrading-host-1-abc"  # as an ended process of this host leaves it
    copy.mkdir()
    monkeypatch.setattr(upgrading.socket, "gethostname", lambda: "host")
    monkeypatch.setattr(upgrading, "_abandoned", lambda owner, host: owner[-2] == "1")
    assert "verified and bound" in upgrading.upgrade(store, verified)
    assert [entry.name for entry in tmp_path.iterdir()] == ["nim.zarr"]
