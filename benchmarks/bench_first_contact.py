"""First-contact figures (issue 8): what a new user waits for, and whether the documented 4x4
solve (docs/commands.md) always succeeds.

    python benchmarks/bench_first_contact.py              # latencies + the 4x4 solve 10 times
    python benchmarks/bench_first_contact.py --repeat 3   # fewer 4x4 solves

Each command runs as a user runs it (`python -m retrograde ...` from a fresh folder, output to
pipes, so progress comes as plain lines) with a warm numba cache (a tiny solve first). For
`run tictactoe` and `solve quixo --size 4 --workers 2` it prints the seconds from starting the
command to its first line on stderr (`run`'s plan line, the solve's estimate), to its first progress
line (after the first chunk) and to its result line on stdout.
Then it solves 4x4 Quixo `--repeat` times from fresh stores on 2 workers and counts the runs
that end with exit status 0, the result line and a complete store.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import print_options, report

WORKERS = 2


def timed_run(args: list[str], cwd: Path) -> dict:
    """Run `python -m retrograde ARGS`; when its first stderr line and first stdout line came."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "retrograde", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    seen: dict[str, float] = {}
    lines: dict[str, list[str]] = {"stdout": [], "stderr": []}

    def read(name: str, stream) -> None:
        for line in stream:
            seen.setdefault(name, time.perf_counter() - started)
            if line.startswith("solve:"):
                seen.setdefault("progress", time.perf_counter() - started)
            lines[name].append(line.rstrip("\n"))

    readers = [threading.Thread(target=read, args=(name, getattr(proc, name))) for name in lines]
    for reader in readers:
        reader.start()
    code = proc.wait()
    for reader in readers:
        reader.join()
    return {"code": code, "wall": time.perf_counter() - started, "first_line": seen.get("stderr"),
            "first_progress": seen.get("progress"), "result_line": seen.get("stdout"),
            "stdout": lines["stdout"], "stderr": lines["stderr"]}


def complete(store: Path, cwd: Path) -> bool:
    status = subprocess.run([sys.executable, "-m", "retrograde", "status", "--store", str(store), "--json"],
                            cwd=cwd, capture_output=True, text=True)
    return status.returncode == 0 and json.loads(status.stdout)["complete"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="4x4 solves from fresh stores (default 10)")
    options = parser.parse_args()
    print_options(options, workers=f"4x4 solves: {WORKERS}; run tictactoe: its default (in-process)")
    figures: dict = {"workers": WORKERS, "repeat": options.repeat}
    with tempfile.TemporaryDirectory(prefix="retrograde-first-contact-") as scratch:
        base = Path(scratch)
        warm = timed_run(["solve", "quixo", "--size", "3", "--store", "warm.zarr", "--workers", "0"], base)
        assert warm["code"] == 0, warm["stderr"]

        ttt = timed_run(["run", "tictactoe"], base)
        assert ttt["code"] == 0, ttt["stderr"]
        figures["run tictactoe: first line (stderr) s"] = ttt["first_line"]
        figures["run tictactoe: first progress line s"] = ttt["first_progress"]
        figures["run tictactoe: result line s"] = ttt["result_line"]
        figures["run tictactoe: result"] = ttt["stdout"][-1]

        runs, ok = [], 0
        for n in range(options.repeat):
            folder = base / f"q4-{n}"
            folder.mkdir()
            args = ["solve", "quixo", "--size", "4", "--store", "q4.zarr", "--workers", str(WORKERS)]
            result = timed_run(args, folder)
            success = (result["code"] == 0 and result["stdout"][-1:] != []
                       and "wins in 21 plies" in result["stdout"][-1] and complete(folder / "q4.zarr", folder))
            ok += success
            runs.append(result)
            print(f"  4x4 solve {n + 1}/{options.repeat}: exit {result['code']}, {result['wall']:.1f} s, "
                  f"first line {result['first_line']:.2f} s, first progress {result['first_progress']:.2f} s, "
                  f"result {result['result_line'] or 0:.1f} s"
                  + ("" if success else f"  FAILED:\n{chr(10).join(result['stderr'][-5:])}"), flush=True)
        figures["4x4 solves succeeded"] = f"{ok}/{options.repeat}"
        figures["4x4: first line (the estimate) s (median)"] = statistics.median(r["first_line"] for r in runs)
        figures["4x4: first progress line s (median)"] = statistics.median(r["first_progress"] for r in runs)
        results = [r["result_line"] for r in runs if r["result_line"] is not None]
        if results:
            figures["4x4: result line s (median)"] = statistics.median(results)
            figures["4x4: result line s (range)"] = f"{min(results):.1f}-{max(results):.1f}"
        figures["4x4: result"] = runs[-1]["stdout"][-1] if runs[-1]["stdout"] else ""
    report("first contact", figures)


if __name__ == "__main__":
    main()
