"""What survives a crash of the operating system: every file a record or a published name vouches
for is flushed to the disk first (fsync of the file, then of the folder that names it).

The test watches the system calls: each fsync (which file or folder, by inode) and each rename,
in order. A record of a tier's chunks may be written only once every recorded chunk file was
flushed and its folder flushed after the file got its name; a new store may get its name only
once every file and folder in it was flushed."""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

from retrograde.data import store as stores
from retrograde.data.store import Store
from retrograde.games import make_game
from retrograde.pipeline.executors import InProcessExecutor
from retrograde.data.plan import make_plan
from retrograde.pipeline.stages import plan_stage, solve_stage

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
