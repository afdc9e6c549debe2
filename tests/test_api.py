"""The Python API (retrograde.open_store): docs/api.md's examples, known values, errors, read-only."""

from __future__ import annotations

import doctest
import itertools
import json
import re
import shutil
import subprocess
import sys
from functools import reduce
from operator import xor
from pathlib import Path

import numpy as np
import pytest
import zarr

import quixo_reference as qref
import reference as ref
import retrograde
from conftest import assert_same_store, run_cli, store_bytes
from retrograde.agents.lookup import LookupAgent
from retrograde.data.store import Store
from retrograde.errors import BadOption, BadPosition, StoreError
from retrograde.games import make_game

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
NIM = {"heaps": [1, 3, 5, 7]}
QUIXO3 = {"size": 3}
#: The stores the examples of docs/api.md read, as the commands it names make them.
DOC_STORES = {"ttt.zarr": ("tictactoe", None), "nim.zarr": ("nim", NIM), "q3.zarr": ("quixo", QUIXO3)}
SENTINEL = object()


def doc_examples() -> str:
    """The code blocks of docs/api.md, in order (at least the 5 it had when it left the README:
    a move of the text must not leave the test with nothing to run)."""
    blocks = re.findall(r"```python\n(.*?)```", API_DOC.read_text(), flags=re.S)
    assert len(blocks) >= 5
    return "\n".join(blocks)


@pytest.fixture
def partial_ttt(tmp_path, solved) -> Path:
    """A copy of the solved tic-tac-toe store whose tier k3 is back to pending."""
    path = tmp_path / "partial.zarr"
    shutil.copytree(solved("tictactoe"), path)
    group = zarr.open_group(str(path / "tiers" / "k3"), mode="r+")
    group.attrs.put({"tier": "k3", "place": group.attrs["place"], "status": "pending",
                     "chunks": [None] * len(group.attrs["chunks"])})
    return path


def test_api_doc_examples_run(tmp_path, solved, monkeypatch):
    for name, (game, params) in DOC_STORES.items():
        shutil.copytree(solved(game, params), tmp_path / name)
    before = {name: store_bytes(tmp_path / name) for name in DOC_STORES}
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(doc_examples(), {}, "docs/api.md", str(API_DOC), 0)
    report = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    assert runner.tries >= 35  # every example of docs/api.md, value_kept weighted by symmetry among them
    for name in DOC_STORES:
        assert store_bytes(tmp_path / name) == before[name], f"the examples changed {name}"


def test_known_values(solved):
    with retrograde.open_store(solved("tictactoe")) as ttt:
        start = ttt.probe(ttt.initial_position)
        assert (start.value, start.remoteness) == ("draw", None)
        assert str(start.position) == ".../.../... x" and len(start.moves) == 9
        win = ttt.probe("xx./oo./... x")
        assert (win.value, win.remoteness) == ("win", 1)
        assert [(m.move, m.value, m.remoteness) for m in win.best_moves] == [("c1", "win", 1)]
        over = ttt.probe("xxx/oo./... o")
        assert (over.value, over.remoteness, over.moves, over.best_moves) == ("loss", 0, (), ())
    with retrograde.open_store(solved("quixo", QUIXO3)) as quixo:
        assert quixo.probe(".../.../... x").value == "win"  # 3x3 Quixo: the first player wins


def test_nim_values_are_boutons(solved):
    """Every position of nim 1,3,5,7: a loss for the side to move iff the heaps' XOR is 0."""
    heaps = [",".join(map(str, h)) for h in itertools.product(*(range(n + 1) for n in NIM["heaps"]))]
    with retrograde.open_store(solved("nim", NIM)) as nim:
        found = nim.values(heaps)
    assert [str(v.position) for v in found] == heaps
    for v in found:
        nim_sum = reduce(xor, map(int, str(v.position).split(",")))
        assert v.value == ("loss" if nim_sum == 0 else "win"), v
        assert v.remoteness is not None and (v.remoteness == 0) == (str(v.position) == "0,0,0,0")
    with retrograde.open_store(solved("nim", NIM)) as nim:
        for text in ("1,3,5,6", "1,2,3,3", "0,3,0,7"):
            for move in nim.best_moves(text):  # a winning move leaves XOR 0
                assert move.value == "win"
                assert reduce(xor, map(int, str(move.position).split(","))) == 0


