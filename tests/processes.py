"""Processes for tests that run the CLI: each in a session (process group) of its own, whose whole
group is killed afterwards so that nothing outlives a test; and the check of a one-line error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def spawned_workers(driver: int) -> list:
    """The worker processes of the LocalCluster a driver started, live ones, by pid: its
    multiprocessing spawn children (the nanny is an object inside the driver, and the
    resource tracker is no worker)."""
    import psutil

    try:
        children = psutil.Process(driver).children()
    except psutil.Error:
        return []
    found = []
    for child in children:
        try:
            if "spawn_main" in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.Error:  # it ended meanwhile
            pass
    return sorted(found, key=lambda process: process.pid)


def kill_group(proc: subprocess.Popen, timeout: float = 30) -> None:
    """SIGKILL every process of `proc`'s group (its own session), reap `proc` and wait until no
    member of the group is left."""
    deadline = time.monotonic() + timeout
    while group_members(proc.pid):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if proc.poll() is None:
            try:
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        if time.monotonic() > deadline:
            raise AssertionError(f"processes {group_members(proc.pid)} of group {proc.pid} survived SIGKILL")
        time.sleep(0.05)
    proc.poll()


def _default_sigint() -> None:
    # A test runner started in the background may ignore SIGINT, and ignored signals are
    # inherited: give the CLI the default disposition so that Python's Ctrl-C handling runs.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(args: list[str], *, stdout, stderr, command: list[str] | None = None,
          cwd: Path | None = None) -> subprocess.Popen:
    """Start `python -m retrograde ARGS` (or `COMMAND ARGS`) in a session of its own, with the
    default Ctrl-C handling and no input. Kill it with `kill_group`."""
    command = command or [sys.executable, "-m", "retrograde"]
    return subprocess.Popen([*command, *args], stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                            text=True, cwd=cwd, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                            start_new_session=True, preexec_fn=_default_sigint)


def log_paths(logs: Path) -> tuple[Path, Path]:
    """The stdout and stderr files of the next run whose output is kept in `logs`."""
    logs.mkdir(parents=True, exist_ok=True)
    name = f"run{len(list(logs.glob('*.err')))}"
    return logs / f"{name}.out", logs / f"{name}.err"


def run(args: list[str], logs: Path | None = None, *, command: list[str] | None = None,
        cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the CLI (see `start`) to the end; its whole process group (a LocalCluster's workers
    included) is killed afterwards whatever happens. Output is kept in `logs` when given."""
    with tempfile.TemporaryDirectory(prefix="retrograde-run-") as scratch:
        out_path, err_path = log_paths(logs or Path(scratch))
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = start(args, stdout=out, stderr=err, command=command, cwd=cwd)
        try:
            proc.wait(timeout=timeout)
        finally:
            kill_group(proc)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out_path.read_text(errors="replace"),
                                           err_path.read_text(errors="replace"))


def assert_one_error_line(stderr: str, *needles: str) -> str:
    """stderr is exactly one non-blank line, `retrograde: error: ...` holding every needle, and no
    traceback; returns that line."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}:\n{stderr}"
    assert lines[0].startswith("retrograde: error:"), stderr
    for needle in needles:
        assert needle in lines[0], stderr
    return lines[0]
