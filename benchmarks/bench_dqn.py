"""`retrograde train dqn:preset=001` on 4x4 Quixo at seed 001's budget (issue 24): wall time,
episodes per second, and the final exact value kept (the learning curve's last point, on the
store's seeded sample), beside linear `rl` trained for as many episodes (side by side, one
process each) and greedy, measured on the same sample.
Also the install size of the extra [dqn] (the packages it adds, on disk), and with --install the
time and size of installing it into a fresh virtual environment without pip's cache.

    python benchmarks/bench_dqn.py                         # 300,000 episodes (seed 001)
    python benchmarks/bench_dqn.py --episodes 3000         # a quick look
    python benchmarks/bench_dqn.py --install-only          # the extra's install time and size
    python benchmarks/bench_dqn.py --dqn-artifact A.npz    # a dqn trained elsewhere (run seeds): its final
                                                           # value kept; rl and greedy measured here
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ThreadPoolExecutor
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import numpy as np

from common import measure, print_options, report

GAME = "quixo --size 4"


def installed_mb(packages: tuple[str, ...]) -> float:
    """Megabytes on disk of the files the installed `packages` list."""
    total = 0
    for package in packages:
        try:
            files = distribution(package).files or []
        except PackageNotFoundError:
            continue
        total += sum(path.locate().stat().st_size for path in files if Path(path.locate()).is_file())
    return total / 1e6


def fresh_install() -> dict:
    """Seconds and megabytes of `pip install --no-cache-dir` of the extra's requirements in a new venv."""
    from importlib.metadata import metadata

    wanted = [line.split(";")[0] for line in metadata("retrograde").get_all("Requires-Dist")
              if "extra == \"dqn\"" in line]
    with tempfile.TemporaryDirectory(prefix="retrograde-venv-") as tmp:
        subprocess.run([sys.executable, "-m", "venv", tmp], check=True)
        before = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
        start = time.perf_counter()
        subprocess.run([f"{tmp}/bin/pip", "install", "-q", "--no-cache-dir", *wanted], check=True)
        seconds = time.perf_counter() - start
        after = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
    return {"extra [dqn] requirements": " ".join(wanted), "fresh install s (no pip cache)": round(seconds, 1),
            "fresh install MB added to the venv": round((after - before) / 1e6)}


def final_value_kept(artifact: Path) -> float:
    with np.load(artifact, allow_pickle=False) as data:
        return json.loads(str(data["metadata"]))["learning_curve"][-1]["value_kept"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=300_000, help="training episodes of dqn and rl")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-rl", action="store_true", help="train dqn only")
    parser.add_argument("--install-only", action="store_true", help="measure the extra's fresh install only")
    parser.add_argument("--dqn-artifact", type=Path, default=None,
                        help="a dqn:preset=001 artifact of 4x4 Quixo trained with a store (run seeds trains one): "
                             "report its final value kept instead of training one")
    options = parser.parse_args()
    print_options(options)
    if options.install_only:
        report("pip install of the extra [dqn]", fresh_install())
        return
    figures = {"extra [dqn] installed MB (jax, jaxlib, optax, ml_dtypes, opt_einsum, scipy, absl-py, toolz)":
               round(installed_mb(("jax", "jaxlib", "optax", "ml_dtypes", "opt_einsum", "scipy", "absl-py",
                                   "toolz")))}
    with tempfile.TemporaryDirectory(prefix="retrograde-dqn-") as tmp:
        store = str(Path(tmp) / "q4.zarr")
        measure(["solve", *GAME.split(), "--store", store, "--quiet"])
        runs = [] if options.dqn_artifact else [("dqn", f"dqn:preset=001,episodes={options.episodes}")]
        runs += [] if options.skip_rl else [("rl", f"rl:episodes={options.episodes},alpha=0.05")]
        if options.dqn_artifact:
            with np.load(options.dqn_artifact, allow_pickle=False) as data:
                settings = json.loads(str(data["metadata"]))["settings"]
            figures[f"dqn artifact ({settings['episodes']:,} episodes, preset {settings.get('preset')}) value kept"] = \
                round(final_value_kept(options.dqn_artifact), 4)
        outs = {name: Path(tmp) / f"{name}.npz" for name, _ in runs}
        with ThreadPoolExecutor(len(runs)) as pool:  # side by side: one process each
            results = list(pool.map(lambda run: measure(["train", run[1], "--game", GAME, "--out", str(outs[run[0]]),
                                                         "--seed", str(options.seed), "--store", store, "--quiet"]),
                                    runs))
        for (name, spec), result in zip(runs, results):
            figures[f"{spec} wall s"] = round(result["wall"], 1)
            figures[f"{spec} episodes/s"] = round(options.episodes / result["wall"], 1)
            figures[f"{spec} value kept"] = round(final_value_kept(outs[name]), 4)
        from retrograde.agents import build_agent
        from retrograde.data.store import Store
        from retrograde.games import parse_game
        from retrograde.training.measure import ValueKeptSample

        game = parse_game(GAME)
        with Store.open(store) as opened:
            sample = ValueKeptSample(opened, game, options.seed)  # the learning curves' sample
            figures["greedy value kept"] = round(sample.value_kept(build_agent("greedy", game, seed=options.seed)), 4)
    report(f"train dqn on 4x4 Quixo, {options.episodes:,} episodes", figures)


if __name__ == "__main__":
    main()