@pytest.mark.parametrize(("game", "params", "positions"), [
    ("tictactoe", None, [".../.../... x", "xx./oo./... x", "x../o../x.. o", "xox/oxo/ox. x"]),
    ("nim", NIM, ["1,3,5,7", "1,3,5,6", "0,0,0,0"]),
    ("quixo", QUIXO3, [".../.../... x", "xo./.x./o.. x", "XO./.X./O.. O", "xxo/oox/x.. o"]),
])
def test_probe_matches_cli_probe_json(solved, game, params, positions):
    path = solved(game, params)
    result = run_cli("probe", "--store", str(path), "--json", *positions)
    assert result.returncode == 0, result.stderr
    expected = [json.loads(line) for line in result.stdout.splitlines()]
    with retrograde.open_store(path) as store, Store.open(path) as raw:
        agent = LookupAgent(raw.game, store=raw, seed=0)
        for text, want in zip(positions, expected, strict=True):
            got = store.probe(text)
            assert str(got.position) == want["position"]
            assert (got.value, got.remoteness) == (want["value"], want["remoteness"])
            assert [(m.move, str(m.position), m.value, m.remoteness) for m in got.moves] == [
                (m["move"], m["position"], m["value"], m["remoteness"]) for m in want["moves"]]
            assert [m.move for m in got.best_moves] == [m.move for m in agent.best_moves(got.position.state)]
            assert store.best_moves(text) == got.best_moves
            assert store.get(text) == got


def test_missing_tiers(partial_ttt):
    with retrograde.open_store(partial_ttt) as store:
        assert store.tiers["k3"].status == "pending" and store.tiers["k4"].status == "solved"
        with pytest.raises(retrograde.MissingTierError, match=r"'x\.\./o\.\./x\.\. o'.*tier k3 is not solved"):
            store.probe("x../o../x.. o")
        with pytest.raises(KeyError):  # a MissingTierError is a KeyError, as a dict's miss is
            store.probe("x../.o./... x")  # k2: its moves lead into k3
        assert store.get("x../o../x.. o", SENTINEL) is SENTINEL
        assert store.get("x../.o./...") is None
        assert store.get("xx./oo./... x").value == "win"  # k4 and k5 are solved
        with pytest.raises(BadPosition, match="'xxx/ooo/... x'"):  # bad text raises from get too
            store.get("xxx/ooo/... x", SENTINEL)
        with pytest.raises(retrograde.MissingTierError, match=r"partial\.zarr'.*tier k3 is not solved"):
            store.tier("k3")
        with pytest.raises(retrograde.MissingTierError, match="k3"):
            store.values(["xx./oo./... x", "x../o../x.. o"])
        for unknown in (lambda: store.tier("k10"), lambda: store.position_at("m0o0", 0)):
            with pytest.raises(retrograde.MissingTierError, match="not part of this store"):
                unknown()


def test_positions_and_reprs(solved):
    path = solved("tictactoe")
    with retrograde.open_store(path) as store, retrograde.open_store(path) as again:
        assert repr(store) == f"<SolvedStore {str(path)!r} tictactoe>"
        position = store.position("x../.o./...")
        assert repr(position) == "Position('x../.o./... x', game='tictactoe')"
        assert str(position) == "x../.o./... x"
        assert position == again.position("x../.o./... x") and hash(position) == hash(again.position(str(position)))
        assert position != store.position("x../..o/... x") and position != str(position)
        assert store.position(position) is position
        assert (position.tier, position.index) == store.game.locate(position.state)
        assert store.position_at(position.tier, position.index) == position
        assert "x to move" in position.render()
        assert all(isinstance(m.position, retrograde.Position) for m in store.probe(position).moves)
        with pytest.raises(IndexError, match="k2"):
            store.position_at("k2", store.tiers["k2"].size)
        with retrograde.open_store(solved("nim", NIM)) as nim:
            assert repr(nim.position("1,3,5,7")) == "Position('1,3,5,7', game='nim')"
            with pytest.raises(BadPosition, match=r"Position\('1,3,5,7', game='nim'\)"):
                store.probe(nim.position("1,3,5,7"))
        with pytest.raises(BadPosition, match="'x'"):
            store.probe("x")
    store.close()  # closing twice is fine
    assert repr(store).endswith("(closed)>")
    with pytest.raises(StoreError, match="is closed"):
        store.probe("x../.o./... x")
    with pytest.raises(StoreError, match="no store at"):
        retrograde.open_store(path.parent / "missing.zarr")


