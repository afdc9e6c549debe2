"""docs/STORE.md must stay true: its recipe reads any game's values with plain zarr + numpy."""

import contextlib
import hashlib
import io
import os
import random
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import zarr

import retrograde
from conftest import run_cli, store_bytes

DOC = Path(__file__).resolve().parents[1] / "docs" / "STORE.md"
NIM = {"heaps": [1, 3, 5, 7]}
QUIXO3 = {"size": 3}


def recipe(game: str) -> str:
    """The shared block of STORE.md's recipe followed by the block for `game`."""
    text = DOC.read_text()
    section = text[text.index("## Reading one value with zarr and numpy"):]
    common, nim, tictactoe, quixo = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return common + {"nim": nim, "tictactoe": tictactoe, "quixo": quixo}[game]


def run_recipe(code: str, store: Path, position: str, monkeypatch) -> tuple[str, int, str, str]:
    """Run the recipe in this process (fast, for many positions); returns its printed words."""
    monkeypatch.setenv("STORE", str(store))
    monkeypatch.setenv("POSITION", position)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "store_doc"})
    tier, index, value, remoteness = out.getvalue().split()
    return tier, int(index), value, remoteness


def sample_positions(store: retrograde.SolvedStore, count: int, *, seed: int) -> list[str]:
    """Positions drawn from every tier of a store (both sides to move where the game allows)."""
    rng = random.Random(seed)
    positions = []
    for name, info in store.tiers.items():
        for index in rng.sample(range(info.size), min(count, info.size)):
            position = store.position_at(name, index)
            if position is not None:
                positions.append(str(position))
    return positions


def mirrored(text: str) -> str:
    """A Quixo position with the colours swapped: the same board seen by the other side."""
    return text.translate(str.maketrans("xo", "ox"))


def turned(text: str) -> str:
    """The position's board a quarter turn round, then mirrored: a board that shares the position's
    value but, unless it is symmetric, is kept at another index (its class's representative)."""
    board, *side = text.split()
    rows = board.split("/")
    turn = ["".join(rows[len(rows) - 1 - r][c] for r in range(len(rows)))[::-1] for c in range(len(rows))]
    return " ".join(["/".join(turn), *side])


CASES = [("nim", NIM, "1,3,5,7", ("s16", "0", "loss", "16")),
         ("tictactoe", None, "xx./oo./... x", ("k4", "2", "win", "1")),
         ("quixo", QUIXO3, ".../.../... x", ("m0o0", "0", "win", "7"))]


@pytest.mark.parametrize(("game", "params", "position", "expected"), CASES, ids=[c[0] for c in CASES])
def test_recipe_runs_alone_with_zarr_and_numpy(solved, game, params, position, expected):
    code = recipe(game) + "\nimport sys\nassert 'retrograde' not in sys.modules, 'the recipe imported retrograde'\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, STORE=str(solved(game, params)), POSITION=position))
    assert result.returncode == 0, result.stderr
    assert tuple(result.stdout.split()) == expected


@pytest.mark.parametrize(("game", "params", "per_tier"), [
    ("nim", NIM, 10), ("nim", {"heaps": [3, 4, 2], "max_take": 2}, 10), ("tictactoe", None, 40),
    ("quixo", QUIXO3, 6)])  # 55 tiers
def test_recipe_agrees_with_the_api_in_every_tier(solved, monkeypatch, game, params, per_tier):
    path = solved(game, params)
    code = recipe(game)
    with retrograde.open_store(path) as store:
        positions = sample_positions(store, per_tier, seed=1)
        if game != "nim":  # the symmetric images of the stored boards, read at their representatives
            positions += [turned(text) for text in positions]
        if game == "quixo":
            positions += [mirrored(text) for text in positions]
        assert len(positions) > 30
        for text, found in zip(positions, store.values(positions)):
            got = run_recipe(code, path, text, monkeypatch)
            assert got == (found.position.tier, found.position.index, found.value, str(found.remoteness)), text


def test_recipe_rank_matches_the_game(solved, monkeypatch):
    """The tic-tac-toe example of the doc sits where the game's own ranking puts it."""
    from retrograde.games import make_game

    tier, index, _, _ = run_recipe(recipe("tictactoe"), solved("tictactoe"), "xx./oo./... x", monkeypatch)
    game = make_game("tictactoe")
    assert game.locate(game.parse("xx./oo./...")) == (tier, index)


def test_store_layout_matches_doc(solved):
    root = zarr.open_group(str(solved("nim", NIM, chunk_size=8)), mode="r")
    plan = root.attrs["retrograde"]["plan"]
    assert plan["format"] == 4 and plan["game"] == "nim" and plan["remoteness_dtype"] == "uint8"
    assert plan["encoding"] == "plain"
    for place, tier in enumerate(plan["tiers"]):
        group = root[f"tiers/{tier['name']}"]
        assert group["outcome"].dtype == "uint8" and group["outcome"].shape == (-(-tier["size"] // 4),)
        assert group["outcome"].chunks == (tier["chunk_size"] // 4,)
        assert group["remoteness"].dtype == "uint8" and group["remoteness"].shape == (tier["size"],)
        assert group["remoteness"].chunks == (tier["chunk_size"],)
        attrs = group.attrs
        assert attrs["status"] == "solved"
        assert len(attrs["chunks"]) == -(-tier["size"] // tier["chunk_size"])
        assert attrs["win"] + attrs["loss"] + attrs["draw"] == tier["size"]
        assert set(attrs["chunks"][0]) == {"win", "loss", "draw", "checksum", "stored"}
        assert (attrs["tier"], attrs["place"]) == (tier["name"], place)  # the record names its tier
        bound = f"{tier['name']}\n{place}\n" + "".join(record["checksum"] for record in attrs["chunks"])
        assert attrs["checksum"] == hashlib.blake2b(bound.encode(), digest_size=16).hexdigest(), tier["name"]
        for chunk, record in enumerate(attrs["chunks"]):  # the stored digest, as STORE.md says
            digest = hashlib.blake2b(digest_size=16)
            for array in ("outcome", "remoteness"):
                file = Path(root.store.root) / "tiers" / tier["name"] / array / "c" / str(chunk)
                digest.update(len(file.read_bytes()).to_bytes(8, "little") + file.read_bytes()
                              if file.exists() else b"-")
            assert record["stored"] == digest.hexdigest(), (tier["name"], chunk)


@pytest.mark.parametrize("command", [("status",), ("probe", "1,3,5,7"), ("verify",),
                                     ("solve", "nim", "--heaps", "1,3,5,7")], ids=lambda command: command[0])
def test_a_store_of_an_older_format_is_refused_in_one_line(tmp_path, solved, command):
    """A format 2 store (every board kept, before symmetry classes) is refused by every command, in
    one line that says what to do, and is left as it was."""
    path = tmp_path / "old.zarr"
    shutil.copytree(solved("nim", NIM), path)
    document = path / "zarr.json"
    metadata = json.loads(document.read_text())
    metadata["attributes"]["retrograde"]["plan"]["format"] = 2
    document.write_text(json.dumps(metadata))
    before = store_bytes(path)
    name, *rest = command
    result = run_cli(name, *rest[:1] if name == "solve" else (), "--store", str(path),
                     *(rest[1:] if name == "solve" else rest))
    assert result.returncode not in (0, 2) and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"retrograde: error: store {str(path)!r} has format 2; this version reads format 4 only: "
        f"solve the game again into a new store"], result.stderr
    assert store_bytes(path) == before
