"""What survives a crash of the operating system: every file a record or a published name vouches
for is flushed to the disk first (fsync of the file, then of the folder that names it).

The test watches the system calls: each fsync (which file or folder, by inode) and each rename,
in order. A record of a tier's chunks may be written only once every recorded chunk file was
flushed and its folder flushed after the file got its name; a new store may get its name only
once every file and folder in it was flushed.

And data/durable.py's other promises: a path inside a store runs through no symbolic link,
reading and flushing leave no descriptor open, a Ctrl-C during a read stays a Ctrl-C, and an
exclusive publish onto an existing name fails and cleans up."""

from __future__ import annotations

import errno
import itertools
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from retrograde.data import durable
from retrograde.data import store as stores
from retrograde.data.store import Store
from retrograde.errors import StoreError
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.data.plan import make_plan
from retrograde.pipeline.planning import plan_stage
from retrograde.pipeline.stages import solve_stage

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")


class Watch:
    """The order of fsyncs (by inode) and renames (by target) since the watch began."""

    def __init__(self, monkeypatch):
        self.clock = itertools.count()
        self.flushed: dict[tuple[int, int], int] = {}  # inode: when last flushed
        self.named: dict[str, int] = {}  # target path: when renamed into place
        fsync, replace, rename = os.fsync, os.replace, os.rename

        def watched_fsync(fd):
            fsync(fd)
            stat = os.fstat(fd)
            self.flushed[(stat.st_dev, stat.st_ino)] = next(self.clock)

        def watched_replace(source, target, **kw):
            replace(source, target, **kw)
            self.named[os.path.realpath(target)] = next(self.clock)

        def watched_rename(source, target, **kw):
            rename(source, target, **kw)
            self.named[os.path.realpath(target)] = next(self.clock)

        monkeypatch.setattr(os, "fsync", watched_fsync)
        monkeypatch.setattr(os, "replace", watched_replace)
        monkeypatch.setattr(os, "rename", watched_rename)

    def when_flushed(self, path: Path) -> int | None:
        stat = path.stat()
        return self.flushed.get((stat.st_dev, stat.st_ino))

    def on_disk(self, path: Path) -> bool:
        """The file is flushed, and its folder was flushed after the file got its name."""
        named = self.named.get(os.path.realpath(path), -1)
        file, folder = self.when_flushed(path), self.when_flushed(path.parent)
        return file is not None and folder is not None and folder > named


@pytest.mark.parametrize("game, params", [("tictactoe", {}), ("quixo", {"size": 3})])
def test_a_chunk_is_on_the_disk_before_its_record(game, params, tmp_path, monkeypatch):
    """Loop-free tiers (chunk tasks) and loopy groups (whole-group tasks): the driver records a
    chunk only once its files are on the disk."""
    monkeypatch.setenv("RETROGRADE_FSYNC", "1")
    with plan_stage(make_game(game, params), tmp_path / "s.zarr") as store:
        watch = Watch(monkeypatch)
        recorded, record = [], stores.Store.record_chunks

        def checked(self, name, summaries):
            summaries = list(summaries)
            for summary in summaries:
                for array in stores.ARRAYS:
                    path = self._chunk_file(name, array, summary["chunk"])
                    if path.exists():
                        assert watch.on_disk(path), f"{name} {array} chunk {summary['chunk']} recorded unflushed"
                        recorded.append(path)
            return record(self, name, summaries)

        monkeypatch.setattr(stores.Store, "record_chunks", checked)
        solve_stage(store, InProcessExecutor(), quiet=True)
    assert len(recorded) > 10


def test_a_new_store_is_on_the_disk_before_it_has_its_name(tmp_path, monkeypatch):
    monkeypatch.setenv("RETROGRADE_FSYNC", "1")
    watch = Watch(monkeypatch)
    path = tmp_path / "s.zarr"
    Store.create(path, make_plan(make_game("quixo", {"size": 3}))).close()
    published = watch.named[os.path.realpath(path)]
    entries = [path, *path.rglob("*")]
    assert len(entries) > 50
    for entry in entries:
        flushed = watch.when_flushed(entry)
        assert flushed is not None and flushed < published, entry.relative_to(tmp_path)
    assert watch.when_flushed(tmp_path) > published  # the new name itself


