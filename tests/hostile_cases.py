"""The hostile-input suite (issue 36, point 2): a table of cases, each a command line with the
hostile input it meets, run as a real process (`python -m retrograde ...`) in a folder of its own.

Every subcommand gets its share: bad numbers (negative, zero, huge, 1e309, nan, digits of other
scripts such as '²' and '٣'), bad paths (missing, a file where a folder is expected, a fifo, a
dangling link, glob characters, commas, '=', ':', spaces, non-ASCII), damaged or hand-edited
artifacts (ga .json, rl and dqn .npz: missing members, wrong shapes, NaN, headers claiming 10^12
elements), damaged stores (swapped, renamed or copied tier folders, edited documents, cut chunks),
workflow states, report and checkpoint folders, bad agent specs and bad positions. Every defect of
issue 36 that a command line can show has its cases (`Case.item`).

Each case checks:

* the exit status: the documented one (docs/commands.md: 2 for a usage error, 74 when the system
  refused a file operation, 1 for a store or run that cannot go on, 3 for verify's incomplete
  store; 0 for the cases that must work, such as paths with commas);
* exactly one line on stderr (none for a case that works, or for verify's findings, which go to
  stdout), and no traceback anywhere;
* the disk unchanged: a listing (kind, size, modification time) of the shared stores and files
  and of the case's folder, before and after; a case that works may only add or change the
  outputs it names (`Case.writes`);
* an answer within `ANSWER_SECONDS` (10 s, starting Python included), past which the case's
  process group is killed and the case is a hang.

A case with a known defect names it (`Case.defect`: the command, what it printed, what it should
do): tests/test_hostile.py marks it xfail(strict=True), so the suite stays green and the defect
visible. benchmarks/bench_fuzz.py runs every case and counts the outcomes; the test module runs a
fixed stratified subset (`in_suite`).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from processes import kill_group

#: Seconds a case may take to answer, starting Python included.
ANSWER_SECONDS = 10
HUGE = "1000000000000"
#: Numbers no option should take: negative, zero, huge, overflowing, not a number, digits that
#: str.isdigit passes but ASCII parsers refuse (superscript two, Arabic-Indic three).
BAD_NUMBERS = {"negative": "-3", "huge": HUGE * 3, "1e309": "1e309", "nan": "nan", "superscript": "²",
               "arabic": "٣"}
#: Characters a path must survive (issue 36, item 4).
ODD_NAME = "a,b=c:d é ü"
#: The outcomes a case comes to.
OUTCOMES = ("refused cleanly", "ok", "traceback", "hang", "disk changed", "several lines", "accepted",
            "wrong status", "wrong message")
NIM = "nim --heaps 1,2,3"
NIM_RULES = ["--heaps", "1,2,3"]


# --- the sandbox: stores and artifacts made once --------------------------------------------------------
@dataclass
class Sandbox:
    """Solved stores and trained artifacts the cases read (`shared/`, never to change) and a
    folder for each case (`cases/`)."""

    root: Path

    @property
    def shared(self) -> Path:
        return self.root / "shared"

    #: Placeholders of a case's words: a shared store or file.
    PLACES = {"nim": "nim.zarr", "nim4": "nim4.zarr", "ttt": "ttt.zarr", "partial": "partial.zarr",
              "f3nim": "f3nim.zarr", "f3ttt": "f3ttt.zarr", "rl": "rl.npz", "ga": "ga.json", "dqn": "dqn.npz",
              "text": "text.txt"}

    def place(self, key: str) -> Path:
        return self.shared / self.PLACES[key]

    @classmethod
    def build(cls, root: Path) -> Sandbox:
        """Solve and train what the cases read (about 20 s, most of it importing jax for dqn)."""
        from conftest import solve_in_process
        from test_fuzz import solve_into
        from test_upgrade import format3_copy
        from retrograde.api import train

        sandbox = cls(root)
        sandbox.shared.mkdir(parents=True)
        (root / "cases").mkdir()
        solve_in_process("nim", {"heaps": [1, 2, 3]}, sandbox.place("nim"))
        solve_in_process("nim", {"heaps": [1, 2, 3, 4]}, sandbox.place("nim4"))
        solve_in_process("tictactoe", None, sandbox.place("ttt"))
        solve_into("tictactoe", {}, str(sandbox.place("partial")), stop_after=6)
        format3_copy(sandbox.place("nim"), sandbox.place("f3nim"))
        format3_copy(sandbox.place("ttt"), sandbox.place("f3ttt"))
        train("rl:episodes=30", "tictactoe", sandbox.place("rl"), seed=1, quiet=True)
        train("ga:generations=1,population=2,offspring=2,games=1", NIM, sandbox.place("ga"), seed=1, quiet=True)
        train("dqn:episodes=3,memory=64,batch=8,hidden=4", "tictactoe", sandbox.place("dqn"), seed=1, quiet=True)
        sandbox.place("text").write_text("hello\n")
        return sandbox

    def folder(self, case: Case) -> Path:
        """A fresh, empty folder for `case` (the command runs in it)."""
        here = self.root / "cases" / case.slug
        if here.exists() or here.is_symlink():
            _remove(here)
        here.mkdir()
        return here

    def words(self, case: Case) -> list[str]:
        """The case's command line, its placeholders ({ttt}, {rl}, ...) replaced by the shared paths."""
        found = []
        for word in case.argv:
            for key in self.PLACES:
                word = word.replace("{" + key + "}", str(self.place(key)))
            found.append(word)
        return found


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink()
        return
    for entry in path.iterdir():  # a fifo or link inside must not stop rmtree
        _remove(entry)
    path.rmdir()


def listing(*roots: Path) -> dict[str, tuple]:
    """Every entry under `roots` (not following links): its kind, and a file's size and
    modification time; a write, a new entry, a removal or a replacement shows. A folder's own
    time is left out: a lock file taken and given back touches it and leaves nothing."""
    found: dict[str, tuple] = {}
    for root in roots:
        for where, folders, names in os.walk(root):
            for name in [*folders, *names]:
                path = os.path.join(where, name)
                st = os.lstat(path)
                found[path] = ((stat.S_IFMT(st.st_mode),) if stat.S_ISDIR(st.st_mode)
                               else (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns))
    return found


# --- what a case's folder holds: setup steps ---------------------------------------------------------------
Step = Callable[[Path, Sandbox], object]


def copy(key: str, name: str | None = None) -> Step:
    """A copy of a shared store or file, in the case's folder as `name`."""
    def step(here: Path, sandbox: Sandbox) -> None:
        source = sandbox.place(key)
        target = here / (name or source.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copyfile)(source, target)
    return step


def write(name: str, content: str | bytes) -> Step:
    def step(here: Path, sandbox: Sandbox) -> None:
        path = here / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return step


def folder(name: str) -> Step:
    return lambda here, sandbox: (here / name).mkdir(parents=True)


