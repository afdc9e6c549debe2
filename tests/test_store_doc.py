"""docs/STORE.md must stay true: its snippet reads a value with plain zarr + numpy."""

import os
import re
import subprocess
import sys
from pathlib import Path

import zarr

DOC = Path(__file__).resolve().parents[1] / "docs" / "STORE.md"


def test_store_doc_snippet_reads_a_value(solved):
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)[-1]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, STORE=str(solved("tictactoe"))), timeout=120)
    assert result.returncode == 0, result.stderr
    tier, index, value, remoteness = result.stdout.split()
    assert (tier, value, remoteness) == ("k4", "win", "1")
    from retrograde.games import make_game

    game = make_game("tictactoe")
    assert game.locate(game.parse("xx./oo./...")) == ("k4", int(index))


def test_store_layout_matches_doc(solved):
    root = zarr.open_group(str(solved("nim", {"heaps": [1, 3, 5, 7]}, chunk_size=8)), mode="r")
    plan = root.attrs["retrograde"]["plan"]
    assert plan["format"] == 1 and plan["game"] == "nim" and plan["remoteness_dtype"] == "uint8"
    for tier in plan["tiers"]:
        group = root[f"tiers/{tier['name']}"]
        assert group["outcome"].dtype == "uint8" and group["outcome"].shape == (-(-tier["size"] // 4),)
        assert group["outcome"].chunks == (tier["chunk_size"] // 4,)
        assert group["remoteness"].dtype == "uint8" and group["remoteness"].shape == (tier["size"],)
        assert group["remoteness"].chunks == (tier["chunk_size"],)
        attrs = group.attrs
        assert attrs["status"] == "solved"
        assert len(attrs["chunks"]) == -(-tier["size"] // tier["chunk_size"])
        assert attrs["win"] + attrs["loss"] + attrs["draw"] == tier["size"]
        assert set(attrs["chunks"][0]) == {"win", "loss", "draw", "checksum"}
