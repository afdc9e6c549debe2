"""The harness's side of the engine protocol: a user's agent process started with its limits,
asked with a time limit, and kept for the next player of the same agent (`lease`).

An agent process is started in its own session, its stderr appended to the agent's log file,
its address space capped at the memory limit (RLIMIT_AS: a Python agent past it gets a
MemoryError, which its host reports as a forfeit by memory), and one thread for numpy and numba
(an agent's speed must not depend on the machine's cores it borrows).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from retrograde.agents.user import protocol

#: Seconds an agent process has to start, answer the handshake and load for a game.
START_TIME = 120.0
#: Seconds a process has to exit after `quit` before it is killed.
QUIT_TIME = 2.0
#: Environment of an agent process: one thread for its numeric libraries, a fixed hash seed (a
#: user's code that iterates over a set of strings plays the same games every run).
ENVIRONMENT = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "NUMBA_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "PYTHONUNBUFFERED": "1"}


class ProcessGone(Exception):
    """The process gave no answer: `reason` timeout, died or memory, `detail` one line."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class Refused(Exception):
    """The process refused the game (its one line: a user's file that cannot load, a game an
    engine does not play) or broke the protocol's handshake."""


@dataclass(frozen=True)
class Launch:
    """How to start an agent's process: `command` in `cwd`, its stderr appended to `log`,
    `memory` MiB of address space."""

    command: tuple[str, ...]
    cwd: str
    log: str
    memory: int


class AgentProcess:
    """One running agent process, spoken to line by line."""

    def __init__(self, launch: Launch):
        self.launch = launch
        Path(launch.log).parent.mkdir(parents=True, exist_ok=True)
        with open(launch.log, "ab") as log:
            self.proc = subprocess.Popen(launch.command, cwd=launch.cwd, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=log, start_new_session=True,
                                         env={**os.environ, **ENVIRONMENT})
        limit = launch.memory * 2**20
        try:
            import resource
            resource.prlimit(self.proc.pid, resource.RLIMIT_AS, (limit, limit))
        except (ImportError, OSError, AttributeError):  # not Linux: no cap (docs/agents.md says so)
            pass
        self._buffer = b""
        self.identity: str | None = None
        self.game: str | None = None
        #: The player and game its last `new` began (a process lent to another player is sent `new` again).
        self.owner: tuple[int, int] | None = None

    def send(self, line: str) -> None:
        try:
            self.proc.stdin.write((line + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._gone() from None

    def receive(self, timeout: float) -> str:
        """The next line the process writes, within `timeout` seconds.

        :raises ProcessGone: no line in time (the process is killed), or it exited."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        waiting = select.poll()  # not select(): a process with many files open has descriptors past 1024
        waiting.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise ProcessGone("timeout", f"no answer within {timeout:g} s")
            if waiting.poll(left * 1000):
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self._gone()
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").rstrip("\r")

    def request(self, line: str, timeout: float) -> str:
        self.send(line)
        return self.receive(timeout)

    def start(self, game_line: str) -> None:
        """Handshake and load the game (`protocol.game_line`).

        :raises Refused: the process refused, or answered out of protocol.
        :raises ProcessGone: it did not answer in `START_TIME`, or died."""
        word, rest = protocol.split(self.request(protocol.HELLO, START_TIME))
        if word != "id":
            raise Refused(f"answered {(word + ' ' + rest).strip()!r} to {protocol.HELLO!r}, not 'id NAME VERSION' "
                          "(docs/engine.md)")
        self.identity = rest
        word, rest = protocol.split(self.request(game_line, START_TIME))
        if word == "refuse":
            raise Refused(rest)
        if word != "ready":
            raise Refused(f"answered {(word + ' ' + rest).strip()!r} to the game, not 'ready' or 'refuse TEXT'")
        self.game = game_line

    def _gone(self) -> ProcessGone:
        """Why the process stopped answering: its exit status or signal."""
        try:
            code = self.proc.wait(timeout=QUIT_TIME)
        except subprocess.TimeoutExpired:
            self.kill()
            return ProcessGone("died", "it closed its output and was killed")
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return ProcessGone("died", f"it was killed by {name} (its log: {self.launch.log})")
        return ProcessGone("died", f"it exited with status {code} (its log: {self.launch.log})")

    def kill(self) -> None:
        """Kill the process and everything it started."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def close(self) -> None:
        """Ask the process to quit; kill it if it does not, in `QUIT_TIME`."""
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=QUIT_TIME)
            except (ProcessGone, subprocess.TimeoutExpired):
                pass
        self.kill()


# --- the pool: idle processes of each agent and game, lent to one player at a time ----------
_idle: dict[tuple[Launch, str], list[AgentProcess]] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def lease(launch: Launch, game_line: str) -> Iterator[AgentProcess]:
    """A running process of `launch` with its game loaded (`protocol.game_line`): an idle one
    (a worker thread's next task, an explorer's next request), else one started now. It goes
    back to the idle ones afterwards, unless it broke (timed out, died: it is killed).

    :raises Refused, ProcessGone: as `AgentProcess.start` (the process is then killed)."""
    key = (launch, game_line)
    with _lock:
        waiting = _idle.setdefault(key, [])
        process = waiting.pop() if waiting else None
    if process is None or process.proc.poll() is not None:
        process = AgentProcess(launch)
        try:
            process.start(game_line)
        except BaseException:
            process.kill()
            raise
    try:
        yield process
    except ProcessGone:
        process.kill()
        raise
    except BaseException:
        if process.proc.poll() is None:
            with _lock:
                _idle[key].append(process)
        raise
    with _lock:
        _idle[key].append(process)


@atexit.register
def close_all() -> None:
    """Let every idle agent process quit (each in `QUIT_TIME`), at exit."""
    with _lock:
        processes = [process for waiting in _idle.values() for process in waiting]
        _idle.clear()
    for process in processes:
        process.close()
