"""The CLI answers at once (issue 34, point 2): `--help` of every command, usage errors and the
refusals that need no store import none of the heavy machinery (numba, dask, zarr, matplotlib,
...). The import list is held here, not a time: a module imported before the arguments are
checked would put its import time back on every mistyped command."""

import json
import subprocess
import sys

#: Modules no `--help`, usage error or store-free refusal may import (each costs 0.1 s to seconds).
HEAVY = ("numba", "llvmlite", "dask", "distributed", "jax", "matplotlib", "flask", "zarr", "scipy", "torch")

#: Runs `--help` of the CLI, of every command and of every game's solve and plan, then every case
#: given, in order, in one fresh interpreter: each one's exit status and the heavy modules it
#: imported beyond those it may (each case names those); the first case that imports one is the
#: culprit (later ones would carry it, so the cases that may import zarr come last).
PROBE = """
import json, sys
from retrograde.cli import cli, main
from retrograde.games import GAMES

cases = [[["--help"], 0, []], *[[[name, "--help"], 0, []] for name in cli.commands],
         *[[[command, game, "--help"], 0, []] for command in ("solve", "plan") for game in GAMES]]
found = []
for argv, expected, allowed in cases + json.loads(sys.argv[1]):
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code
    found.append([argv, code, expected, sorted(m for m in json.loads(sys.argv[2])
                                               if m in sys.modules and m not in allowed)])
print(json.dumps(found))
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
    """Commands given a store that is not there: refused once the store's module (zarr) is
    imported, before the machinery that works on a store's content."""
    store = f"{tmp}/none.zarr"
    return [(["status", "--store", store], 1), (["verify", "--store", store], 1), (["upgrade", "--store", store], 1),
            (["probe", "--store", store, "1,2"], 1), (["probe", "--store", store, "--line"], 1),
            (["analyze", "--store", store], 1), (["play", "--store", store], 1), (["explore", "--store", store], 1),
            (["validate", "--store", store, "--out", f"{tmp}/v"], 1),
            (["match", "random", "random", "--store", store], 1)]


def test_help_and_usage_errors_import_no_heavy_module(tmp_path):
    cases = [[argv, code, []] for argv, code in usage_errors(tmp_path)]
    cases += [[argv, code, ["zarr"]] for argv, code in missing_stores(tmp_path)]
    ran = subprocess.run([sys.executable, "-c", PROBE, json.dumps(cases), json.dumps(HEAVY)], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout.splitlines()[-1])
    assert len(found) > len(cases)  # the helps ran first
    for argv, code, expected, heavy in found:
        assert heavy == [], f"retrograde {' '.join(argv)} imported {', '.join(heavy)}"
        assert code == expected, f"retrograde {' '.join(argv)} exited {code}, not {expected}"
    assert list(tmp_path.iterdir()) == []  # and nothing was written
