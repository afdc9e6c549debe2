"""A killed Quixo solve resumes to the same bytes (issue 3, point 5), at a scale the test suite
cannot afford, and what the resume saves (issue 11, point 9).

    python benchmarks/bench_quixo_resume.py                  # 5x5 --down-to 24: about 10 minutes
    python benchmarks/bench_quixo_resume.py --down-to 24 --checkpoint-seconds 15 --kill-after 5
    python benchmarks/bench_quixo_resume.py --size 4 --checkpoint-seconds 2 --kill-after 1   # about 2 minutes

Like with like: every solve runs with the same propagation checkpoint interval
(RETROGRADE_CHECKPOINT_SECONDS = --checkpoint-seconds), the uninterrupted reference included.
A second solve is SIGKILLed (its whole process group) --kill-after seconds after its first
propagation checkpoint appears; what it left is listed (positions recorded, first passes,
each checkpoint's propagation level), then the same command resumes it and every file is
compared byte for byte with the reference. With --without-checkpoint (the default) a copy of
the killed store with its checkpoints deleted is resumed too: the difference is the propagation
the checkpoints saved. Figures: the resume's overhead (killed run + resumed run - reference) and
what it saved against starting again from nothing (reference - resumed run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import folder_bytes, measure, print_options, report, tree_difference

WORKERS = 2


def left_behind(store: Path) -> dict:
    """What a killed solve left: positions recorded, first-pass files, each checkpoint's level."""
    from retrograde.data.store import Store
    from retrograde.pipeline.stages import positions_done

    with Store.open(store) as opened:
        done, total = positions_done(opened), opened.plan.positions
    checkpoints = {}
    for path in sorted(store.glob("scratch/*/propagation-*.npz")):
        with np.load(path) as data:
            checkpoints[f"{'+'.join(data['group'].tolist())} ({path.stem})"] = {
                "next level": int(data["level"]), "highest level known": int(data["highest"]),
                "positions": int(data["outcome"].size), "bytes": path.stat().st_size}
    return {"positions recorded": done, "positions": total, "share recorded": round(done / total, 4),
            "first-pass files": len(list(store.glob("scratch/*/[0-9]*.npz"))), "checkpoints": checkpoints}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--down-to", type=int, default=24, help="5x5 only: tiers with at least this many cubes")
    parser.add_argument("--checkpoint-seconds", type=float, default=15.0,
                        help="RETROGRADE_CHECKPOINT_SECONDS of every solve, the reference's included")
    parser.add_argument("--kill-after", type=float, default=5.0,
                        help="seconds after the first checkpoint appears that the solve is killed")
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--without-checkpoint", action=argparse.BooleanOptionalAction, default=True,
                        help="also resume a copy with the checkpoints deleted (what they saved)")
    options = parser.parse_args()
    print_options(options)
    env = {"RETROGRADE_CHECKPOINT_SECONDS": str(options.checkpoint_seconds)}
    figures: dict = {"workers": options.workers, "checkpoint seconds (every solve)": options.checkpoint_seconds}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        reference, store = tmp / "reference.zarr", tmp / "killed.zarr"

        def args(path: Path, size: int = options.size) -> list[str]:
            return (["solve", "quixo", "--size", str(size), "--store", str(path), "--workers", str(options.workers),
                     "--quiet"] + (["--down-to", str(options.down_to)] if size == 5 else []))

        measure(args(tmp / "warm.zarr", size=3))  # numba's cache warm: every solve below is an ordinary one
        figures["uninterrupted solve s"] = reference_seconds = measure(args(reference), env=env)["wall"]
        began = time.perf_counter()
        solve = subprocess.Popen([sys.executable, "-m", "retrograde", *args(store)], env={**os.environ, **env},
                                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while solve.poll() is None and not list(store.glob("scratch/*/propagation-*.npz")):
            time.sleep(0.1)
        if solve.poll() is not None:
            raise SystemExit("the solve ended before any propagation checkpoint was written: "
                             "lower --checkpoint-seconds")
        figures["first checkpoint after s"] = time.perf_counter() - began
        time.sleep(options.kill_after)
        os.killpg(solve.pid, signal.SIGKILL)
        solve.wait()
        figures["killed after s"] = killed_seconds = time.perf_counter() - began
        time.sleep(1)  # the group's workers die with it
        kept = left_behind(store)
        figures["left by the killed solve"] = json.dumps(kept)
        if options.without_checkpoint:
            bare = tmp / "no-checkpoint.zarr"
            shutil.copytree(store, bare)
            for path in bare.glob("scratch/*/propagation-*.npz"):
                path.unlink()
        figures["resumed solve s"] = resumed = measure(args(store), env=env)["wall"]
        difference = tree_difference(store, reference)
        figures["byte-identical to the uninterrupted solve"] = difference is None
        if difference:
            figures["difference"] = difference
        figures["store bytes"] = folder_bytes(store)
        figures["killed + resumed s"] = killed_seconds + resumed
        figures["resume overhead s (killed + resumed - uninterrupted)"] = killed_seconds + resumed - reference_seconds
        figures["saved by resuming s (uninterrupted - resumed: starting again from nothing would take that)"] = \
            reference_seconds - resumed
        if options.without_checkpoint:
            figures["resumed without the checkpoints s"] = bare_seconds = measure(args(bare), env=env)["wall"]
            figures["saved by the checkpoints s (propagation levels not redone)"] = bare_seconds - resumed
            figures["without the checkpoints: byte-identical too"] = tree_difference(bare, reference) is None
    report("quixo resume", figures)
    if difference:
        raise SystemExit("the resumed store differs from the uninterrupted one")


if __name__ == "__main__":
    main()
