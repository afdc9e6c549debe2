"""This code against an earlier commit on the same machine, alternating, in one run (issue 12's
"measured side by side": a ratio, not two figures from different days).

    python benchmarks/bench_versus.py                         # 4x4 Quixo, against 8cd7ec4, 3 pairs
    python benchmarks/bench_versus.py --base 18a9fbf --workers 0 --repeat 2
    python benchmarks/bench_versus.py --size 5 --down-to 24 --repeat 1
    python benchmarks/bench_versus.py --base 9f25c38 --outputs    # same bytes? every game's outputs

With --outputs nothing is timed: both sides run `OUTPUT_COMMANDS` (solves of every game, probes,
status, matches, training, validation reports) in folders of their own, with the same relative
paths (artifact paths are part of agent specs, so of seeds and reports), and every output is
compared byte for byte: stores, artifacts (an npz's arrays and its metadata apart), reports
(timings.json left out: wall-clock figures) and what each command prints.

The base commit is checked out into a temporary git worktree and put first on PYTHONPATH, so
its `python -m retrograde` runs with the same interpreter and libraries as this checkout's;
each side first solves 3x3 Quixo once (numba compiles or loads its kernels). Then the same
`solve quixo` runs from an empty store, base and this code in turn (the order swapped every
pair, so neither always runs on a machine warmed by the other); a base solve that fails is run
again (`BASE_RERUNS`, counted in the output), one of this code ends the benchmark. Prints each
side's wall times, medians, largest process, store and chunk-data bytes, and the ratio of the
medians.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import folder_bytes, measure, print_options, report

REPOSITORY = Path(__file__).resolve().parents[1]
QUARTO_ROOT = "9..0/f.1e/8..b/42.c 5"
#: (name, command, output file or folder) of --outputs; "-" as output: what the command prints.
OUTPUT_COMMANDS = (
    ("ttt store", ["solve", "tictactoe", "--store", "ttt.zarr", "--quiet"], "ttt.zarr"),
    ("nim store", ["solve", "nim", "--heaps", "1,3,5,7", "--store", "nim.zarr", "--quiet"], "nim.zarr"),
    ("nim bounded misere store", ["solve", "nim", "--heaps", "2,3,5", "--max-take", "2", "--misere", "--store",
                                  "nimb.zarr", "--quiet"], "nimb.zarr"),
    ("quixo 3 store", ["solve", "quixo", "--size", "3", "--store", "q3.zarr", "--quiet"], "q3.zarr"),
    ("quarto store", ["solve", "quarto", "--from", QUARTO_ROOT, "--store", "qt.zarr", "--quiet"], "qt.zarr"),
    ("ttt status", ["status", "--store", "ttt.zarr", "--json"], "-"),
    ("q3 probe", ["probe", "--store", "q3.zarr", "--json", ".../.../... x", "xo./.x./o.. x"], "-"),
    ("q3 verify", ["verify", "--store", "q3.zarr", "--json"], "-"),
    ("q3 match", ["match", "mcts:iterations=200", "minimax:depth=3,eval=inline", "--game", "quixo --size 3",
                  "--games", "6", "--json"], "-"),
    ("q4 match", ["match", "minimax:adaptive=1,depth=3", "greedy", "--game", "quixo --size 4", "--games", "4",
                  "--json"], "-"),
    ("nim match", ["match", "expert", "rules:rule=count-and-decide", "--game", "nim --heaps 1,3,5,7", "--games",
                   "10", "--json"], "-"),
    ("quarto match", ["match", "endgame:empty=6", "lookahead:population=32,generations=2", "--game",
                      f"quarto --from '{QUARTO_ROOT}'", "--games", "4", "--json"], "-"),
    ("q3 ga", ["train", "ga:generations=2,population=4,offspring=4,games=4", "--game", "quixo --size 3", "--out",
               "q3ga.json", "--store", "q3.zarr", "--quiet"], "q3ga.json"),
    ("nim ga", ["train", "ga:generations=2,population=4,offspring=4,games=4", "--game", "nim --heaps 1,3,5,7",
                "--out", "nimga.json", "--quiet"], "nimga.json"),
    ("ttt rl", ["train", "rl:episodes=500", "--game", "tictactoe", "--out", "tttrl.npz", "--store", "ttt.zarr",
                "--quiet"], "tttrl.npz"),
    ("q4 rl", ["train", "rl:episodes=30", "--game", "quixo --size 4", "--out", "q4rl.npz", "--quiet"], "q4rl.npz"),
    ("quarto ga", ["train", "ga:generations=1,population=2,offspring=1,games=2", "--game", "quarto", "--out",
                   "qtga.json", "--quiet"], "qtga.json"),
    ("quarto rl", ["train", "rl:episodes=20,pieces=qtga.json", "--game", "quarto", "--out", "qtrl.npz", "--quiet"],
     "qtrl.npz"),
    ("ttt report", ["validate", "--store", "ttt.zarr", "--out", "tttreport", "--agents",
                    "lookup,random,greedy,expert,minimax:depth=2,mcts:iterations=100,rl:params=tttrl.npz",
                    "--games", "4", "--quiet"], "tttreport"),
    ("nim report", ["validate", "--store", "nim.zarr", "--out", "nimreport", "--games", "4", "--quiet"], "nimreport"),
    ("q3 report", ["validate", "--store", "q3.zarr", "--out", "q3report", "--agents",
                   "lookup,lookup:remoteness=0,random,minimax:depth=2,ga:params=q3ga.json", "--games", "4",
                   "--quiet"], "q3report"),
    ("quarto report", ["validate", "--game", "quarto", "--out", "qtreport", "--agents",
                       "random,greedy,ga:alpha=0.1,beta=0.2,endgame,rl:params=qtrl.npz", "--games", "2",
                       "--positions", "6", "--quiet"], "qtreport"),
)


def same_outputs(base_env: dict, work: Path) -> dict:
    """Run OUTPUT_COMMANDS on both sides (`base_env`: the base commit on PYTHONPATH) and compare
    every output; one figure a command: "same bytes", or what differs."""
    from common import tree_difference

    sides = {"base": base_env, "this": {}}
    for side in sides:
        (work / "outputs" / side).mkdir(parents=True)
    figures = {}
    for name, command, output in OUTPUT_COMMANDS:
        found = {}
        for side, env in sides.items():
            folder = work / "outputs" / side
            printed = folder / f"{name.replace(' ', '-')}.out"
            out = subprocess.run([sys.executable, "-m", "retrograde", *command], cwd=folder, capture_output=True,
                                 env={**os.environ, **env})
            if out.returncode not in (0, 3):
                raise SystemExit(f"{side}: retrograde {' '.join(command)} failed\n{out.stderr.decode()}")
            printed.write_bytes(out.stdout)
            found[side] = printed if output == "-" else folder / output
        figures[name] = _difference(found["this"], found["base"], tree_difference)
        print(f"  {name}: {figures[name]}", flush=True)
    return figures


def _difference(this: Path, base: Path, tree_difference) -> str:
    """"same bytes", or what differs between two outputs (folders: file by file, timings.json
    left out; npz: the arrays and the metadata apart)."""
    if this.is_dir():
        return tree_difference(this, base, ignore=("timings.json",)) or "same bytes"
    if this.read_bytes() == base.read_bytes():
        return "same bytes"
    if this.suffix == ".npz":
        import numpy as np

        with np.load(this, allow_pickle=False) as ours, np.load(base, allow_pickle=False) as theirs:
            arrays = sorted(set(ours.files) - {"metadata"}) == sorted(set(theirs.files) - {"metadata"}) and all(
                np.array_equal(ours[key], theirs[key]) for key in ours.files if key != "metadata")
            ours_meta, theirs_meta = json.loads(str(ours["metadata"])), json.loads(str(theirs["metadata"]))
        keys = sorted(_paths(ours_meta) ^ _paths(theirs_meta))
        return (f"arrays {'identical' if arrays else 'DIFFER'}; metadata differs"
                + (f" in keys {keys}" if keys else " in values"))
    return "DIFFERS"


def _paths(value, prefix: str = "") -> set[str]:
    """The key paths of a JSON document with their values, for telling metadata apart."""
    if isinstance(value, dict):
        return {path for key, item in value.items() for path in _paths(item, f"{prefix}/{key}")}
    return {f"{prefix}={json.dumps(value)}"}
#: Times a base solve that fails is run again from an empty store: 8cd7ec4 can fail removing its
#: scratch folder while another group writes there (a race fixed since), more often on a fast host.
BASE_RERUNS = 3


def chunk_bytes(store: Path) -> int:
    """Bytes of the tiers' chunk files (the values; not the documents)."""
    return sum(path.stat().st_size for path in store.glob("tiers/*/*/c/**/*") if path.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="8cd7ec4", help="the commit to compare with (default 8cd7ec4)")
    parser.add_argument("--size", type=int, default=4, help="Quixo board size")
    parser.add_argument("--down-to", type=int, default=None, help="solve --down-to N (5x5)")
    parser.add_argument("--workers", type=int, default=2, help="solve --workers (0: in-process)")
    parser.add_argument("--repeat", type=int, default=3, help="solves of each side")
    parser.add_argument("--outputs", action="store_true", help="compare every game's outputs byte for byte instead")
    options = parser.parse_args()
    base = subprocess.run(["git", "-C", str(REPOSITORY), "rev-parse", "--short", options.base],
                          capture_output=True, text=True)
    if base.returncode:
        raise SystemExit(f"--base {options.base!r}: not a commit of {REPOSITORY}")
    print_options(options, base_commit=base.stdout.strip())
    game = ["quixo", "--size", str(options.size)] + ([] if options.down_to is None else
                                                      ["--down-to", str(options.down_to)])
    with tempfile.TemporaryDirectory(prefix="retrograde-versus-") as tmp:
        work = Path(tmp)
        checkout = work / "base"
        subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "add", "--detach", "--quiet", str(checkout),
                        options.base], check=True)
        try:
            if options.outputs:
                report(f"outputs of this code against {base.stdout.strip()}",
                       same_outputs({"PYTHONPATH": str(checkout / "src")}, work))
                return
            sides = {"base": {"PYTHONPATH": str(checkout / "src")}, "this": {}}
            for side, env in sides.items():
                measure(["solve", "quixo", "--size", "3", "--store", str(work / f"warm-{side}.zarr"),
                         "--workers", "0", "--quiet"], env=env)
            runs: dict[str, list[dict]] = {side: [] for side in sides}
            reruns = 0
            for pair in range(options.repeat):
                for side in (("base", "this") if pair % 2 == 0 else ("this", "base")):
                    store = work / f"{side}-{pair}.zarr"
                    command = ["solve", *game, "--store", str(store), "--workers", str(options.workers), "--quiet"]
                    for attempt in range(BASE_RERUNS + 1):
                        try:
                            result = measure(command, env=sides[side])
                            break
                        except SystemExit as failure:  # this code's failures end the benchmark
                            if side == "this" or attempt == BASE_RERUNS:
                                raise
                            print(f"  pair {pair} base failed, rerun: {str(failure).splitlines()[-1]}", flush=True)
                            reruns += 1
                            shutil.rmtree(store, ignore_errors=True)
                    result["store"], result["chunks"] = folder_bytes(store), chunk_bytes(store)
                    runs[side].append(result)
                    print(f"  pair {pair} {side}: {result['wall']:.2f} s", flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(checkout)],
                           check=False)
    figures: dict = {"game": " ".join(game), "workers": options.workers, "solves of each side": options.repeat,
                     "base solves failed and rerun": reruns}
    medians = {}
    for side, results in runs.items():
        walls = [result["wall"] for result in results]
        medians[side] = statistics.median(walls)
        figures[f"{side}: wall s"] = [round(wall, 2) for wall in walls]
        figures[f"{side}: median wall s"] = medians[side]
        figures[f"{side}: peak RSS MB"] = round(max(result["peak_rss"] for result in results) / 2**20)
        figures[f"{side}: store bytes"] = results[-1]["store"]
        figures[f"{side}: chunk data bytes"] = results[-1]["chunks"]
    figures["this / base, median wall"] = medians["this"] / medians["base"]
    report(f"this code against {base.stdout.strip()}", figures)


if __name__ == "__main__":
    main()
