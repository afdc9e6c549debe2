"""The store (data/store.py): its cache of decoded chunks, the indices `read_values` takes, a
plan that lacks a key, tier records bound to their tiers (a store whose records are not is
refused, naming upgrade), and staging folders found by name."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest

from retrograde.data import probing
from retrograde.data.plan import make_plan
from retrograde.data.store import Store, TierRecord, _record_document
from retrograde.errors import DamagedStore, StoreError
from retrograde.games import make_game

#: Nim whose tiers s4 and s6 hold 20 positions each; 0,0,0,4 (in s4) is a win in 1.
NIM = {"heaps": [1, 2, 3, 4]}


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


def test_a_plan_without_one_of_its_keys_names_it(solved, tmp_path):
    """data/store.py: a store whose plan lacks a key (here `encoding`) is damaged, and the one line
    names the key."""
    path = tmp_path / "ttt.zarr"
    shutil.copytree(solved("tictactoe"), path)
    document = json.loads((path / "zarr.json").read_text())
    del document["attributes"]["retrograde"]["plan"]["encoding"]
    (path / "zarr.json").write_text(json.dumps(document))
    with pytest.raises(DamagedStore, match="KeyError: 'encoding'"):
        Store.open(path)


def _move_tier(store, how: str) -> None:
    """Tier folder s6 put where s4 was: `swapped` (s4 where s6 was), `renamed` (s4 deleted first),
    `copied` (s6 stays too), or `relabelled` (swapped, then each record's tier and place rewritten
    to name the folder it is in, its checksum left as it is)."""
    tiers = store / "tiers"
    if how in ("swapped", "relabelled"):
        (tiers / "s4").rename(tiers / "held")
        (tiers / "s6").rename(tiers / "s4")
        (tiers / "held").rename(tiers / "s6")
    else:
        shutil.rmtree(tiers / "s4")
        (shutil.copytree if how == "copied" else os.rename)(tiers / "s6", tiers / "s4")
    if how == "relabelled":
        for name, place, other, other_place in (("s4", 4, "s6", 6), ("s6", 6, "s4", 4)):
            document = tiers / name / "zarr.json"
            held = f'"tier": "{other}",\n    "place": {other_place},'.encode()
            assert document.read_bytes().count(held) == 1
            document.write_bytes(document.read_bytes().replace(held, f'"tier": "{name}",\n    "place": {place},'.encode()))


@pytest.mark.parametrize("how", ["swapped", "renamed", "copied", "relabelled"])
def test_a_tier_folder_in_another_tiers_place_is_refused_by_every_reader(solved, tmp_path, cli, how):
    """data/store.py: a tier's record names its tier and its place in the plan (and a solved
    tier's checksum covers both): tier s6's folder where s4's belongs (of the same size) is
    refused, in one line naming s4, by probe and by every Python read path; never answered
    (the old answer for 0,0,0,4 was s6's 'win in 5', the truth 'win in 1')."""
    store = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", NIM), store)
    code, stdout, _ = cli("probe", "--store", str(store), "0,0,0,4")
    assert code == 0 and stdout.startswith("0,0,0,4: win in 1\n"), stdout
    with Store.open(store) as opened:
        truth = opened.read_tier("s6")
        assert opened.plan.tier("s4").size == opened.plan.tier("s6").size
    _move_tier(store, how)
    code, stdout, stderr = cli("probe", "--store", str(store), "0,0,0,4")
    assert code != 0 and stdout == "" and len(stderr.strip().splitlines()) == 1, (code, stdout, stderr)
    assert "tier s4" in stderr and "damaged" in stderr and "Traceback" not in stderr, stderr
    code, stdout, _ = cli("verify", "--store", str(store), "--workers", "0", "--quiet")
    assert code == 1 and "FAILED" in stdout and "tier s4: " in stdout, stdout
    refused = "tier s4: " + ("the status, counts or checksum" if how == "relabelled" else
                             "its document tiers/s4/zarr.json is damaged .it is the record of tier 's6' at place 6")
    with Store.open(store) as opened:
        game = opened.game
        for read in (lambda: opened.record("s4"), lambda: opened.require_solved("s4"), lambda: opened.read_tier("s4"),
                     lambda: opened.read_chunk_raw("s4", 0), lambda: opened.read_chunk_outcome("s4", 0),
                     lambda: opened.read_values("s4", np.arange(20)),
                     lambda: probing.values(opened, [game.parse("0,0,0,4")])):
            with pytest.raises(DamagedStore, match=refused):
                read()
        if how == "copied":  # the tier copied from is still itself
            assert all(np.array_equal(a, b) for a, b in zip(opened.read_tier("s6"), truth))
        else:
            with pytest.raises(DamagedStore, match="tier s6: "):
                opened.read_tier("s6")


def test_a_created_store_binds_its_unsolved_tiers_too(tmp_path):
    """data/store.py: a store is created with every tier's record naming its tier: two unsolved
    tier folders swapped are refused when a solve would read their records (and then write into
    the wrong folder)."""
    store = tmp_path / "nim.zarr"
    Store.create(store, make_plan(make_game("nim", NIM))).close()
    _move_tier(store, "swapped")
    with Store.open(store, mode="r+") as opened:
        assert opened.record("s5").status == "pending"
        for name, other in (("s4", "s6"), ("s6", "s4")):
            with pytest.raises(DamagedStore, match=f"tier {name}: .* the record of tier '{other}'"):
                opened.record(name)


def unbind(store) -> None:
    """Every tier record of `store` written again as retrograde wrote it before records named
    their tier: no tier and place, a checksum over the chunk checksums alone (the store's own
    writer, given a record that names no tier)."""
    for document in (store / "tiers").glob("*/zarr.json"):
        chunks = json.loads(document.read_bytes())["attributes"]["chunks"]
        document.write_bytes(_record_document(TierRecord(chunks)))
    attributes = json.loads((store / "tiers" / "s4" / "zarr.json").read_bytes())["attributes"]
    old = hashlib.blake2b("".join(chunk["checksum"] for chunk in attributes["chunks"]).encode(), digest_size=16)
    assert "tier" not in attributes and attributes["checksum"] == old.hexdigest()


@pytest.mark.parametrize("command", ["probe", "status", "verify", "solve"])
def test_a_store_whose_records_name_no_tier_is_refused_naming_upgrade(solved, tmp_path, cli, command):
    """data/store.py: a store written before records named their tier (where a swapped tier
    folder would be answered) is refused when a tier's record is first read, by every command
    and read path, in one line naming `retrograde upgrade`; nothing on disk changes."""
    store = tmp_path / "nim.zarr"
    shutil.copytree(solved("nim", NIM), store)
    unbind(store)
    before = {path: path.read_bytes() for path in store.rglob("*") if path.is_file()}
    args = {"probe": ["--store", str(store), "0,0,0,4"], "status": ["--store", str(store)],
            "verify": ["--store", str(store), "--quiet"],
            "solve": ["nim", "--heaps", "1,2,3,4", "--store", str(store), "--quiet"]}[command]
    code, stdout, stderr = cli(command, *args)
    assert code not in (0, 3) and len(stderr.strip().splitlines()) == 1, (code, stdout, stderr)
    assert "predate their binding" in stderr and f"retrograde upgrade --store {store}" in stderr, stderr
    assert "Traceback" not in stderr and "win in" not in stdout
    with Store.open(store) as opened:
        for read in (lambda: opened.record("s4"), lambda: opened.read_tier("s4"),
                     lambda: probing.values(opened, [opened.game.parse("0,0,0,4")])):
            with pytest.raises(StoreError, match="retrograde upgrade"):
                read()
    assert {path: path.read_bytes() for path in store.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize("name", ["q*", "q?", "[q]", "q[4]", "q]"])
def test_creating_a_store_finds_its_own_staging_folders_by_name_not_by_glob(tmp_path, name):
    """data/store.py: a store name holding glob characters is no pattern: creating it removes its
    own staging folder left by an ended process, and never another store's ('q*' and 'q?' match
    '.q4.planning-...'; '[q]' does not match its own '.[q].planning-...')."""
    host = socket.gethostname()
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    own = tmp_path / f".{name}.planning-{host}-{ended.pid}-0123"
    others = [tmp_path / f".{other}.planning-{host}-{ended.pid}-4567" for other in ("q4", "q", "q.zarr")]
    for folder in (own, *others):
        (folder / "tiers").mkdir(parents=True)
    Store.create(tmp_path / name, make_plan(make_game("nim", {"heaps": [1]}))).close()
    assert not own.exists(), "the store's own staging folder, left by an ended process, stayed"
    assert all(other.is_dir() for other in others), "another store's staging folder was deleted"