# --- every other durable write: on the disk when the call that writes it returns -------------------------------------
# Each test below fails if the write skips the fsync of its file or of its folder (after the rename).
def assert_on_disk(watch: Watch, *paths: Path) -> None:
    for path in paths:
        assert path.is_file(), path
        assert watch.when_flushed(path) is not None, f"{path.name} was never flushed"
        assert watch.on_disk(path), f"{path.name}: its folder was not flushed after it got its name"


def on_disk_after(monkeypatch, watch: Watch, owner, method: str, target) -> list[Path]:
    """Wrap `owner.method` so that each call's file (`target(*args, **kw)`) must be on the disk
    once it returns; returns the list of files checked."""
    checked, original = [], getattr(owner, method)

    def wrapped(*args, **kw):
        result = original(*args, **kw)
        path = Path(target(*args, **kw))
        assert_on_disk(watch, path)
        checked.append(path)
        return result

    monkeypatch.setattr(owner, method, wrapped)
    return checked


def test_the_attempt_and_every_record_document_are_on_the_disk(tmp_path, monkeypatch):
    """scratch/attempt when `begin_attempt` returns; a tier's document (its chunk records) each
    time `record_chunks` returns, so before a task that depends on it starts."""
    monkeypatch.setenv("RETROGRADE_FSYNC", "1")
    with plan_stage(make_game("tictactoe", {}), tmp_path / "s.zarr") as store:
        watch = Watch(monkeypatch)
        attempts = on_disk_after(monkeypatch, watch, stores.Store, "begin_attempt",
                                 lambda self: self.path / stores.SCRATCH / stores.ATTEMPT)
        records = on_disk_after(monkeypatch, watch, stores.Store, "record_chunks",
                                lambda self, name, summaries: self.path / "tiers" / name / "zarr.json")
        solve_stage(store, InProcessExecutor(), quiet=True)
    assert len(attempts) == 1 and len({path.parent.name for path in records}) == 10


def test_first_passes_and_propagation_checkpoints_are_on_the_disk(tmp_path, monkeypatch):
    """A loopy group's first-pass files and its propagation checkpoints (3x3 Quixo, a checkpoint
    after every level), each when its write returns: a resumed solve builds on them."""
    from retrograde.pipeline.scratch import Scratch

    monkeypatch.setenv("RETROGRADE_FSYNC", "1")
    monkeypatch.setenv("RETROGRADE_CHECKPOINT_SECONDS", "0")
    monkeypatch.setenv("RETROGRADE_SMALL_GROUP_CHUNKS", "0")
    with plan_stage(make_game("quixo", {"size": 3}), tmp_path / "s.zarr") as store:
        watch = Watch(monkeypatch)
        passes = on_disk_after(monkeypatch, watch, Scratch, "write_first_pass",
                               lambda self, name, chunk, *rest: self._scratch_file(name, chunk))
        checkpoints = on_disk_after(monkeypatch, watch, Scratch, "write_checkpoint",
                                    lambda self, group, parts, part, level, *rest, **named:
                                    self._checkpoint_file(group, parts, part, level))
        solve_stage(store, InProcessExecutor(), quiet=True)
    assert len(passes) > 5 and len(checkpoints) > 5


def test_training_artifacts_and_checkpoints_are_on_the_disk(tmp_path, monkeypatch):
    """A training's checkpoint each time it is saved, the artifact it ends with (.npz), and a
    JSON artifact (a `ga` one)."""
    from retrograde.data import artifact
    from retrograde.training import train

    monkeypatch.setenv("RETROGRADE_FSYNC", "1")
    watch = Watch(monkeypatch)
    saved = on_disk_after(monkeypatch, watch, artifact, "save_npz", lambda target, *rest: target)
    out = tmp_path / "rl.npz"
    train("rl:episodes=30,every=10", "tictactoe", out, seed=1)
    assert [path.name for path in saved] == ["checkpoint.npz"] * 3
    assert_on_disk(watch, out)
    artifact.save_json(tmp_path / "ga.json", {"genome": [1, 2, 3]})
    assert_on_disk(watch, tmp_path / "ga.json")


def test_workflow_state_and_report_files_are_on_the_disk(solved, tmp_path, monkeypatch):
    """What `run` records (workflow.json, status.json, verify.json: `write_json`) and the
    files of a validation report, when the call that writes them returns."""
    from retrograde.pipeline.stages import write_json
    from retrograde.validation import validate

    monkeypatch.setenv("RETROGRADE_FSYNC", "1")
    watch = Watch(monkeypatch)
    write_json(tmp_path / "workflow.json", {"workflow": "nim", "stages": {"plan": "done"}})
    assert_on_disk(watch, tmp_path / "workflow.json")
    report = tmp_path / "report"
    validate(solved("nim", {"heaps": [1, 2, 3]}), report, ["random"], games=1, positions=5, workers=0, quiet=True)
    assert_on_disk(watch, *(report / name for name in ("report.json", "report.md", "report.html")))


