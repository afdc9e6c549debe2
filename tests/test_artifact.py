"""Training artifacts on disk (data/artifact.py): what loading refuses, an artifact trained for
another game and an .npz whose metadata holds pickles."""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrograde.data import artifact
from retrograde.errors import BadAgent
from retrograde.games import make_game


def test_an_artifact_trained_for_another_game_is_refused(tmp_path):
    """artifact.py: a `ga` artifact whose metadata names another game (nim) is refused for
    tic-tac-toe, in one line naming the game it was trained for."""
    path = tmp_path / "ga.json"
    path.write_text(json.dumps({"format": artifact.FORMAT, "learner": "ga", "version": artifact.VERSION,
                                "game": {"name": "nim", "params": {"heaps": [3]}}}))
    with pytest.raises(BadAgent, match="trained for nim"):
        artifact.load_artifact(path, "ga", make_game("tictactoe"))


def test_metadata_of_an_npz_holding_pickles_is_refused(tmp_path):
    """data/artifact.py: an .npz whose `metadata` member is a pickled object array is refused
    (ValueError) and never unpickled: a crafted artifact runs no code."""
    path = tmp_path / "crafted.npz"
    np.savez(path, metadata=np.array(['{"format": "retrograde-training"}'], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        artifact.read_metadata(path)
