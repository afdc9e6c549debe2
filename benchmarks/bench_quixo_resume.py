"""A killed 5x5 Quixo solve resumes to the same bytes (issue 3, point 5), at a scale the
test suite cannot afford (its kill tests use 4x4 --down-to 13).

    python benchmarks/bench_quixo_resume.py                  # --down-to 24: about 10 minutes
    python benchmarks/bench_quixo_resume.py --down-to 24 --checkpoint-seconds 15

Solves once without interruption, then again with a propagation checkpoint every S
seconds, SIGKILLs that solve's whole process group a few seconds after the first
checkpoint appears, reruns the same command and compares every file byte for byte.
"""

from __future__ import annotations

import argparse
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import folder_bytes, measure, report

WORKERS = 2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--down-to", type=int, default=24)
    parser.add_argument("--checkpoint-seconds", type=float, default=15.0)
    options = parser.parse_args()
    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        reference, store = Path(tmp) / "reference.zarr", Path(tmp) / "killed.zarr"

        def args(path: Path) -> list[str]:
            return ["solve", "quixo", "--size", "5", "--down-to", str(options.down_to), "--store", str(path),
                    "--workers", str(WORKERS), "--quiet"]

        figures["uninterrupted solve wall s"] = measure(args(reference))["wall"]
        env = {**os.environ, "RETROGRADE_CHECKPOINT_SECONDS": str(options.checkpoint_seconds)}
        began = time.perf_counter()
        solve = subprocess.Popen([sys.executable, "-m", "retrograde", *args(store)], env=env,
                                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        checkpoints: list[str] = []
        while not checkpoints and solve.poll() is None:
            time.sleep(1)
            checkpoints = glob.glob(str(store / "scratch" / "*" / "propagation.npz"))
        if not checkpoints:
            raise SystemExit("the solve ended before any propagation checkpoint was written")
        time.sleep(5)
        os.killpg(solve.pid, signal.SIGKILL)
        solve.wait()
        figures["killed after s"] = time.perf_counter() - began
        figures["checkpoints at the kill (bytes)"] = sorted(
            os.path.getsize(path) for path in glob.glob(str(store / "scratch" / "*" / "propagation.npz")))
        figures["resumed solve wall s"] = measure(args(store), env={"RETROGRADE_CHECKPOINT_SECONDS":
                                                                   str(options.checkpoint_seconds)})["wall"]
        files = {path.relative_to(reference) for path in reference.rglob("*") if path.is_file()}
        same = files == {path.relative_to(store) for path in store.rglob("*") if path.is_file()} and all(
            (reference / name).read_bytes() == (store / name).read_bytes() for name in files)
        figures["store bytes"] = folder_bytes(store)
        figures["byte-identical to the uninterrupted solve"] = same
    report("quixo resume", figures)
    if not same:
        raise SystemExit("the resumed store differs from the uninterrupted one")


if __name__ == "__main__":
    main()