# --- paths inside a store, descriptors and interrupts ------------------------------------------------------------------
def test_a_link_below_the_first_component_is_refused(tmp_path):
    """durable.py: every component of the path below the root is checked, the deeper ones too."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "a").mkdir(parents=True)
    outside.mkdir()
    (root / "a" / "b").symlink_to(outside)
    with pytest.raises(StoreError, match="symbolic link"):
        durable.inside(root, root / "a" / "b" / "c")
    assert durable.inside(root, root / "a" / "c" / "d") == root / "a" / "c" / "d"


def test_flushing_a_file_leaves_no_descriptor_open(tmp_path):
    """data/durable.py: each flush opens the file and closes it again: 50 flushes leave this
    process's open descriptors as they were."""
    path = tmp_path / "f"
    path.write_bytes(b"x")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        durable._flush(path)
    assert len(os.listdir("/proc/self/fd")) == before


def test_reading_a_folder_inside_a_store_says_so_and_closes_it(tmp_path):
    """data/durable.py: `read_inside` on a folder raises IsADirectoryError (errno EISDIR), as
    `open` does, and leaves no descriptor open (the mutation pass found its own check of a
    folder unreachable: `os.fdopen` raises first, and then did not close the descriptor)."""
    (tmp_path / "tiers").mkdir()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        with pytest.raises(IsADirectoryError) as raised:
            durable.read_inside(tmp_path, tmp_path / "tiers")
        assert raised.value.errno == errno.EISDIR
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_ctrl_c_while_reading_inside_a_store_stays_a_ctrl_c(tmp_path):
    """data/durable.py: an interrupt landing anywhere in `read_inside` propagates as itself. (CI
    caught a Ctrl-C to a starting solve reported as a damaged plan, "OSError: [Errno 9] Bad file
    descriptor": landing in `os.fdopen` once the file object existed, it made the object close the
    descriptor, and then `read_inside` closed it again.) A timer interrupts about half the reads
    here; the code that double-closed failed about one read in 300."""
    (tmp_path / "zarr.json").write_bytes(b"{}" * 1500)
    armed = False

    def interrupt(signum, frame):  # once a read: never inside the test's own handling
        nonlocal armed
        if armed:
            armed = False
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    open_before = _descriptors_on(tmp_path / "zarr.json")
    signal.setitimer(signal.ITIMER_REAL, 5e-5, 5e-5)
    reads = interrupted = 0
    failures = []
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                reads += 1
                armed = True
                assert durable.read_inside(tmp_path, tmp_path / "zarr.json") == b"{}" * 1500
                armed = False
            except KeyboardInterrupt:
                interrupted += 1
            except OSError as exc:
                failures.append(exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        for fd in _descriptors_on(tmp_path / "zarr.json") - open_before:
            os.close(fd)
    assert not failures, f"{len(failures)} of {reads} reads: {failures[0]!r}"
    assert reads > 1000 and interrupted > 100, (reads, interrupted)


def _descriptors_on(file: Path) -> set[int]:
    """This process's descriptors open on `file`. An interrupt landing after `os.open` returns
    and before `read_inside`'s `try` leaks its descriptor (no Python code can close that window):
    the test above lands about a thousand there and closes them, since CI's pytest, left holding
    them, later ran past select()'s limit of 1,024 descriptors."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == str(file):
                found.add(int(fd))
        except OSError:  # the listing's own descriptor, closed by now
            pass
    return found


def test_an_exclusive_publish_onto_an_existing_file_fails_and_cleans_up(tmp_path):
    """data/durable.py: publishing a temporary file onto a name that exists, exclusively, raises
    FileExistsError, leaves the existing file as it was and removes the temporary one."""
    target, partial = tmp_path / "record", tmp_path / "record.x.partial"
    target.write_bytes(b"first")
    partial.write_bytes(b"second")
    with pytest.raises(FileExistsError):
        durable._publish(partial, target, exclusive=True)
    assert target.read_bytes() == b"first" and not partial.exists()
