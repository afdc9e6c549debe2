"""Helpers for benchmark scripts: run a CLI command as a user would and measure it, print the
options a script runs with, start and SIGKILL process groups, compare folders byte for byte."""

from __future__ import annotations

import json
import os
import platform
import shlex
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
    return measure_command([sys.executable, "-m", "retrograde", *args], env=env, stdout=stdout)


def measure_command(command: list[str], *, env: dict[str, str] | None = None, stdout: Path | None = None,
                    cwd: Path | None = None) -> dict:
    """Run `command` (in `cwd`); wall seconds and peak RSS of its largest process, as `measure`."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(stdout or ""), *command], capture_output=True,
                         text=True, env={**os.environ, **(env or {})}, cwd=cwd)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["code"] != 0:
        raise SystemExit(f"command failed: {shlex.join(command)}\n{out.stderr}")
    return result


def given_or_solved(store: Path | None, folder: Path, name: str, game: list[str], *extra: str) -> Path:
    """The store given, or `game` (e.g. ["quixo", "--size", "4"]) solved into `folder`/`name`
    with the real CLI (its wall time printed)."""
    if store is not None:
        return store
    store = folder / name
    solved = measure(["solve", *game, "--store", str(store), "--quiet", *extra])
    print(f"  solved {' '.join(game)} in {solved['wall']:.1f} s", flush=True)
    return store


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def versions() -> str:
    """The versions that shape the figures: retrograde's commit (and whether its tree has changes)
    and the libraries doing the work."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("numba", "numpy", "zarr", "dask", "distributed"):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            pass
    import retrograde

    source = Path(retrograde.__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "-C", str(source), "status", "--porcelain", "--", "."],
                                 capture_output=True, text=True, check=True).stdout.strip()
        commit += " with uncommitted changes" if changed else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "not a git checkout"
    return f"retrograde {source} ({commit}); " + ", ".join(found)


def print_options(options, **extra) -> None:
    """Print how the script was run, before any figure: the command line, every option's value
    (an argparse Namespace or a dict; defaults included) with `extra` (e.g. the worker count a
    script fixes), the machine and the versions. Every figure in BENCHMARKS.md comes from a run
    whose header this is."""
    values = dict(vars(options) if not isinstance(options, dict) else options, **extra)
    command = shlex.join([Path(sys.executable).name, *sys.argv])
    print(f"# command: {command}")
    print("# options: " + json.dumps({key: str(value) if isinstance(value, Path) else value
                                      for key, value in values.items()}, sort_keys=True))
    print(f"# machine: {machine()}, {time.strftime('%Y-%m-%d %H:%M')}, load average "
          + " ".join(f"{load:.1f}" for load in os.getloadavg()))
    print(f"# versions: {versions()}", flush=True)


# --- process groups and byte-for-byte comparison (kill benchmarks) ----------------------------
# The suite's helpers (tests/processes.py) find and end process groups; benchmarks use the same.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import processes  # noqa: E402 - tests/processes.py

kill_group, spawned_workers = processes.kill_group, processes.spawned_workers


def start_group(args: list[str], *, stdout: Path, stderr: Path, env: dict[str, str] | None = None,
                cwd: Path | None = None) -> subprocess.Popen:
    """Start `python -m retrograde ARGS` in a session (process group) of its own, output to files,
    no input. End it with `kill_group` (a LocalCluster's worker processes are in its group)."""
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        return subprocess.Popen([sys.executable, "-m", "retrograde", *args], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, cwd=cwd, start_new_session=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})


def tree_bytes(path: Path, *, ignore: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under `path` (relative path -> bytes), but those named in `ignore`."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(Path(path).rglob("*"))
            if p.is_file() and p.name not in ignore}


def tree_difference(actual: Path, expected: Path, *, ignore: tuple[str, ...] = ()) -> str | None:
    """None when both folders hold the same files with the same bytes (files named in `ignore`
    left out), else what differs, in a line."""
    got, want = tree_bytes(actual, ignore=ignore), tree_bytes(expected, ignore=ignore)
    if sorted(got) != sorted(want):
        return (f"files differ: only in {str(actual)!r} {sorted(set(got) - set(want))[:5]}, "
                f"only in {str(expected)!r} {sorted(set(want) - set(got))[:5]}")
    differing = [name for name in want if got[name] != want[name]]
    return f"{len(differing)} files differ in content, e.g. {differing[:5]}" if differing else None


def report(name: str, figures: dict) -> None:
    """Print one figure per line, then the whole set as JSON (for BENCHMARKS.md)."""
    print(f"== {name} ({time.strftime('%Y-%m-%d')}, {machine()})")
    for key, value in figures.items():
        print(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")
    print(json.dumps({"benchmark": name, **figures}))


def print_published(game, specs: list[str], tournaments: list[dict]) -> None:
    """The seeds' figures for these agents on this game beside ours, as the validation report
    sets them (`retrograde.validation.published`): one line each."""
    from retrograde.validation.published import compare

    def rates(figure: dict) -> str:
        return "/".join("-" if figure[key] is None else f"{figure[key]:.3f}" for key in ("win", "loss", "draw"))

    for row in compare(game, specs, tournaments):
        theirs, ours = row["theirs"], row["ours"]
        print(f"  {theirs['agent']} vs {theirs['opponent']} ({row['seat']}): seed W/L/D {rates(theirs)} "
              f"({row['source']}); ours {row['agent']} vs {row['opponent']}: {rates(ours)} of {ours['games']}")