def test_reading_never_writes(tmp_path, solved):
    path = tmp_path / "ttt.zarr"
    shutil.copytree(solved("tictactoe"), path)
    before = store_bytes(path)
    with retrograde.open_store(path) as store:
        store.probe(store.initial_position)
        store.values(["xx./oo./... x", "x../.o./..."])
        for name in store.tiers:
            store.tier(name)
        with pytest.raises(BadPosition):
            store.get("nonsense")
    assert store_bytes(path) == before


def class_size(game: str, text: str) -> int:
    """How many positions a stored one stands for: its board's distinct images under the symmetries
    of the square (the tests' references), 1 for Nim."""
    if game == "nim":
        return 1
    cells = text.split()[0].replace("/", "")
    return len(ref.ttt_images(cells)) if game == "tictactoe" else len(set(qref.images(cells)))


@pytest.mark.parametrize(("game", "params"), [("tictactoe", None), ("nim", NIM), ("quixo", QUIXO3)])
def test_tier_arrays_match_recorded_counts(solved, game, params):
    path = solved(game, params)
    root = zarr.open_group(str(path), mode="r")
    with retrograde.open_store(path) as store:
        assert list(store.tiers) == [t["name"] for t in root.attrs["retrograde"]["plan"]["tiers"]]
        for name, info in store.tiers.items():
            attrs = root[f"tiers/{name}"].attrs
            values = store.tier(name)
            assert values.name == name and values.outcome.shape == values.remoteness.shape == (info.size,)
            counts = np.zeros(4, dtype=np.int64)  # each stored position counts its symmetry class
            for index in np.flatnonzero(values.outcome).tolist():
                counts[values.outcome[index]] += class_size(game, str(store.position_at(name, index)))
            assert (counts[3], counts[1], counts[2]) == (attrs["win"], attrs["loss"], attrs["draw"]), name
            assert (info.win, info.loss, info.draw, info.status) == (attrs["win"], attrs["loss"], attrs["draw"],
                                                                     "solved")
            assert not values.remoteness[values.outcome == 2].any()


def test_import_stays_light():
    """`import retrograde` runs on every CLI call: the API (zarr, numpy) loads on first use."""
    code = ("import sys, retrograde\n"
            "assert not {'zarr', 'numpy', 'retrograde.api'} & set(sys.modules), sorted(sys.modules)\n"
            "assert retrograde.open_store.__module__ == 'retrograde.api' and 'open_store' in dir(retrograde)\n"
            "from retrograde import *\n"
            "assert SolvedStore and Position and MissingTierError\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        retrograde.nope


def test_solve_takes_the_solve_commands_entry_and_gives_its_bytes(tmp_path, solved):
    """`retrograde.solve` makes the store `retrograde solve` makes, byte for byte; a second call
    leaves it as it is; a game the registry lacks is refused in one line, nothing written."""
    with retrograde.solve("nim --heaps 1,3,5,7", tmp_path / "nim.zarr") as nim:
        assert nim.probe("1,3,5,7").value == "loss"
    assert_same_store(tmp_path / "nim.zarr", solved("nim", NIM), "the API's solve")
    before = store_bytes(tmp_path / "nim.zarr")
    retrograde.solve(make_game("nim", NIM), tmp_path / "nim.zarr").close()
    assert store_bytes(tmp_path / "nim.zarr") == before
    with pytest.raises(BadOption, match="unknown game 'chess'"):
        retrograde.solve("chess", tmp_path / "chess.zarr")
    assert not (tmp_path / "chess.zarr").exists()
