"""How a command ends: every expected failure as one line on stderr and an exit status, never a
traceback. 2 for usage errors, 1 otherwise (damage, a failed check), 74 when the system refuses a
file operation (`OS_ERROR_EXIT`), 130 for Ctrl-C and 128 + N for stop signal N (SIGTERM,
SIGHUP), which unwind the command like Ctrl-C so that clusters and files are closed.
"""

from __future__ import annotations

import errno
import gc
import logging
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable

import click

from retrograde.errors import RetrogradeError, interrupted


def _one_line(message: str) -> str:
    """`message` as one printable line: newlines become spaces, and the other characters that
    would break or garble the line (carriage returns, line and record separators, control
    characters, a lone surrogate from a non-UTF-8 argument) their escapes, as repr writes them."""
    return "".join(char if char.isprintable() else " " if char == "\n" else char.encode("unicode_escape").decode()
                   for char in message)


def fail(message: str, code: int) -> None:
    """Say `message` as one line on stderr and exit with `code`."""
    click.echo(f"retrograde: error: {_one_line(message)}", err=True)
    sys.exit(code)


#: What a stopped command leaves behind, by command name (others only stop).
AFTER_STOP = {"solve": "rerun the same command to resume", "run": "rerun the same command to resume",
              "train": "rerun the same command to resume", "validate": "rerun the same command to resume",
              "verify": "verify keeps no progress: rerun it to check again"}


class Interrupted(BaseException):
    """Ctrl-C inside a command, carried to `run` past click's own handler, which would first
    print a blank line on stderr (to end the terminal's ^C echo) whatever stderr is."""


class Commands(click.Group):
    """The command group: a Ctrl-C while a command runs reaches `run` as `Interrupted`; users'
    agents' processes the command started quit when it ends (not at the interpreter's exit: a
    command run in a process that goes on, as a test's, leaves none behind)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise Interrupted from exc
        finally:
            if "retrograde.agents.user.process" in sys.modules:
                sys.modules["retrograde.agents.user.process"].close_all()


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C, so that clusters and files are closed."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _silence_shutdown() -> None:
    # Closing a cluster mid-task and zarr's I/O thread with pending tasks and coroutines make
    # dask's loggers, asyncio and the warnings machinery report each loose end, around our line.
    for name in ("asyncio", "distributed", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    warnings.simplefilter("ignore")
    sys.unraisablehook = _redeliver_stop


def _redeliver_stop(unraisable) -> None:
    """The hook for exceptions Python cannot raise (in a finalizer or a weakref callback), silent
    after a stop signal. A stop signal whose handler ran inside one raised there and was lost, and
    the command would go on to its end: the signal is sent again a moment later (`REDELIVER_SECONDS`,
    once this hook and the finalizer have returned), from another thread, to land where it unwinds
    the command; lost again, it is sent again."""
    stop = unraisable.exc_value
    if isinstance(stop, (KeyboardInterrupt, Terminated)):
        signum = stop.signum if isinstance(stop, Terminated) else signal.SIGINT
        again = threading.Timer(REDELIVER_SECONDS, os.kill, args=(os.getpid(), signum))
        again.daemon = True
        again.start()


#: How long a lost stop signal waits to be sent again (`_redeliver_stop`).
REDELIVER_SECONDS = 0.05


def _on_stop_signal(signum: int, frame) -> None:
    """Ctrl-C, SIGTERM or SIGHUP: quiet the shutdown from now on, then unwind."""
    _silence_shutdown()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _stopped(argv: list[str], why: str, code: int) -> None:
    _silence_shutdown()
    if code == 130 and sys.stderr.isatty():  # the line starts after the terminal's ^C echo (or a progress bar)
        click.echo(err=True)
    command = next((arg for arg in argv if not arg.startswith("-")), "")
    fail(why + (f"; {AFTER_STOP[command]}" if command in AFTER_STOP else ""), code)


#: Exit status when the system refuses a file operation (sysexits' EX_IOERR): distinct from
#: usage errors (2) and from damage `verify` finds (1), since the cure is outside the store.
OS_ERROR_EXIT = 74

#: Causes said in words of their own (the others: the system's own words, lower-cased).
_OS_CAUSES = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
              errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
              errno.EPERM: "operation not permitted", errno.ENOTDIR: "a part of the path is a file, not a folder",
              errno.EISDIR: "is a folder, not a file", errno.ENOENT: "no such file or folder",
              errno.EMFILE: "too many open files", errno.ENAMETOOLONG: "file name too long"}

#: What to do next, by cause, for commands that keep their progress (`AFTER_STOP`).
_OS_NEXT = {errno.ENOSPC: "free some space", errno.EDQUOT: "free some space"}


def _os_error_line(exc: OSError, argv: list[str]) -> str:
    """One line for a file operation the system refused: the cause, the path (zarr's and our
    temporary `*.partial` files named as the file they were to become, else the --store or --out
    the command was given, --out first) and, for a full disk, how to go on."""
    cause = _OS_CAUSES.get(exc.errno) or ((exc.strerror or str(exc)).strip().split("\n")[0].lower()
                                          or type(exc).__name__)
    path = exc.filename if isinstance(exc.filename, str) else (
        os.fsdecode(exc.filename) if isinstance(exc.filename, bytes) else None)
    if path is not None:
        path = re.sub(r"\.[0-9a-f]{32}\.partial$", "", path)
        where = repr(path)
    else:
        given = [value for option in ("--out", "--store")  # a command with both writes its --out
                 for value in [argv[k + 1] for k, arg in enumerate(argv[:-1]) if arg == option]
                 + [arg.split("=", 1)[1] for arg in argv if arg.startswith(f"{option}=")]]
        where = f"under {given[0]!r}" if given else ""
    line = f"{cause}: {where}" if path is not None else f"{cause} {where}".strip()
    if exc.errno in _OS_NEXT:
        command = next((arg for arg in argv if not arg.startswith("-")), "")
        resumes = AFTER_STOP.get(command, "").endswith("to resume")
        line += f"; {_OS_NEXT[exc.errno]}, then rerun the same command" + (" to resume" if resumes else "")
    return line


def run(command: Callable[[], int | None], argv: list[str]) -> None:
    """Run `command` (the command line `argv`), turning expected errors into one line and an exit
    status, and stop signals into an orderly stop; exits with the command's status."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_stop_signal)
    try:
        code = command()
    except click.exceptions.NoArgsIsHelpError as exc:  # `retrograde` alone: what it can do
        click.echo(exc.ctx.get_help())
        code = 0
    except (click.exceptions.Abort, KeyboardInterrupt, Interrupted):
        _stopped(argv, "interrupted", 130)
    except Terminated as exc:
        _stopped(argv, f"stopped by {exc}", 128 + exc.signum)
    except click.ClickException as exc:
        fail(exc.format_message(), exc.exit_code)
    except RetrogradeError as exc:
        fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
    except OSError as exc:  # disk full, read-only, permission denied, a path through a file
        # zarr's I/O loop logs each of its failed writes again when it drops them: one line is the rule
        logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
        fail(_os_error_line(exc, argv), OS_ERROR_EXIT)
    except Exception as exc:  # a Ctrl-C that came back wrapped (in an import: `errors.interrupted`)
        if not interrupted(exc):
            raise
        _stopped(argv, "interrupted", 130)
    # The interpreter's last collections at exit would walk every object the command made (numba's
    # compiler state above all): 0.15 s of each solve's exit. Frozen, they are skipped; nothing is
    # left to them (files, stores and clusters are closed, and atexit handlers still run).
    gc.freeze()
    sys.exit(code if isinstance(code, int) else 0)
