"""A user's agent is known by its code, never by where it lies: two copies of one player give
the same report, and the same random streams."""

from __future__ import annotations

import hashlib
import importlib.machinery
import sys
from collections.abc import Iterable
from pathlib import Path

from retrograde.errors import BadAgent

#: Hex digits of a digest written in names (the whole digest is in the stream name).
SHORT = 8


def code_digest(file: Path) -> str:
    """sha256 of `file` and of the other .py files of its folder (its helper modules), each
    with its name, in name order: "sha256:" and 64 hex digits."""
    digest = hashlib.sha256()
    folder = file.parent
    others = sorted(path for path in folder.glob("*.py") if path.name != file.name)
    for path in [file, *others]:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def module_file(module: str, cwd: Path) -> Path:
    """The file module `module` would be loaded from by its host process, which starts in `cwd`
    (first on its sys.path), found without importing anything (not even its parent packages).

    :raises BadAgent: no such module, or one that is not a Python file."""
    search, spec = [str(cwd), *sys.path], None
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        try:
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:depth]), search)
        except (ImportError, ValueError) as exc:
            raise BadAgent(f"module {module}: cannot find it ({exc})") from None
        if spec is None:
            break
        search = list(spec.submodule_search_locations or [])
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise BadAgent(f"module {module}: no such Python module in {cwd} or on sys.path")
    return Path(spec.origin)


def files_digest(paths: Iterable[Path], extra: str) -> str:
    """sha256 of the given files' contents (those that exist) and of `extra`."""
    digest = hashlib.sha256(extra.encode())
    for path in paths:
        if path.is_file():
            digest.update(path.read_bytes())
    return "sha256:" + digest.hexdigest()


def command_digest(words: list[str], cwd: Path, identity: str) -> str:
    """sha256 of an engine: its handshake's id and each word of its command, a word naming a file
    (relative to `cwd`) by the file's content, never its path; a program found on PATH (`python3`)
    by its name. Two copies of an engine give the same digest; other arguments, another one."""
    digest = hashlib.sha256(identity.encode() + b"\0")
    for k, word in enumerate(words):
        path = cwd / word
        by_content = path.is_file() and (k > 0 or "/" in word)
        digest.update(b"file\0" + path.read_bytes() if by_content else b"word\0" + word.encode())
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()
