"""The CLI answers at once (issue 34, point 2): `--help` of every command, usage errors and the
refusals that need no store import none of the heavy machinery (numba, dask, zarr, matplotlib,
...). The import list is held here, not a time: a module imported before the arguments are
checked would put its import time back on every mistyped command."""

import json
import subprocess
import sys

#: Modules no `--help`, usage error or store-free refusal may import (each costs 0.1 s to seconds);
#: numpy only where a game is named (the games' modules need it), or a store is read.
HEAVY = ("numpy", "numba", "llvmlite", "dask", "distributed", "jax", "matplotlib", "flask", "zarr", "scipy",
         "torch")

#: Runs the first cases given, then `--help` of the CLI, of every command and of every game's
#: solve and plan, then the last cases given, in order, in one fresh interpreter: each one's exit
#: status and the heavy modules it imported beyond those it may (each case names those); the
#: first case that imports one is the culprit (later ones would carry it, so the cases that may
#: import none come first, and those that may import zarr last).
PROBE = """
import json, sys
from retrograde.cli import cli, main


def ran(cases):
    found = []
    for argv, expected, allowed in cases:
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code
        found.append([argv, code, expected, sorted(m for m in json.loads(sys.argv[2])
                                                   if m in sys.modules and m not in allowed)])
    return found


first, last = json.loads(sys.argv[1])
found = ran(first)
from retrograde.games import GAMES

helps = [[["--help"], 0, ["numpy"]], *[[[name, "--help"], 0, ["numpy"]] for name in cli.commands],
         *[[[command, game, "--help"], 0, ["numpy"]] for command in ("solve", "plan") for game in GAMES]]
print(json.dumps(found + ran(helps + last)))
"""


def usage_errors(tmp) -> list[tuple[list[str], int]]:
    """Command lines refused before any work, with their exit status; `tmp` is an empty folder."""
    store, out = f"{tmp}/s.zarr", f"{tmp}/out"
    nim = ["nim", "--heaps", "1,2"]
    return [
        (["--version"], 0),
        (["nosuch"], 2),
        (["solve"], 2),
        (["solve", "nosuch", "--store", store], 2),
        (["solve", "nim", "--heaps", "x", "--store", store], 2),
        (["solve", "nim", "--heaps", "1,2"], 2),
        (["solve", *nim, "--store", store, "--workers", "-1"], 2),
        (["solve", *nim, "--store", store, "--partitions", "0"], 2),
        (["solve", *nim, "--store", store, "--chunk-size", "5"], 2),
        (["solve", *nim, "--store", ""], 2),
        (["solve", *nim, "--store", store, "--worker-memory", "lots"], 2),
        # refused by its estimate (a first pass needs more than 1 GB, on any machine): no numba, no zarr
        (["solve", "quixo", "--size", "5", "--store", store, "--worker-memory", "1GB"], 2),
        (["plan", "nim", "--heaps", "x"], 2),
        (["plan", *nim, "--workers", "-1"], 2),
        (["plan", *nim, "--worker-memory", "0GB"], 2),
        (["status"], 2),
        (["verify", "--store", store, "--bogus"], 2),
        (["upgrade"], 2),
        (["probe"], 2),
        (["probe", "--store", store, "--line", "1,2", "0,1"], 2),
        (["probe", "--store", store, "--max-plies", "0"], 2),
        (["play", "--store", store, "--human", "third"], 2),
        (["explore", "--store", store, "--port", "70000"], 2),
        (["analyze", "--store", store, "--seed", "-1"], 2),
        (["validate", "--out", out], 2),
        (["validate", "--store", store, "--game", "nim", "--out", out], 2),
        (["validate", "--game", "nim --heaps x", "--out", out], 2),
        (["validate", "--game", "nosuch", "--out", out], 2),
        (["match", "random", "random"], 2),
        (["match", "random", "random", "--game", "nosuch"], 2),
        (["match", "random", "random", "--game", "nim --heaps x"], 2),
        (["match", "random", "random", "--game", "nim", "--sprt", "0,10", "--from", "1,2"], 2),
        (["match", "random", "random", "--game", "nim --heaps 1,2", "--from", "9,9"], 2),
        (["match", "random", "random", "--game", "nim --heaps 1,2", "--sprt", "x"], 2),
        (["match", "random", "nosuch", "--game", "nim --heaps 1,2"], 2),
        (["match", "lookahead", "random", "--game", "nim --heaps 1,2"], 2),
        (["match", "random", "mcts:iterations=0", "--game", "tictactoe"], 2),
        (["validate", "--game", "tictactoe", "--agents", "random,nosuch", "--out", out], 2),
        (["validate", "--game", "tictactoe", "--agents", "lookup:remoteness=2", "--out", out], 2),
        (["train", "ga"], 2),
        (["train", "ga", "--game", "nosuch", "--out", f"{tmp}/a.json"], 2),
        (["run"], 2),
        (["run", "quixo5"], 2),
        (["run", "tictactoe", "--workers", "-3", "--out", out], 2),
        (["run", "tictactoe", "--partitions", "0", "--out", out], 2),
        (["run", "tictactoe", "--only", "1", "--out", out], 2),
        (["run", "tictactoe", "--worker-memory", "lots", "--out", out], 2),
    ]


def missing_stores(tmp) -> list[tuple[list[str], int]]:
    """Commands given a store that is not there: refused before the store's modules (zarr,
    numpy) are imported."""
    store = f"{tmp}/none.zarr"
    return [(["status", "--store", store], 1), (["verify", "--store", store], 1),
            (["probe", "--store", store, "1,2"], 1), (["probe", "--store", store, "--line"], 1),
            (["analyze", "--store", store], 1), (["play", "--store", store], 1), (["explore", "--store", store], 1),
            (["validate", "--store", store, "--out", f"{tmp}/v"], 1),
            (["upgrade", "--store", store], 1),
            (["match", "random", "random", "--store", store], 1)]


def test_help_and_usage_errors_import_no_heavy_module(tmp_path):
    first = [[argv, code, []] for argv, code in missing_stores(tmp_path)]
    last = [[argv, code, ["numpy"]] for argv, code in usage_errors(tmp_path)]
    # train's stage (training/resumable.py) imports the store's module before it checks the learner.
    last.append([["train", "nosuch", "--game", "nim --heaps 1,2", "--out", f"{tmp_path}/a.json"], 2, ["numpy", "zarr"]])
    ran = subprocess.run([sys.executable, "-c", PROBE, json.dumps([first, last]), json.dumps(HEAVY)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout.splitlines()[-1])
    assert len(found) > len(first) + len(last)  # the helps ran too
    for argv, code, expected, heavy in found:
        assert heavy == [], f"retrograde {' '.join(argv)} imported {', '.join(heavy)}"
        assert code == expected, f"retrograde {' '.join(argv)} exited {code}, not {expected}"
    assert list(tmp_path.iterdir()) == []  # and nothing was written


def test_quarto_agents_list_the_evaluations_of_the_search():
    from retrograde.games.quarto.players import EVALS
    from retrograde.games.quarto.search import QuartoSearch

    assert EVALS == QuartoSearch.evals  # the copy that lists the agents' options without numba
