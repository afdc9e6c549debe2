"""A stopped `validate` resumes: each task's result (a move-quality chunk, a tournament batch) is
kept on the disk as it finishes, and a rerun of the same command takes it from there instead of
running the task again. A user's agent may take hours; a kill or Ctrl-C costs only the tasks in
flight.

The results lie in a hidden folder of the report folder (`FOLDER`), a line a task in one log
(`LOG`), beside `identity.json`, the digest of everything that decides the results (the
store's plan, the agents' stream names, the seed, the counts: `audit.results_identity`). A run
whose digest differs (another command) clears the folder before it keeps anything; the folder
is removed once the report is written.

Results are JSON, never pickle (a report folder must never make retrograde run code): numpy
arrays and scalars as {dtype, shape, base64 data}, tuples and dicts tagged so that they come
back as they went, and instances of the record classes the caller names (named tuples and
dataclasses of plain values, such as a tournament's played games) by their class's name and
fields; no other class is ever made from a file. A line holds the task's key, the digest of its
JSON and the JSON; it is appended as the task finishes (a kill loses none) and the log is flushed
to the disk at most every `FLUSH_SECONDS`, so that a crash or power loss loses at most the
results since (a file a task, each written, flushed and renamed, cost a validation of fast agents
a fifth of its time). A line that cannot be read back as a result (damaged, cut short, edited)
counts as missing: its task runs again; a log that is a link is cleared with the folder.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import re
import shutil
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from retrograde.data.durable import fsync_enabled, inside, make_folder, read_inside, sync_folder, write_atomically
from retrograde.errors import StoreError
from retrograde.pipeline.graph import Task

#: The hidden folder of the report folder that holds finished tasks' results.
FOLDER = ".resume"
#: The file of `FOLDER` that names the run its results belong to.
IDENTITY = "identity.json"
#: The layout of the folder's files; part of the identity, so that another layout is stale.
FORMAT = 1
#: Array element kinds kept: booleans, signed and unsigned integers, floats.
ARRAY_KINDS = "biuf"
#: The file of `FOLDER` the results are appended to.
LOG = "results.log"
#: A task key that can start a line of the log.
KEY = re.compile(r"[A-Za-z0-9_-]+")
#: Seconds between flushes of the log to the disk.
FLUSH_SECONDS = 1.0
#: What `TaskResults.load` returns for a task with no result kept.
MISSING = object()


def record_name(cls: type) -> str:
    """How a record class is named in a file: its module and qualified name."""
    return f"{cls.__module__}.{cls.__qualname__}"


def record_fields(value: Any) -> dict[str, Any]:
    """A named tuple's or dataclass's fields, by name."""
    if dataclasses.is_dataclass(value):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    return value._asdict()


def encode(value: Any, records: Mapping[str, type]) -> Any:
    """`value` as JSON data that `decode` turns back into it (types included); `records`: the
    record classes (by `record_name`) whose instances are kept.

    :raises TypeError: a value of another type (another object, an array of objects or strings)."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [encode(item, records) for item in value]
    if kind is tuple:
        return {"$": "tuple", "items": [encode(item, records) for item in value]}
    if kind is dict:
        return {"$": "dict", "items": [[encode(key, records), encode(item, records)] for key, item in value.items()]}
    if records.get(record_name(kind)) is kind:
        return {"$": "record", "type": record_name(kind),
                "fields": {name: encode(item, records) for name, item in record_fields(value).items()}}
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in ARRAY_KINDS:
        array = np.asarray(value)
        return {"$": "scalar" if isinstance(value, np.generic) else "array", "dtype": array.dtype.str,
                "shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode("ascii")}
    raise TypeError(f"a task result holds a {kind.__name__}, which is not kept")


def decode(data: Any, records: Mapping[str, type]) -> Any:
    """The value `encode` made `data` of (with the same `records`).

    :raises ValueError, TypeError, KeyError: data `encode` did not make."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(item, records) for item in data]
    tag = data["$"]
    if tag == "tuple":
        return tuple(decode(item, records) for item in data["items"])
    if tag == "dict":
        return {decode(key, records): decode(item, records) for key, item in data["items"]}
    if tag == "record":
        return records[data["type"]](**{name: decode(item, records) for name, item in data["fields"].items()})
    if tag in ("array", "scalar"):
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in ARRAY_KINDS:
            raise ValueError(f"arrays of dtype {dtype} are not kept")
        array = np.frombuffer(base64.b64decode(data["data"], validate=True), dtype=dtype)
        array = array.reshape([int(n) for n in data["shape"]]).copy()
        return array[()] if tag == "scalar" else array
    raise ValueError(f"unknown tag {tag!r}")


def body_digest(body: bytes) -> str:
    """The digest on a result's line of the log: of its JSON."""
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def digest(identity: dict[str, Any]) -> str:
    """The digest naming a run's results: of its identity (JSON data) and the folder's `FORMAT`."""
    text = json.dumps({"format": FORMAT, **identity}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class TaskResults:
    """The finished tasks' results of one validation, kept in `FOLDER` of its report folder: each
    appended to `LOG` as a line `KEY DIGEST JSON` (DIGEST: `body_digest` of JSON) as its task
    finishes."""

    def __init__(self, out_dir: Path, identity: dict[str, Any], records: Sequence[type] = ()):
        """The results of the run `identity` names: those an earlier run of the same command kept
        (each line whose digest holds; a line cut short at the end is cut off), or none (the
        folder cleared of another run's, then marked as this run's). `records`: the named tuple
        and dataclass types the tasks' results hold.

        :raises StoreError: the folder is a symbolic link."""
        self.out_dir = out_dir
        self.records = {record_name(cls): cls for cls in records}
        self.folder = inside(out_dir, out_dir / FOLDER)
        self.digest = digest(identity)
        #: Each kept task's key: the offset and length of its JSON in the log.
        self.index: dict[str, tuple[int, int]] = {}
        end = self._read_log() if self._held_digest() == self.digest else None
        if end is None:
            self._clear()
            make_folder(self.folder)
            write_atomically(self.folder / IDENTITY, lambda file: file.write(
                json.dumps({"digest": self.digest}).encode()))
            end = 0
        log = self._open_log()
        try:
            if os.fstat(log).st_size > end:
                os.ftruncate(log, end)
        finally:
            os.close(log)
        self._flushed = time.monotonic()

    def _held_digest(self) -> str | None:
        """The digest the folder's results belong to (None: no folder, or no readable identity)."""
        try:
            return json.loads(read_inside(self.out_dir, self.folder / IDENTITY))["digest"]
        except (OSError, StoreError, ValueError, KeyError, TypeError):
            return None

    def _read_log(self) -> int | None:
        """Index the log's lines whose digest holds; the end of its last whole line (0: no log
        yet; None: a log that cannot be read, a link say)."""
        try:
            data = read_inside(self.out_dir, self.folder / LOG)
        except FileNotFoundError:
            return 0
        except (OSError, StoreError):
            return None
        end = 0
        for line in data.split(b"\n")[:-1]:  # what follows the last newline is a line cut short
            start, end = end, end + len(line) + 1
            parts = line.split(b" ", 2)
            if len(parts) == 3 and body_digest(parts[2]).encode() == parts[1]:
                self.index[parts[0].decode(errors="replace")] = (start + len(parts[0]) + len(parts[1]) + 2,
                                                                 len(parts[2]))
        return end

    def _open_log(self) -> int:
        """A descriptor of the log, opened to append (and read), made if missing, never through a link."""
        return os.open(inside(self.out_dir, self.folder / LOG),
                       os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)

    def _clear(self) -> None:
        """Remove the folder (and whatever it holds) if it is there."""
        if self.folder.is_dir():
            shutil.rmtree(self.folder)
        elif self.folder.exists():
            self.folder.unlink()
        else:
            return
        sync_folder(self.out_dir)

    def load(self, task: Task) -> Any:
        """The result kept for `task`, or `MISSING` (none kept, or one that cannot be read back).
        In-driver tasks, which spawn tasks rather than compute a result, are never kept."""
        if task.in_driver or task.key not in self.index:
            return MISSING
        offset, length = self.index[task.key]
        try:
            log = self._open_log()
            try:
                body = os.pread(log, length, offset)
            finally:
                os.close(log)
            return decode(json.loads(body), self.records)
        except (OSError, StoreError, ValueError, KeyError, TypeError, RecursionError):
            return MISSING

    def keep(self, task: Task, result: Any) -> None:
        """Append `task`'s result to the log (a kill then loses nothing), and flush the log to the
        disk if the last flush was `FLUSH_SECONDS` ago. A result holding a type `encode` does not
        take is not kept: its task runs again on a rerun."""
        if task.in_driver:
            return
        if not KEY.fullmatch(task.key):
            raise ValueError(f"task key {task.key!r} cannot start a line of the log")
        try:
            body = json.dumps(encode(result, self.records), separators=(",", ":")).encode()
        except TypeError:
            return
        line = b" ".join((task.key.encode(), body_digest(body).encode(), body)) + b"\n"
        log = self._open_log()
        try:
            written = 0
            while written < len(line):
                written += os.write(log, line[written:])
            self.index[task.key] = (os.fstat(log).st_size - 1 - len(body), len(body))
            if time.monotonic() - self._flushed >= FLUSH_SECONDS:
                if fsync_enabled():
                    os.fsync(log)
                self._flushed = time.monotonic()
        finally:
            os.close(log)

    def remove(self) -> None:
        """Remove the folder: the report is written, nothing is left to resume."""
        self._clear()


class ResumingExecutor:
    """An executor whose `run(tasks)` yields the results kept for tasks (`TaskResults`) without
    running them, passes the other tasks on to `executor` and keeps each result it yields: the
    callers iterate over one `run` as before, whatever was done earlier."""

    def __init__(self, executor, results: TaskResults):
        self.executor = executor
        self.results = results

    def run(self, tasks: Sequence[Task] | Iterable[Task]) -> Iterator[tuple[Task, Any]]:
        """A list of tasks: the kept results first, then the others' as `executor` runs them (as a
        list). An iterator of tasks: the kept results of its first tasks at once (most of a
        stopped run's work, held nowhere), then from the first task to run on, an iterator that
        `executor` draws from as before; a kept result it passes meanwhile is yielded with the next
        result (or at the end)."""
        found: deque[tuple[Task, Any]] = deque()
        if isinstance(tasks, Sequence):
            fresh = []
            for task in tasks:
                result = self.results.load(task)
                if result is MISSING:
                    fresh.append(task)
                else:
                    yield task, result
            if fresh:
                yield from self._ran(fresh, found)
            return
        stream = iter(tasks)
        for first in stream:
            result = self.results.load(first)
            if result is MISSING:
                break
            yield first, result
        else:
            return

        def fresh_stream() -> Iterator[Task]:
            yield first
            for task in stream:
                kept = self.results.load(task)
                if kept is MISSING:
                    yield task
                else:
                    found.append((task, kept))

        yield from self._ran(fresh_stream(), found)

    def _ran(self, tasks: Sequence[Task] | Iterable[Task], found: deque) -> Iterator[tuple[Task, Any]]:
        """`executor`'s results for `tasks`, each kept as it comes, with the kept ones in `found`."""
        with closing(self.executor.run(tasks)) as ran:
            for task, result in ran:
                while found:
                    yield found.popleft()
                self.results.keep(task, result)
                yield task, result
        while found:
            yield found.popleft()