def fifo(name: str) -> Step:
    def step(here: Path, sandbox: Sandbox) -> None:
        (here / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(here / name)
    return step


def link(name: str, target: str) -> Step:
    """A symbolic link `name` -> `target` (dangling if nothing is there)."""
    def step(here: Path, sandbox: Sandbox) -> None:
        (here / name).parent.mkdir(parents=True, exist_ok=True)
        (here / name).symlink_to(target)
    return step


def swap(first: str, second: str) -> Step:
    """Two entries of the case's folder trade names."""
    def step(here: Path, sandbox: Sandbox) -> None:
        (here / first).rename(here / "swap.tmp")
        (here / second).rename(here / first)
        (here / "swap.tmp").rename(here / second)
    return step


def rename(old: str, new: str) -> Step:
    return lambda here, sandbox: (here / old).rename(here / new)


def remove(name: str) -> Step:
    return lambda here, sandbox: _remove(here / name)


def replace_tree(source: str, target: str) -> Step:
    """`target` replaced by a copy of `source` (a tier copied over another)."""
    def step(here: Path, sandbox: Sandbox) -> None:
        shutil.rmtree(here / target)
        shutil.copytree(here / source, here / target)
    return step


def cut(name: str, keep: int) -> Step:
    """The file cut to its first `keep` bytes."""
    def step(here: Path, sandbox: Sandbox) -> None:
        data = (here / name).read_bytes()
        (here / name).write_bytes(data[:keep])
    return step


def edit_json(name: str, change: Callable[[dict], object]) -> Step:
    """A JSON document edited by `change` (which edits it in place, or returns its replacement)."""
    def step(here: Path, sandbox: Sandbox) -> None:
        document = json.loads((here / name).read_text())
        changed = change(document)
        (here / name).write_text(json.dumps(document if changed is None else changed))
    return step


def plan_edit(change: Callable[[dict], object]) -> Callable[[dict], None]:
    """An edit of a store's plan (attributes.retrograde.plan of its zarr.json)."""
    def edit(document: dict) -> None:
        plan = document["attributes"]["retrograde"]
        changed = change(plan["plan"])
        if changed is not None:
            plan["plan"] = changed
    return edit


def npz(name: str, source: str, *, drop: tuple[str, ...] = (), change: dict | None = None,
        metadata: Callable[[dict], object] | None = None) -> Step:
    """An .npz artifact made from a shared one: members dropped, replaced (`change`: name ->
    array) or its metadata edited."""
    def step(here: Path, sandbox: Sandbox) -> None:
        with np.load(sandbox.place(source), allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files if key not in drop}
        if metadata is not None:
            document = json.loads(str(arrays["metadata"]))
            edited = metadata(document)
            arrays["metadata"] = np.array(json.dumps(document if edited is None else edited))
        arrays.update(change or {})
        with open(here / name, "wb") as f:
            np.savez(f, **arrays)
    return step


def claimed_npz(name: str, source: str, member: str, shape: tuple[int, ...]) -> Step:
    """An .npz artifact whose `member` claims `shape` in its .npy header but holds the bytes of
    the shared artifact's array (a header claiming 10^12 elements)."""
    def step(here: Path, sandbox: Sandbox) -> None:
        with np.load(sandbox.place(source), allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
        with zipfile.ZipFile(here / name, "w", zipfile.ZIP_DEFLATED) as out:
            for key, array in arrays.items():
                with out.open(f"{key}.npy", "w") as f:
                    header = np.lib.format.header_data_from_array_1_0(array)
                    if key == member:
                        header["shape"] = shape
                    np.lib.format.write_array_header_1_0(f, header)
                    f.write(array.tobytes())
    return step


def ga_json(name: str, change: Callable[[dict], object]) -> Step:
    """The shared ga artifact, edited by `change`."""
    def step(here: Path, sandbox: Sandbox) -> None:
        document = json.loads(sandbox.place("ga").read_text())
        changed = change(document)
        (here / name).write_text(json.dumps(document if changed is None else changed))
    return step


def hold_lock(name: str) -> Step:
    """Another writer holds the store `name` (a folder of the case's): its folder is flocked as a
    running solve flocks it; the lock goes when the case ends (the step's cleanup)."""
    import fcntl

    def step(here: Path, sandbox: Sandbox) -> Callable[[], None]:
        fd = os.open(here / name, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return lambda: os.close(fd)
    return step


def finished_workflow(workflow: str, name: str, *, drop: tuple[str, ...] = ()) -> Step:
    """DIR `name` holding a `run tictactoe` state whose plan, solve, verify and train are done
    (the shared store and Q-learner, copied): a rerun goes on with the stages in `drop`."""
    def step(here: Path, sandbox: Sandbox) -> None:
        out = here / name / workflow
        out.mkdir(parents=True)
        shutil.copytree(sandbox.place("ttt"), out / "store.zarr")
        shutil.copyfile(sandbox.place("rl"), out / "rl.npz")
        stages = {stage: "done" for stage in ("plan", "solve", "verify", "train", "validate") if stage not in drop}
        (out / "workflow.json").write_text(json.dumps({"workflow": workflow, "game": workflow, "params": {},
                                                       "store": "store.zarr", "stages": stages}))
    return step


# --- a case -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One hostile input: the command line (`argv`, with placeholders of shared paths), what its
    folder holds first (`setup`), and what must come of it."""

    name: str
    argv: tuple[str, ...]
    #: The exit status that must come (for a `query`: the HTTP status).
    exit: int = 2
    #: Text the one line must hold (stdout's, where `lines` is 0 and the exit non-zero).
    needle: str = ""
    setup: tuple[Step, ...] = ()
    stdin: str = ""
    #: Top-level names in the case's folder that a working case may create or change.
    writes: tuple[str, ...] = ()
    #: Lines on stderr (1: a refusal; 0: a case that works, or verify's findings on stdout).
    lines: int = 1
    seconds: float = ANSWER_SECONDS
    #: A known defect, said for the lead: the case is expected to fail until it is fixed.
    defect: str = ""
    #: The issue-36 item the case holds.
    item: int | None = None
    #: For `explore`: the query asked of the server it starts (path and query string).
    query: str = ""

    @property
    def command(self) -> str:
        """The subcommand the case is counted under ("(none)" for a command line without one)."""
        return "(none)" if self.name.startswith("(none)") else self.argv[0]

    @property
    def slug(self) -> str:
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in self.name)[:80]


@dataclass
class Verdict:
    """What a case came to: its `outcome` (one of `OUTCOMES`) and why."""

    case: Case
    outcome: str
    why: str
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    changed: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.outcome in ("refused cleanly", "ok")


def run_case(case: Case, sandbox: Sandbox) -> Verdict:
    """Set up the case's folder, run the case, and judge it."""
    here = sandbox.folder(case)
    cleanups = [done for step in case.setup if callable(done := step(here, sandbox))]
    try:
        before = listing(sandbox.shared, here)
        started = time.monotonic()
        if case.query:
            code, stdout, stderr, hung = _ask_server(sandbox.words(case), case, here)
        else:
            code, stdout, stderr, hung = _run(sandbox.words(case), case, here)
        seconds = time.monotonic() - started
        after = listing(sandbox.shared, here)
    finally:
        for cleanup in cleanups:
            cleanup()
    allowed = tuple(str(here / name) for name in case.writes)
    changed = sorted(path for path in set(before) | set(after)
                     if before.get(path) != after.get(path)
                     and not any(path == w or path.startswith(w + os.sep) for w in allowed))
    return judge(case, code, stdout, stderr, hung, seconds, changed)


def judge(case: Case, code, stdout: str, stderr: str, hung: bool, seconds: float, changed: list[str]) -> Verdict:
    """The outcome, the worst first: a hang, a traceback, a changed disk, bad input accepted
    (exit 0 where a refusal must come), several lines (or none), a wrong status, a line without
    the needle."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    verdict = Verdict(case, "", "", code, stdout, stderr, seconds, changed)
    if hung:
        verdict.outcome, verdict.why = "hang", f"no answer in {case.seconds:g} s"
    elif "Traceback" in stdout + stderr or (code is not None and code < 0):
        verdict.outcome, verdict.why = "traceback", (stderr or stdout)[-600:] or f"killed by signal {-code}"
    elif changed:
        verdict.outcome, verdict.why = "disk changed", ", ".join(changed[:5])
    elif code == 0 and case.exit != 0:
        verdict.outcome, verdict.why = "accepted", f"exit 0, not {case.exit}: {stdout[-300:]}"
    elif len(lines) != case.lines:
        verdict.outcome, verdict.why = "several lines", f"{len(lines)} lines on stderr, not {case.lines}: {stderr[-600:]}"
    elif code and case.lines == 1 and not lines[0].startswith("retrograde: error:"):
        verdict.outcome, verdict.why = "several lines", f"not an error line: {lines[0]}"
    elif code != case.exit:
        verdict.outcome, verdict.why = "wrong status", f"exit {code}, not {case.exit}: {(stderr or stdout)[-300:]}"
    elif case.needle and case.needle not in (lines[0] if case.lines else stdout):
        verdict.outcome, verdict.why = "wrong message", f"no {case.needle!r} in {(stderr or stdout)[-300:]}"
    else:
        verdict.outcome = "ok" if case.exit in (0, 200) else "refused cleanly"
    return verdict


def _environment() -> dict[str, str]:
    # what survives a power loss is not the question here: no fsync (faster)
    return dict(os.environ, PYTHONUNBUFFERED="1", RETROGRADE_FSYNC="0")


def _start(words: list[str], here: Path, *, stdin) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "retrograde", *words], cwd=here, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_environment(),
                            start_new_session=True)


def _run(words: list[str], case: Case, here: Path) -> tuple[int | None, str, str, bool]:
    """Run the command to its end or to the case's time limit (then its group is killed)."""
    proc = _start(words, here, stdin=subprocess.PIPE)
    try:
        out, err = proc.communicate(case.stdin.encode(errors="surrogateescape"), timeout=case.seconds)
        hung = False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        hung = True
    finally:
        kill_group(proc)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), hung


def _ask_server(words: list[str], case: Case, here: Path) -> tuple[int | None, str, str, bool]:
    """Start `explore`, ask it `case.query` once it prints its address, then stop it with Ctrl-C:
    the HTTP status stands for the exit status and the answer's body for stderr (one line); the
    server's own stderr must hold no traceback and it must stop with status 0."""
    proc = _start([*words, "--port", "0"], here, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + case.seconds
    try:
        address = _address(proc, deadline)
        if address is None:
            kill_group(proc)
            return proc.returncode, "", "no address printed", True
        try:
            with urllib.request.urlopen(address.rstrip("/") + case.query, timeout=deadline - time.monotonic()) as reply:
                status, body = reply.status, reply.read().decode(errors="replace")
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read().decode(errors="replace")
        except (TimeoutError, urllib.error.URLError):
            return None, "", "", True
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return status, "", body, True
        server = err.decode(errors="replace")
        if "Traceback" in server or proc.returncode != 0:
            return proc.returncode, "", f"the server ended with status {proc.returncode}: {server[-600:]}", False
        return status, "", "retrograde: error: " + body if status >= 400 else body, False
    finally:
        kill_group(proc)


def _address(proc: subprocess.Popen, deadline: float) -> str | None:
    """The http:// address the server prints on its first line, or None by the deadline."""
    seen = b""
    with selectors.DefaultSelector() as selector:  # epoll: no limit on descriptor numbers, as select() has
        for stream in (proc.stdout, proc.stderr):
            selector.register(stream, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            for key, _ in selector.select(0.1):
                seen += os.read(key.fd, 4096)
            if b"http://" in seen and b"\n" in seen[seen.index(b"http://"):]:
                text = seen.decode(errors="replace")
                return text[text.index("http://"):].split()[0]
            if proc.poll() is not None:
                return None
    return None


# --- the table ---------------------------------------------------------------------------------------------
def _numbers(prefix: str, argv: Callable[[str], tuple[str, ...]], *, skip: tuple[str, ...] = (),
             ok: tuple[str, ...] = (), writes: tuple[str, ...] = (), item: int | None = None) -> list[Case]:
    """One case per bad number (`BAD_NUMBERS`) put where `argv` puts it: refused (exit 2), but
    for the kinds in `ok`, which are in range there (a huge seed, a huge upper limit) and must
    work, writing only `writes`. Options read by click's INT take '٣' as 3 (Python's int does):
    those skip "arabic"."""
    return [Case(f"{prefix} {kind}", argv(value), item=item,
                 **({"exit": 0, "lines": 0, "writes": writes} if kind in ok else {}))
            for kind, value in BAD_NUMBERS.items() if kind not in skip]


def _artifact_cases() -> list[Case]:
    """Damaged and hand-edited artifacts of every kind, each played by `match` (refused before a
    game is played: one line, exit 2)."""
    def match(spec: str, game: str = "tictactoe") -> tuple[str, ...]:
        return ("match", spec, "random", "--game", game, "--games", "1", "--quiet")

    rl, ga, dqn = "rl:params=rl.npz", "ga:params=ga.json", "dqn:params=dqn.npz"
    nan_q = np.full((6046, 9), np.nan, dtype=np.float32)
    cases = [
        # rl .npz
        Case("rl: the file is missing", match(rl)),
        Case("rl: an empty file", match(rl), setup=(write("rl.npz", b""),)),
        Case("rl: text, not a zip", match(rl), setup=(write("rl.npz", "not an artifact\n"),)),
        Case("rl: cut short", match(rl), setup=(copy("rl"), cut("rl.npz", 300))),
        Case("rl: a folder", match(rl), setup=(folder("rl.npz"),)),
        Case("rl: a fifo", match(rl), setup=(fifo("rl.npz"),)),
        Case("rl: a dangling link", match(rl), setup=(link("rl.npz", "nowhere.npz"),)),
        Case("rl: no q member", match(rl), setup=(npz("rl.npz", "rl", drop=("q",)),), item=5),
        Case("rl: no metadata member", match(rl), setup=(npz("rl.npz", "rl", drop=("metadata",)),)),
        Case("rl: q full of NaN", match(rl), setup=(npz("rl.npz", "rl", change={"q": nan_q}),), item=5),
        Case("rl: q holding inf", match(rl),
             setup=(npz("rl.npz", "rl", change={"q": np.full((6046, 9), np.inf, dtype=np.float32)}),)),
        Case("rl: q of the wrong shape", match(rl), setup=(npz("rl.npz", "rl", change={"q": np.zeros((5, 9))}),)),
        Case("rl: q of one dimension", match(rl), setup=(npz("rl.npz", "rl", change={"q": np.zeros(6046 * 9)}),)),
        Case("rl: q of text", match(rl), setup=(npz("rl.npz", "rl", change={"q": np.array(["a"] * 9)}),)),
        Case("rl: header claims 10^12 rows", match(rl), setup=(claimed_npz("rl.npz", "rl", "q", (10**12, 9)),),
             item=5),
        Case("rl: header claims a negative shape", match(rl), setup=(claimed_npz("rl.npz", "rl", "q", (-1, 9)),)),
        Case("rl: metadata not JSON", match(rl), setup=(npz("rl.npz", "rl", change={"metadata": np.array("{cut")}),)),
        Case("rl: metadata a list", match(rl), setup=(npz("rl.npz", "rl", metadata=lambda m: [1, 2]),)),
        Case("rl: another game's artifact", match(rl, NIM), setup=(copy("rl"),)),
        Case("rl: metadata says ga", match(rl), setup=(npz("rl.npz", "rl", metadata=lambda m: {**m, "learner": "ga"}),)),
        Case("rl: metadata of format 99", match(rl), setup=(npz("rl.npz", "rl", metadata=lambda m: {**m, "version": 99}),)),
        Case("rl: seed of text", match(rl), setup=(npz("rl.npz", "rl", metadata=lambda m: {**m, "seed": "x"}),)),
        Case("rl: learning curve of NaN", match(rl),
             setup=(npz("rl.npz", "rl", metadata=lambda m: {**m, "learning_curve": [{"episodes": float("nan")}]}),)),
        Case("rl: a ga artifact given as rl", match("rl:params=ga.json", NIM), setup=(copy("ga"),)),
        # ga .json
        Case("ga: the file is missing", match(ga, NIM)),
        Case("ga: not JSON", match(ga, NIM), setup=(write("ga.json", "{"),)),
        Case("ga: a JSON list", match(ga, NIM), setup=(write("ga.json", "[1, 2, 3]"),)),
        Case("ga: not UTF-8", match(ga, NIM), setup=(write("ga.json", b"\xff\xfe{}"),)),
        Case("ga: no genome", match(ga, NIM), setup=(ga_json("ga.json", lambda d: d.pop("genome")),)),
        Case("ga: NaN weights", match(ga, NIM),
             setup=(ga_json("ga.json", lambda d: d["genome"].update(weights=[float("nan")] * 6)),)),
        Case("ga: weights of text", match(ga, NIM),
             setup=(ga_json("ga.json", lambda d: d["genome"].update(weights=["x"] * 6)),)),
        Case("ga: too few weights", match(ga, NIM), setup=(ga_json("ga.json", lambda d: d["genome"].update(weights=[1.0])),)),
        Case("ga: a million weights", match(ga, NIM),
             setup=(ga_json("ga.json", lambda d: d["genome"].update(weights=[0.5] * 10**6)),)),
        Case("ga: an unknown genome kind", match(ga, NIM),
             setup=(ga_json("ga.json", lambda d: d["genome"].update(kind="nope")),)),
        Case("ga: another kind's names", match(ga, NIM),
             setup=(ga_json("ga.json", lambda d: d["genome"].update(names=["a", "b", "c", "d", "e", "f"])),)),
        Case("ga: another game's artifact", match(ga), setup=(copy("ga"),)),
        Case("ga: nim of other heaps", match(ga, "nim --heaps 1,2,4"), setup=(copy("ga"),)),
        Case("ga: format of another program", match(ga, NIM), setup=(ga_json("ga.json", lambda d: d.update(format="x")),)),
        Case("ga: fitness of text", match(ga, NIM), setup=(ga_json("ga.json", lambda d: d.update(fitness="best")),)),
        Case("ga: an rl artifact given as ga", match("ga:params=rl.npz"), setup=(copy("rl"),)),
        Case("ga: a fifo", match(ga, NIM), setup=(fifo("ga.json"),)),
        Case("ga: a 20 MB document", match(ga, NIM), setup=(write("ga.json", "[" + "0," * 10**7 + "0]"),)),
        # dqn .npz
        Case("dqn: the file is missing", match(dqn)),
        Case("dqn: no w2 member", match(dqn), setup=(npz("dqn.npz", "dqn", drop=("w2",)),)),
        Case("dqn: w1 of the wrong shape", match(dqn),
             setup=(npz("dqn.npz", "dqn", change={"w1": np.zeros((3, 3), dtype=np.float32)}),)),
        Case("dqn: NaN weights", match(dqn),
             setup=(npz("dqn.npz", "dqn", change={"b1": np.full(4, np.nan, dtype=np.float32)}),)),
        Case("dqn: header claims 10^12 elements", match(dqn), setup=(claimed_npz("dqn.npz", "dqn", "w1", (10**6, 10**6)),)),
        Case("dqn: a network of 10^12 hidden units", match(dqn),
             setup=(npz("dqn.npz", "dqn", metadata=lambda m: m["network"].update(hidden=10**12)),)),
        Case("dqn: an unknown model", match(dqn), setup=(npz("dqn.npz", "dqn", metadata=lambda m: m.update(model="cnn")),)),
        Case("dqn: another game's artifact", match(dqn, NIM), setup=(copy("dqn"),)),
        Case("dqn: an rl artifact given as dqn", match("dqn:params=rl.npz"), setup=(copy("rl"),)),
        Case("dqn: weights of text", match(dqn), setup=(npz("dqn.npz", "dqn", change={"w2": np.array(["x"])}),)),
    ]
    return cases


def _store_damage_cases() -> list[Case]:
    """Stores damaged or edited by hand, met by status, probe and verify (and solve)."""
    tiers = "s.zarr/tiers"
    swapped = (copy("nim4", "s.zarr"), swap(f"{tiers}/s4", f"{tiers}/s6"))
    renamed = (copy("nim", "s.zarr"), rename(f"{tiers}/s2", f"{tiers}/s9"))
    copied = (copy("nim4", "s.zarr"), replace_tree(f"{tiers}/s4", f"{tiers}/s6"))
    chunk = f"{tiers}/s3/outcome/c/0"
    plan_doc = "s.zarr/zarr.json"
    tier_doc = f"{tiers}/s3/zarr.json"
    bad_plan = lambda change: (copy("nim", "s.zarr"), edit_json(plan_doc, plan_edit(change)))  # noqa: E731
    damage = {
        "swapped tiers": (swapped, "0,0,2,4", "swapped, renamed or copied", 2),
        "a renamed tier": (renamed, "1,1,0", "", 2),
        "a tier copied over another": (copied, "0,0,2,4", "swapped, renamed or copied", 2),
        "a chunk emptied": ((copy("nim", "s.zarr"), write(chunk, b"")), "0,1,2", "s3", None),
        "a chunk cut short": ((copy("nim", "s.zarr"), cut(chunk, 5)), "0,1,2", "s3", None),
        "a chunk removed": ((copy("nim", "s.zarr"), remove(chunk)), "0,1,2", "s3", None),
        "a chunk a folder": ((copy("nim", "s.zarr"), remove(chunk), folder(chunk)), "0,1,2", "s3", None),
        "a chunk a fifo": ((copy("nim", "s.zarr"), remove(chunk), fifo(chunk)), "0,1,2", "s3", None),
        "a chunk a dangling link": ((copy("nim", "s.zarr"), remove(chunk), link(chunk, "/nonexistent")), "0,1,2",
                                    "s3", None),
        "a tier's record removed": ((copy("nim", "s.zarr"), remove(tier_doc)), "0,1,2", "s3", None),
        "a tier's record not JSON": ((copy("nim", "s.zarr"), write(tier_doc, "{")), "0,1,2", "s3", None),
        "a tier's checksum edited": ((copy("nim", "s.zarr"), edit_json(
            tier_doc, lambda d: d["attributes"].update(checksum="0" * 32))), "0,1,2", "s3", None),
        "a tier's counts edited": ((copy("nim", "s.zarr"), edit_json(
            tier_doc, lambda d: d["attributes"].update(win=10**12))), "0,1,2", "s3", None),
        "a tier's array claims 10^12 positions": ((copy("nim", "s.zarr"), edit_json(
            f"{tiers}/s3/remoteness/zarr.json", lambda d: d.update(shape=[10**12]))), "0,1,2", "s3", None),
        "the plan not JSON": ((copy("nim", "s.zarr"), write(plan_doc, "{")), "1,2,3", "", None),
        "the plan a list": (bad_plan(lambda p: [1, 2]), "1,2,3", "plan", None),
        "the plan of format 99": (bad_plan(lambda p: p.update(format=99)), "1,2,3", "format", None),
        "the plan of an unknown game": (bad_plan(lambda p: p.update(game="chess")), "1,2,3", "", None),
        "the plan's heaps huge": (bad_plan(lambda p: p["params"].update(heaps=[10**12])), "1,2,3", "", None),
        "the plan's tiers cut": (bad_plan(lambda p: p.update(tiers=p["tiers"][:2])), "1,2,3", "", None),
    }
    #: status reads the plan and the tiers' records, not their arrays: damage below is verify's
    #: and probe's to find.
    below_records = {"a chunk emptied", "a chunk cut short", "a chunk removed", "a chunk a folder", "a chunk a fifo",
                     "a chunk a dangling link", "a tier's array claims 10^12 positions"}
    cases = []
    for name, (setup, position, needle, item) in damage.items():
        if name not in below_records:
            cases.append(Case(f"status: {name}", ("status", "--store", "s.zarr"), exit=1, needle=needle,
                              setup=setup, item=item))
        cases.append(Case(f"probe: {name}", ("probe", "--store", "s.zarr", position), exit=1, needle=needle,
                          setup=setup, item=item))
        # verify reports what it finds in a store it can open on stdout; a store it cannot open
        # (its plan damaged) or a link inside it is refused in one line
        refused = name.startswith("the plan") or name == "a chunk a dangling link"
        cases.append(Case(f"verify: {name}", ("verify", "--store", "s.zarr", "--workers", "0", "--quiet"), exit=1,
                          setup=setup, item=item, lines=1 if refused else 0))
    return cases


def _path_cases() -> list[Case]:
    """Bad paths where a store, an artifact or an output goes."""
    cases = []
    store_commands = {
        "status": ("status", "--store", "{}"),
        "verify": ("verify", "--store", "{}", "--workers", "0", "--quiet"),
        "probe": ("probe", "--store", "{}", "1,2,3"),
        "play": ("play", "--store", "{}"),
        "analyze": ("analyze", "--store", "{}", "--quiet"),
        "upgrade": ("upgrade", "--store", "{}"),
        "explore": ("explore", "--store", "{}", "--port", "0"),
    }
    bad_stores = {
        "missing": ((), "x.zarr"),
        "a file": ((write("x.zarr", "mine\n"),), "x.zarr"),
        "under a file": ((write("f", "mine\n"),), "f/x.zarr"),
        "an empty folder": ((folder("x.zarr"),), "x.zarr"),
        "a fifo": ((fifo("x.zarr"),), "x.zarr"),
        "a dangling link": ((link("x.zarr", "gone.zarr"),), "x.zarr"),
        "empty": ((), ""),
    }
    for command, words in store_commands.items():
        for kind, (setup, path) in bad_stores.items():
            if command in ("play", "analyze", "upgrade", "explore") and kind in ("under a file", "an empty folder"):
                continue
            cases.append(Case(f"{command}: a store path {kind}", tuple(w.replace("{}", path) for w in words),
                              exit=2 if kind == "empty" else 1, setup=setup))
    outputs = {
        "train": ("train", "rl:episodes=5", "--game", "tictactoe", "--out", "{}", "--quiet"),
        "validate": ("validate", "--store", "{nim}", "--out", "{}", "--agents", "random", "--games", "1",
                     "--positions", "5", "--quiet", "--workers", "0"),
        "analyze": ("analyze", "--store", "{nim}", "--out", "{}", "--quiet"),
        "solve": ("solve", "nim", *NIM_RULES, "--store", "{}", "--workers", "0", "--quiet"),
        "run": ("run", "nim", "--out", "{}", "--workers", "0", "--quiet"),
    }
    #: (setup, path) of each kind of bad output, and the status each command must give (0: it
    #: works, making the missing folders; 74: the system refused; 2: the option is refused).
    bad_outputs = {
        "under a file": ((write("f", "mine\n"),), "f/out.npz", {"train": 2, "validate": 74, "analyze": 74,
                                                                "solve": 1, "run": 74}),
        "in a missing folder": ((), "no/such/out.npz", {"train": 2, "validate": 0, "analyze": 0, "solve": 1,
                                                         "run": 0}),
        # an artifact replaces what its name held (a fifo, a link: never written through)
        "a fifo": ((fifo("out.npz"),), "out.npz", {"train": 0, "validate": 2, "analyze": 2, "solve": 1, "run": 2}),
        "a dangling link": ((link("out.npz", "gone"),), "out.npz", {"train": 0, "validate": 74, "analyze": 74,
                                                                    "solve": 1, "run": 74}),
        # an empty folder is where a new store goes
        "a folder": ((folder("out.npz"),), "out.npz", {"train": 2, "solve": 0}),
        "a file": ((write("out.npz", "mine\n"),), "out.npz", {"validate": 2, "analyze": 2, "solve": 1, "run": 2}),
    }
    for command, words in outputs.items():
        for kind, (setup, path, codes) in bad_outputs.items():
            if command in codes:
                works = ({"exit": 0, "lines": 0, "writes": (path.split("/")[0],)} if codes[command] == 0
                         else {"exit": codes[command]})
                cases.append(Case(f"{command}: an output {kind}", tuple(w.replace("{}", path) for w in words),
                                  setup=setup, **works))
    cases += [
        Case("solve: into another game's store", ("solve", "tictactoe", "--store", "s.zarr", "--workers", "0",
                                                    "--quiet"), exit=1, setup=(copy("nim", "s.zarr"),)),
        Case("solve: into nim of other heaps", ("solve", "nim", "--heaps", "1,2,4", "--store", "s.zarr", "--workers",
                                                 "0", "--quiet"), exit=1, setup=(copy("nim", "s.zarr"),)),
        Case("solve: into a non-UTF-8 name", ("solve", "nim", *NIM_RULES, "--store", "x\udcff.zarr", "--workers", "0",
                                               "--quiet"), exit=0, lines=0, writes=("x\udcff.zarr",)),
        Case("solve: a store name 300 characters long", ("solve", "nim", *NIM_RULES, "--store", "x" * 300,
                                                           "--workers", "0", "--quiet"), exit=74),
        Case("solve: a store named with NUL-free control characters", ("solve", "nim", *NIM_RULES, "--store",
                                                                      "a\nb.zarr", "--workers", "0", "--quiet"),
             exit=0, lines=0, writes=("a\nb.zarr",)),
    ]
    return cases



def _odd_name_cases() -> list[Case]:
    """Paths with ',', '=', ':', spaces and non-ASCII characters (issue 36, item 4): each works."""
    odd = ODD_NAME
    store = f"{odd}/s.zarr"
    have_store = (copy("nim", store),)
    have_rl = (copy("rl", f"{odd}/rl.npz"),)
    ok = {"exit": 0, "lines": 0, "item": 4}
    return [
        Case("solve: into a folder with , = : spaces é", ("solve", "nim", *NIM_RULES, "--store", store, "--workers",
                                                          "0", "--quiet"), setup=(folder(odd),), writes=(odd,), **ok),
        Case("status: a store with , = : spaces é", ("status", "--store", store), setup=have_store, **ok),
        Case("probe: a store with , = : spaces é", ("probe", "--store", store, "1,2,3"), setup=have_store, **ok),
        Case("verify: a store with , = : spaces é", ("verify", "--store", store, "--workers", "0", "--quiet"),
             setup=have_store, **ok),
        Case("play: a store with , = : spaces é", ("play", "--store", store, "--max-plies", "1"), stdin="quit\n",
             setup=have_store, **ok),
        Case("analyze: a store and output with , = : spaces é", ("analyze", "--store", store, "--out", f"{odd}/an",
                                                                 "--quiet"), setup=have_store, writes=(odd,), **ok),
        Case("train: an output with , = : spaces é", ("train", "rl:episodes=5", "--game", "tictactoe", "--out",
                                                      f"{odd}/rl.npz", "--quiet"), setup=(folder(odd),),
             writes=(odd,), **ok),
        Case("train: a store with , = : spaces é", ("train", "ga:generations=1,population=2,offspring=2,games=1",
                                                    "--game", NIM, "--store", store, "--out", "ga.json", "--quiet"),
             setup=have_store, writes=("ga.json",), **ok),
        Case("match: an artifact with , = : spaces é", ("match", f"rl:params=({odd}/rl.npz)", "random", "--game",
                                                        "tictactoe", "--games", "1", "--quiet"), setup=have_rl, **ok),
        Case("match: a store with , = : spaces é", ("match", "lookup", "random", "--store", store, "--games", "1",
                                                    "--quiet"), setup=have_store, **ok),
        Case("validate: an artifact and report with , = : spaces é",
             ("validate", "--store", "{ttt}", "--out", f"{odd}/report", "--agents", f"rl:params=({odd}/rl.npz)",
              "--games", "1", "--positions", "5", "--quiet", "--workers", "0"), setup=have_rl, writes=(odd,), **ok),
        Case("run: nim into a folder with , = : spaces é", ("run", "nim", "--out", odd, "--workers", "0", "--quiet"),
             writes=(odd,), **ok),
        Case("run: tictactoe's validate in a folder with a comma", ("run", "tictactoe", "--out", "a,b", "--workers",
                                                                    "0", "--quiet"),
             setup=(finished_workflow("tictactoe", "a,b", drop=("validate",)),), writes=("a,b",), seconds=60,
             **ok),  # the validate stage's work takes its time: 20 s on 2 busy cores
        Case("upgrade: a format-3 store with , = : spaces é", ("upgrade", "--store", f"{odd}/f3.zarr"),
             setup=(copy("f3nim", f"{odd}/f3.zarr"),), writes=(odd,), **ok),
        Case("match: an artifact with a comma, unparenthesised", ("match", "rl:params=a,b/rl.npz", "random",
                                                                  "--game", "tictactoe", "--games", "1"),
             setup=(copy("rl", "a,b/rl.npz"),), needle="key=value"),
    ]


def _item_cases() -> list[Case]:
    """The rest of issue 36's defects a command line shows (items 1, 3, 5, 6, 7, 8)."""
    glob_neighbours = (folder("q4.zarr"), write("q4.zarr/keep", "mine\n"), folder(".q4.zarr.format3-abc"),
                       write(".q4.zarr.format3-abc/keep", "mine\n"), folder(".q4.zarr.upgrading-abc"),
                       write(".q4.zarr.upgrading-abc/keep", "mine\n"))
    damaged_f3 = (copy("f3ttt", "f3.zarr"), write("f3.zarr/tiers/k9/remoteness/c/0", b"\x00" * 7))
    workflow_dir = "RW/nim"
    return [
        Case("upgrade: a format-3 nim store", ("upgrade", "--store", "f3.zarr"), exit=0, lines=0,
             setup=(copy("f3nim", "f3.zarr"),), writes=("f3.zarr",), item=1),
        Case("upgrade: a format-3 tic-tac-toe store", ("upgrade", "--store", "f3.zarr"), exit=0, lines=0,
             setup=(copy("f3ttt", "f3.zarr"),), writes=("f3.zarr",), item=1),
        Case("upgrade: a damaged format-3 store leaves nothing behind", ("upgrade", "--store", "f3.zarr"), exit=1,
             setup=damaged_f3, item=1),
        Case("upgrade: a store named q* beside another's leftovers", ("upgrade", "--store", "q*"), exit=0, lines=0,
             setup=(copy("f3nim", "q*"), *glob_neighbours), writes=("q*",), item=7),
        Case("upgrade: a store named q? that does not exist", ("upgrade", "--store", "q?"), exit=1,
             setup=glob_neighbours, item=7),
        Case("status: a store named [q]4.zarr", ("status", "--store", "[q]4.zarr"), exit=1,
             setup=(copy("nim", "q4.zarr"),), item=7),
        Case("solve: a store named q*.zarr beside q4.zarr", ("solve", "nim", *NIM_RULES, "--store", "q*.zarr",
                                                              "--workers", "0", "--quiet"),
             exit=0, lines=0, setup=(copy("nim", "q4.zarr"),), writes=("q*.zarr",), item=7),
        Case("upgrade: a format-4 store", ("upgrade", "--store", "{nim}"), exit=0, lines=0),
        Case("run: workflow.json a fifo", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=74,
             setup=(fifo(f"{workflow_dir}/workflow.json"),), item=3),
        Case("run: workflow.json a folder", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=74,
             setup=(folder(f"{workflow_dir}/workflow.json"),)),
        Case("run: workflow.json a link outside", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=1,
             setup=(link(f"{workflow_dir}/workflow.json", "/etc/hostname"),)),
        Case("run: workflow.json cut short", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=1,
             setup=(write(f"{workflow_dir}/workflow.json", '{"workflow": "nim", "sta'),), needle="damaged"),
        Case("run: workflow.json a list", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=1,
             setup=(write(f"{workflow_dir}/workflow.json", "[1, 2]"),), needle="damaged"),
        Case("run: workflow.json not UTF-8", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=1,
             setup=(write(f"{workflow_dir}/workflow.json", b"\xff\xfe"),), needle="damaged"),
        Case("run: workflow.json of stages 5", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=1,
             setup=(write(f"{workflow_dir}/workflow.json", '{"stages": 5}'),), needle="damaged"),
        Case("run: workflow.json of another workflow", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"),
             exit=1, setup=(write(f"{workflow_dir}/workflow.json", json.dumps(
                 {"workflow": "quixo3", "game": "quixo", "params": {"size": 3}, "store": "store.zarr",
                  "stages": {"plan": "done"}})),)),
        Case("run: the workflow's store a file", ("run", "nim", "--out", "RW", "--workers", "0", "--quiet"), exit=1,
             setup=(write(f"{workflow_dir}/store.zarr", "mine\n"),)),
        Case("run: --workers -3 creates nothing", ("run", "tictactoe", "--workers", "-3", "--out", "RW"), item=8),
        Case("run: --worker-memory 1KB creates nothing", ("run", "tictactoe", "--worker-memory", "1KB", "--out", "RW",
                                                          "--quiet"), item=8),
        Case("run: --scheduler nonsense creates nothing", ("run", "tictactoe", "--scheduler", "nonsense", "--out",
                                                           "RW", "--quiet"), item=8),
        Case("run: --partitions 0 creates nothing", ("run", "nim", "--partitions", "0", "--out", "RW"), item=8),
        Case("solve: a second writer through a link to the store", ("solve", "nim", *NIM_RULES, "--store", "link.zarr",
                                                                     "--workers", "0", "--quiet"), exit=1,
             needle="being written by another run", setup=(copy("partial", "s.zarr"), link("link.zarr", "s.zarr"),
                                                           hold_lock("s.zarr")), item=6),
        Case("solve: a second writer by the store's own name", ("solve", "tictactoe", "--store", "s.zarr", "--workers",
                                                                 "0", "--quiet"), exit=1,
             needle="being written by another run", setup=(copy("partial", "s.zarr"), hold_lock("s.zarr")), item=6),
        Case("upgrade: a second writer through a link", ("upgrade", "--store", "link.zarr"), exit=1,
             needle="being written by another run",
             setup=(copy("f3nim", "f3.zarr"), link("link.zarr", "f3.zarr"), hold_lock("f3.zarr")), item=6),
    ]


def _number_cases() -> list[Case]:
    """Bad numbers in every numeric option and learner or agent setting."""
    cases: list[Case] = []
    solve = ("solve", "nim", *NIM_RULES, "--store", "s.zarr", "--quiet")
    ints = ("arabic",)  # click's INT reads '٣' as 3
    cases += _numbers("plan: --heaps", lambda v: ("plan", "nim", "--heaps", f"1,{v}"), item=5)
    cases += _numbers("solve: --heaps", lambda v: ("solve", "nim", "--heaps", v, "--store", "s.zarr", "--quiet"), item=5)
    cases += _numbers("solve: --workers", lambda v: (*solve, "--workers", v), skip=ints)
    cases += _numbers("solve: --chunk-size", lambda v: (*solve, "--workers", "0", "--chunk-size", v), skip=ints,
                      ok=("huge",), writes=("s.zarr",))
    cases += _numbers("solve: --partitions", lambda v: (*solve, "--workers", "0", "--partitions", v), skip=ints,
                      ok=("huge",), writes=("s.zarr",))
    cases += _numbers("solve: --worker-memory", lambda v: (*solve, "--workers", "0", "--worker-memory", f"{v}GB"),
                      skip=ints)
    cases += _numbers("plan: --max-take", lambda v: ("plan", "nim", *NIM_RULES, "--max-take", v),
                      skip=("nan", *ints), ok=("huge",))
    cases += _numbers("plan: quixo --size", lambda v: ("plan", "quixo", "--size", v), skip=("huge", "nan", *ints))
    cases += _numbers("plan: connect4 --width", lambda v: ("plan", "connect4", "--width", v, "--height", "4"),
                      skip=("huge", "nan"))
    cases += _numbers("probe: --max-plies", lambda v: ("probe", "--store", "{nim}", "--line", "--max-plies", v,
                                                       "1,2,3"), skip=ints, ok=("huge",))
    cases += _numbers("play: --seed", lambda v: ("play", "--store", "{nim}", "--seed", v), skip=ints, ok=("huge",))
    cases += _numbers("play: --max-plies", lambda v: ("play", "--store", "{nim}", "--max-plies", v),
                      skip=("superscript", *ints), ok=("huge",))
    match = ("match", "random", "random", "--game", NIM, "--quiet")
    cases += _numbers("match: --games", lambda v: (*match, "--games", v), skip=ints)
    cases += _numbers("match: --seed", lambda v: (*match, "--games", "1", "--seed", v), skip=ints, ok=("huge",))
    cases += _numbers("match: --max-plies", lambda v: (*match, "--games", "1", "--max-plies", v),
                      skip=("superscript", "huge", *ints))
    cases += [Case("match: --max-plies 10^38", (*match, "--games", "1", "--max-plies", HUGE * 3))]
    cases += _numbers("match: --move-time", lambda v: (*match, "--games", "1", "--move-time", v),
                      skip=("huge", "nan", *ints))
    cases += [Case("match: --move-time nan", (*match, "--games", "1", "--move-time", "nan"))]
    cases += _numbers("match: --sprt", lambda v: (*match, "--sprt", f"0,{v}"), skip=("superscript", *ints), ok=("huge",))
    cases += [Case("match: --game with heaps 10^12", ("match", "random", "random", "--game", f"nim --heaps {HUGE}",
                                                      "--quiet"), item=5),
              Case("match: --games over the cap", (*match, "--games", "10000001")),
              Case("match: --sprt with alpha 2", (*match, "--sprt", "0,10,2,0.05"))]
    validate = ("validate", "--store", "{nim}", "--out", "report", "--agents", "random", "--quiet", "--workers", "0")
    cases += _numbers("validate: --games", lambda v: (*validate, "--games", v), skip=ints)
    cases += _numbers("validate: --positions", lambda v: (*validate, "--games", "1", "--positions", v),
                      skip=("superscript", *ints), ok=("huge",), writes=("report",))
    cases += _numbers("validate: --seed", lambda v: (*validate, "--games", "1", "--seed", v), skip=("nan", "1e309", *ints),
                      ok=("huge",), writes=("report",))
    cases += [Case("validate: --move-time nan", (*validate, "--games", "1", "--move-time", "nan"))]
    train = ("--game", NIM, "--out", "ga.json", "--quiet")
    # a learner's or agent's numbers are ASCII digits alone: '٣' is refused (spec.Option.convert)
    cases += _numbers("train: ga population", lambda v: ("train", f"ga:population={v}", *train), item=5)
    cases += [Case("train: ga games 10^12", ("train", f"ga:games={HUGE},generations=1", *train), item=5),
              Case("train: ga generations 10^12", ("train", f"ga:generations={HUGE}", *train), item=5),
              Case("train: ga mutation 2", ("train", "ga:mutation=2", *train)),
              Case("train: ga selection nope", ("train", "ga:selection=nope", *train)),
              Case("train: --game with heaps 10^12", ("train", "ga", "--game", f"nim --heaps {HUGE}", "--out", "ga.json"),
                   item=5)]
    rl = ("--game", "tictactoe", "--out", "rl.npz", "--quiet")
    cases += _numbers("train: rl episodes", lambda v: ("train", f"rl:episodes={v}", *rl))
    cases += _numbers("train: rl alpha", lambda v: ("train", f"rl:episodes=5,alpha={v}", *rl), skip=("huge",))
    cases += [Case("train: rl gamma inf", ("train", "rl:episodes=5,gamma=inf", *rl)),
              Case("train: rl rewards 1e300", ("train", "rl:episodes=5,rewards=1e300/-1e300/0", *rl)),
              Case("train: rl opponent nosuch", ("train", "rl:episodes=5,opponent=nosuch", *rl)),
              Case("train: rl plies 0", ("train", "rl:episodes=5,plies=0", *rl)),
              Case("train: rl every 10^12", ("train", f"rl:episodes=5,every={HUGE}", *rl), exit=0, lines=0,
                   writes=("rl.npz",))]
    dqn = ("--game", "tictactoe", "--out", "dqn.npz", "--quiet")
    cases += [Case("train: dqn hidden 10^12", ("train", f"dqn:episodes=3,hidden={HUGE}", *dqn), item=5),
              Case("train: dqn memory 10^12", ("train", f"dqn:episodes=3,memory={HUGE}", *dqn), item=5),
              Case("train: dqn batch 0", ("train", "dqn:episodes=3,batch=0", *dqn)),
              Case("train: dqn batch over its memory", ("train", "dqn:episodes=3,memory=8,batch=64", *dqn)),
              Case("train: dqn rate nan", ("train", "dqn:episodes=3,rate=nan", *dqn)),
              Case("train: dqn episodes 1e309", ("train", "dqn:episodes=1e309", *dqn))]
    cases += _numbers("train: --seed", lambda v: ("train", "rl:episodes=5", *rl, "--seed", v), skip=("nan", *ints),
                      ok=("huge",), writes=("rl.npz",))
    cases += _numbers("run: --workers", lambda v: ("run", "nim", "--out", "RW", "--quiet", "--workers", v),
                      skip=("nan", *ints), item=8)
    cases += [Case("run: --workers huge, not quiet", ("run", "nim", "--out", "RW", "--workers", HUGE * 3))]
    cases += _numbers("explore: --port", lambda v: ("explore", "--store", "{nim}", "--port", v), skip=("nan", *ints))
    cases += _numbers("analyze: --seed", lambda v: ("analyze", "--store", "{nim}", "--seed", v, "--quiet"),
                      skip=("nan", *ints), ok=("huge",))
    cases += _numbers("verify: --workers", lambda v: ("verify", "--store", "{nim}", "--quiet", "--workers", v),
                      skip=("nan", "1e309", "huge", *ints))
    cases += [Case("verify: --workers 10^12", ("verify", "--store", "{nim}", "--quiet", "--workers", HUGE))]
    return cases


def _spec_cases() -> list[Case]:
    """Bad agent specs, wherever a spec is given."""
    bad = {"an unknown agent": "nosuch", "an empty spec": "", "an unclosed parenthesis": "minimax:depth=(2",
           "an unknown option": "random:x=1", "depth 99": "minimax:depth=99", "depth ²": "minimax:depth=²",
           "iterations 1e309": "mcts:iterations=1e309", "c nan": "mcts:c=nan", "an unknown eval": "minimax:eval=nope",
           "a fallback of its own kind": "lookup:fallback=(lookup:fallback=nosuch)",
           "a python agent that is missing": "python:file=nosuch.py",
           "an engine that is missing": "engine:command=/nonexistent/engine"}
    cases = [Case(f"match: {name}", ("match", spec, "random", "--store", "{nim}", "--games", "1", "--quiet"))
             for name, spec in bad.items()]
    cases += [
        Case("validate: an unknown agent", ("validate", "--store", "{nim}", "--out", "report", "--agents", "nosuch",
                                            "--quiet")),
        Case("validate: an empty agent list", ("validate", "--store", "{nim}", "--out", "report", "--agents", ",",
                                               "--quiet")),
        Case("validate: rl of NaN", ("validate", "--store", "{ttt}", "--out", "report", "--agents", "rl:params=rl.npz",
                                     "--quiet"), setup=(npz("rl.npz", "rl", change={
                                         "q": np.full((6046, 9), np.nan, dtype=np.float32)}),), item=5),
        Case("play: an unknown agent", ("play", "--store", "{nim}", "--agent", "nosuch")),
        Case("play: rl without q", ("play", "--store", "{ttt}", "--agent", "rl:params=rl.npz"),
             setup=(npz("rl.npz", "rl", drop=("q",)),), item=5),
        Case("play: a dqn artifact whose header claims 10^12", ("play", "--store", "{ttt}", "--agent",
                                                                "dqn:params=dqn.npz"),
             setup=(claimed_npz("dqn.npz", "dqn", "b2", (10**12,)),), item=5),
        Case("explore: an unknown agent", ("explore", "--store", "{nim}", "--port", "0", "--agents", "nosuch")),
        Case("explore: rl header claims 10^12", ("explore", "--store", "{ttt}", "--port", "0", "--agents",
                                                 "rl:params=rl.npz"),
             setup=(claimed_npz("rl.npz", "rl", "q", (10**12, 9)),), item=5),
        Case("analyze: an unknown agent", ("analyze", "--store", "{nim}", "--agents", "nosuch", "--quiet")),
        Case("analyze: a ga of another game", ("analyze", "--store", "{ttt}", "--agents", "ga:params={ga}",
                                               "--quiet")),
        Case("train: an unknown learner", ("train", "nosuch", "--game", NIM, "--out", "ga.json")),
        Case("train: an unknown ga setting", ("train", "ga:nope=1", "--game", NIM, "--out", "ga.json")),
        Case("train: ga preset of another game", ("train", "ga:preset=002", "--game", NIM, "--out", "ga.json")),
    ]
    return cases


def _position_cases() -> list[Case]:
    """Bad positions for probe, play and match."""
    nim = {"too many heaps": "1,2,3,4", "a heap over its size": "1,2,9", "a negative heap": "1,-2,3",
           "superscript digits": "1,²,3", "an empty heap": "1,,3", "a trailing comma": "1,2,3,", "a word": "heaps",
           "an empty text": "", "10^12 objects": f"1,2,{HUGE}"}
    ttt = {"two marks ahead": "xxx/.../... o", "ten cells": "x.../.../... o", "an unknown mark": "x../.y./... o",
           "an unknown side": "x../.o./... z", "full-width letters": "ｘ../.o./... x"}
    cases = [Case(f"probe: nim {name}", ("probe", "--store", "{nim}", text)) for name, text in nim.items()]
    cases += [Case(f"probe: tic-tac-toe {name}", ("probe", "--store", "{ttt}", text)) for name, text in ttt.items()]
    cases += [
        Case("probe: a nim position on a tic-tac-toe store", ("probe", "--store", "{ttt}", "1,2,3")),
        Case("probe: --line with two positions", ("probe", "--store", "{nim}", "--line", "1,2,3", "0,1,2")),
        Case("probe: a tier the partial store lacks", ("probe", "--store", "{partial}", ".../.../... x"), exit=1),
        Case("play: --from a bad position", ("play", "--store", "{nim}", "--from", "1,2,9")),
        Case("play: --human third", ("play", "--store", "{nim}", "--human", "third")),
        Case("play: nonsense moves, then the input ends", ("play", "--store", "{nim}"), exit=0, lines=0,
             stdin="zz\n9-9\n\x00\n٣-1\n"),
        Case("play: non-UTF-8 input", ("play", "--store", "{ttt}"), exit=0, lines=0, stdin="\udcff\udcfe\n"),
        Case("match: --from a bad position", ("match", "random", "random", "--game", NIM, "--from", "1,2,9",
                                              "--games", "1")),
        Case("match: --from a finished game", ("match", "random", "random", "--game", "tictactoe", "--from",
                                               "xxx/oo./... o", "--games", "1")),
        Case("plan: quarto --from garbage", ("plan", "quarto", "--from", "zz")),
        Case("plan: quarto --from a piece twice", ("plan", "quarto", "--from", "1.../1.../..../.... 2")),
        Case("validate: --tiers of nothing", ("validate", "--game", "tictactoe", "--tiers", "zz", "--out", "report",
                                              "--agents", "random", "--quiet")),
    ]
    return cases


def _misc_cases() -> list[Case]:
    """Commands and words that are not there, extra words, and odd options of the rest."""
    return [
        Case("(none): an unknown command", ("nosuch",)),
        Case("(none): an empty command", ("",)),
        Case("(none): an unknown option", ("--nope",)),
        Case("(none): a non-UTF-8 command", ("\udcff",)),
        Case("games: an extra word", ("games", "extra")),
        Case("games: an unknown option", ("games", "--json")),
        Case("agents: an extra word", ("agents", "extra")),
        Case("agents: an unknown option", ("agents", "--nope")),
        Case("solve: an unknown game", ("solve", "chess", "--store", "s.zarr")),
        Case("solve: no store", ("solve", "nim", *NIM_RULES)),
        Case("solve: --scheduler nonsense", ("solve", "nim", *NIM_RULES, "--store", "s.zarr", "--scheduler", "nonsense")),
        Case("solve: --scheduler nobody listens at", ("solve", "nim", *NIM_RULES, "--store", "s.zarr", "--scheduler",
                                                      "tcp://127.0.0.1:1", "--quiet")),
        Case("solve: --worker-memory in furlongs", ("solve", "nim", *NIM_RULES, "--store", "s.zarr", "--worker-memory",
                                                    "4furlongs")),
        Case("plan: quixo --down-to 99", ("plan", "quixo", "--size", "3", "--down-to", "99")),
        Case("plan: connect4 --connect 5", ("plan", "connect4", "--width", "4", "--height", "4", "--connect", "5")),
        Case("plan: tictactoe with an extra word", ("plan", "tictactoe", "extra")),
        Case("status: an unknown option", ("status", "--store", "{nim}", "--nope")),
        Case("verify: a partial store is incomplete", ("verify", "--store", "{partial}", "--workers", "0", "--quiet"),
             exit=3, lines=0),
        Case("verify: --scheduler nonsense", ("verify", "--store", "{nim}", "--scheduler", "nonsense")),
        Case("match: lookup with no store", ("match", "lookup", "random", "--game", NIM, "--games", "1")),
        Case("match: no game and no store", ("match", "random", "random")),
        Case("match: an unknown game", ("match", "random", "random", "--game", "chess")),
        Case("match: --game empty", ("match", "random", "random", "--game", "")),
        Case("match: --sprt of words", ("match", "random", "random", "--game", NIM, "--sprt", "a,b")),
        Case("validate: --store and --game", ("validate", "--store", "{nim}", "--game", NIM, "--out", "report",
                                              "--agents", "random")),
        Case("validate: a partial store", ("validate", "--store", "{partial}", "--out", "report", "--agents", "random",
                                           "--games", "1", "--quiet", "--workers", "0"), exit=1),
        Case("validate: a damaged resume log is run again", ("validate", "--store", "{nim}", "--out", "report",
                                                             "--agents", "random", "--games", "1", "--positions",
                                                             "5", "--quiet", "--workers", "0"),
             exit=0, lines=0, writes=("report",),
             setup=(write("report/.resume/identity.json", "{"), write("report/.resume/results.log", "x\x00\n{}\n"))),
        Case("validate: the resume folder a file", ("validate", "--store", "{nim}", "--out", "report", "--agents",
                                                    "random", "--games", "1", "--positions", "5", "--quiet",
                                                    "--workers", "0"),
             exit=0, lines=0, writes=("report",), setup=(write("report/.resume", "mine\n"),)),
        Case("train: a checkpoint of another run", ("train", "rl:episodes=30,every=10", "--game", "tictactoe",
                                                    "--out", "rl.npz", "--seed", "1", "--quiet"),
             setup=(folder("rl.npz.partial"), npz("rl.npz.partial/checkpoint.npz", "rl", change={
                 "q": np.full((6046, 9), np.nan, dtype=np.float32)})), needle="other settings"),
        Case("train: the checkpoint folder a file", ("train", "rl:episodes=30,every=10", "--game", "tictactoe", "--out",
                                                     "rl.npz", "--quiet"), exit=74,
             setup=(write("rl.npz.partial", "mine\n"),)),
        Case("train: a fifo as checkpoint is started over", ("train", "rl:episodes=30,every=10", "--game",
                                                             "tictactoe", "--out", "rl.npz", "--quiet"),
             exit=0, lines=0, writes=("rl.npz", "rl.npz.partial"),
             setup=(folder("rl.npz.partial"), fifo("rl.npz.partial/checkpoint.npz"))),
        Case("train: --store of another game", ("train", "rl:episodes=5", "--game", "tictactoe", "--store", "{nim}",
                                                "--out", "rl.npz", "--quiet")),
        Case("train: --store partial measures what it holds", ("train", "rl:episodes=5", "--game", "tictactoe",
                                                               "--store", "{partial}", "--out", "rl.npz", "--quiet"),
             exit=0, lines=0, writes=("rl.npz",)),
        Case("run: an unknown workflow", ("run", "nosuch")),
        Case("run: an empty workflow name", ("run", "")),
        Case("run: --only with a game's workflow", ("run", "nim", "--only", "001", "--out", "RW")),
        Case("run: --only of no report", ("run", "seeds", "--only", "999", "--out", "RW", "--skip-training")),
        Case("explore: --host not this machine's", ("explore", "--store", "{nim}", "--host", "192.0.2.1", "--port", "0"),
             exit=74),
        Case("explore: --host a word", ("explore", "--store", "{nim}", "--host", "no such host!", "--port", "0"),
             exit=74),
        Case("analyze: a partial store is analysed as far as solved", ("analyze", "--store", "{partial}", "--quiet"),
             exit=0, needle="not solved"),
        Case("analyze: --workers -1", ("analyze", "--store", "{nim}", "--workers", "-1", "--quiet")),
        Case("upgrade: an extra word", ("upgrade", "--store", "{nim}", "extra")),
    ]


def _query_cases() -> list[Case]:
    """Hostile queries to a running explorer (issue 36, item 5: seed=² answered 500): each is
    HTTP 400 (404 for a path that is not there) with one line, and the server goes on."""
    explore = ("explore", "--store", "{ttt}")
    position = urllib.parse.quote(".../.../... x")
    queries = {"seed=²": (f"/api/move?position={position}&agent=random&seed=%C2%B2", 400, 5),
               "seed=٣": (f"/api/move?position={position}&agent=random&seed=%D9%A3", 400, 5),
               "seed=-1": (f"/api/move?position={position}&agent=random&seed=-1", 400, None),
               "seed=2^70": (f"/api/move?position={position}&agent=random&seed={2**70}", 400, None),
               "p=nan": (f"/api/move?position={position}&agent=random&p=nan", 400, None),
               "p=1e309": (f"/api/move?position={position}&agent=random&p=1e309", 400, None),
               "an unknown agent": (f"/api/move?position={position}&agent=nosuch", 400, None),
               "a bad position": ("/api/probe?position=zz", 400, None),
               "a position of 5,000 characters": ("/api/probe?position=" + "x" * 5000, 400, None),
               "a path out of the server": ("/static/../../../../etc/passwd", 404, None)}
    return [Case(f"explore: a query with {name}", explore, exit=code, query=query, item=item)
            for name, (query, code, item) in queries.items()]


def all_cases() -> list[Case]:
    """The whole table, in a fixed order."""
    cases = (_misc_cases() + _number_cases() + _path_cases() + _odd_name_cases() + _store_damage_cases()
             + _artifact_cases() + _spec_cases() + _position_cases() + _item_cases() + _query_cases())
    names = [case.name for case in cases]
    assert len(set(names)) == len(names), sorted({n for n in names if names.count(n) > 1})
    return cases


def in_suite(cases: list[Case], every: int = 10) -> list[Case]:
    """A fixed stratified subset for the test suite: every case with a known defect, the first
    case of each issue-36 item, and of the rest each command's first and then every `every`-th
    case."""
    seen: dict[str, int] = {}
    items: set[int] = set()
    chosen = []
    for case in cases:
        rank = seen.get(case.command, 0)
        seen[case.command] = rank + 1
        first_of_item = case.item is not None and case.item not in items
        if case.item is not None:
            items.add(case.item)
        if case.defect or first_of_item or rank % every == 0:
            chosen.append(case)
    return chosen
