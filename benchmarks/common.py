"""Helpers for benchmark scripts: run a CLI command as a user would and measure it."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

_MEASURE = r"""
import resource, subprocess, sys, time, json
start = time.perf_counter()
with open(sys.argv[1] or "/dev/null", "wb") as stdout:
    code = subprocess.call(sys.argv[2:], stdout=stdout)
wall = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps({"code": code, "wall": wall, "peak_rss": rss}))
"""


def measure(args: list[str], *, env: dict[str, str] | None = None, stdout: Path | None = None) -> dict:
    """Run `python -m retrograde ARGS`; wall seconds and peak RSS of the largest process. The
    command's output goes to the file `stdout` if given, else nowhere."""
    command = [sys.executable, "-c", _MEASURE, str(stdout or ""), sys.executable, "-m", "retrograde", *args]
    out = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **(env or {})})
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["code"] != 0:
        raise SystemExit(f"command failed: retrograde {' '.join(args)}\n{out.stderr}")
    return result


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(name: str, figures: dict) -> None:
    """Print one figure per line, then the whole set as JSON (for BENCHMARKS.md)."""
    print(f"== {name} ({time.strftime('%Y-%m-%d')}, {machine()})")
    for key, value in figures.items():
        print(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")
    print(json.dumps({"benchmark": name, **figures}))
