"""Mutation pass (issue 26): seeded mutants of validation/, data/ and the solvers, each run against
the tests of its module; how many the tests catch, and which survive.

    python benchmarks/bench_mutation.py --count 200 --jobs 16 --out mutants.json
    python benchmarks/bench_mutation.py --count 20 --jobs 2 --seed 3 --module data.store
    python benchmarks/bench_mutation.py --count 120 --jobs 1 --module data.lock \
        --module pipeline.tasks:verify_chunk --module data.store:Store.read_tier,Store.read_values

Mutation sites. Every site of src/retrograde/{validation,data,solvers}/*.py, or with --module
TEXT[:NAMES] of every module of src/retrograde whose dotted name holds TEXT (repeatable; NAMES, a
comma-separated list of functions or classes, e.g. `Store.read_tier,verify_chunk` or `Store`,
keeps the sites inside them), is enumerated from the module's syntax tree (docstrings,
annotations, decorators and f-strings left alone):
  binop      + <-> -, * <-> //, / -> *, % -> //, & <-> |, ^ -> |, << <-> >>
  compare    < -> <=, <= -> <, > -> >=, >= -> >, == <-> !=, is <-> is not, in <-> not in
  boolop     and <-> or
  not        `not x` -> `x`;   negate: `-x` -> `x`
  constant   an int n -> n + 1, a float x -> x + 1, True <-> False
  augassign  += <-> -=, and the other binop swaps
  slice      a slice's lower or upper bound b -> b + 1
  return     `return value` -> `return None`
  delete     an assignment, raise, expression statement, break or continue -> `pass`
then a sample of --count of them is drawn with --seed. A mutant is the source with one site's text
replaced; it is kept only if the mutated source parses to exactly the intended tree.

The tests of a module: the test files (tests/test_*.py) that import it (`import retrograde.x.y`,
`from retrograde.x.y import ...`, `from retrograde.x import y`, or a name its package re-exports
from it) or name it in a string (e.g. a monkeypatch target "retrograde.x.y.name"). A module that
no test file names takes the tests of the package modules that import it, nearest first. KNOWN_TESTS
below and --map FILE (JSON {"retrograde.x.y": ["tests/test_a.py", ...]}) add files to a module's list;
with --map-replaces, the lists of --map replace the derived ones of the modules it names (a pass
concentrated on a few functions runs the tests written for them, not every file that imports
their module).

Running. The checkout (src, tests, docs, .ci and the top-level files) is copied once into a
temporary folder, and the sites, the map and every worker come from that snapshot (the sample is
the same for the same tree and seed; edits made meanwhile do not mix in). Each of --jobs workers
copies the snapshot. A mutant is written into a worker's copy and `pytest -x -q` runs its
module's test files there (fastest first), with PYTHONPATH at the copy's src (a plugin stops the
run if `retrograde` is imported from anywhere else), a numba cache folder per worker, and a
timeout (default: 3 times the baseline of its files, plus 60 s). Before any mutant, every test
file in use runs once unmutated: a file that fails then is left out of every mapping (and
named), and its time sets the timeouts. With --pause-file F, no test run starts while F
exists (those under way finish): touch it for a quiet machine beside a long pass.

Results: caught (a test failed or the tests could not be collected), survived (all passed),
timeout (detected, but counted apart from caught), error (pytest could not run: the plugin, a usage error, no
tests). Progress lines as mutants finish; then totals, a table per module and each survivor with
its diff line; everything as JSON in --out.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

from common import kill_group, print_options

ROOT = Path(__file__).resolve().parents[1]
#: The packages mutants come from when no --module picks modules.
TARGETS = ("validation", "data", "solvers")
COPIED = ("src", "tests", "docs", ".ci")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis", "*.egg-info")

BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
         ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr,
         ast.LShift: ast.RShift, ast.RShift: ast.LShift}
COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
BOOLOP = {ast.And: ast.Or, ast.Or: ast.And}
#: Test files a module's tests include beyond those derived: modules that every write goes through,
#: tested through the callers' behaviour (fsync, links) rather than by import.
KNOWN_TESTS = {"retrograde.data.durable": ["tests/test_durable.py", "tests/test_hostile.py"]}
DELETED = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Expr, ast.Break, ast.Continue)

GUARD = '''"""Stops the test run unless retrograde comes from the mutation worker's copy."""
import os

import pytest
import retrograde


def pytest_configure(config):
    source = os.path.realpath(retrograde.__file__)
    if not source.startswith(os.environ["MUTATION_SRC"] + os.sep):
        pytest.exit(f"retrograde imported from {source}, not from the copy", returncode=4)
'''


@dataclass(frozen=True)
class Mutant:
    """One site's text replaced: `path` (from the repository root) lines `line`..`end_line`,
    inside the function or class `scope` (a dotted qualified name, "" at module level)."""

    module: str
    scope: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    operator: str
    before: str
    after: str

    def apply(self, source: str) -> str:
        lines = source.splitlines(keepends=True)
        start = sum(len(text) for text in lines[:self.line - 1]) + _offset(lines[self.line - 1], self.column)
        end = sum(len(text) for text in lines[:self.end_line - 1]) + _offset(lines[self.end_line - 1],
                                                                              self.end_column)
        return source[:start] + self.after + source[end:]


def _offset(line: str, utf8_column: int) -> int:
    """ast columns count UTF-8 bytes; the character offset they mean."""
    return len(line.encode()[:utf8_column].decode())


def package_paths(root: Path) -> list[Path]:
    """Every module of the retrograde package under `root`."""
    return sorted((root / "src" / "retrograde").rglob("*.py"))


@dataclass(frozen=True)
class Selection:
    """--module TEXT[:NAMES]: modules whose dotted name holds `text`, and within them the sites
    inside a function or class named in `names` (a qualified name or one enclosing it); every
    site of the module when `names` is empty."""

    text: str
    names: tuple[str, ...] = ()

    @classmethod
    def parse(cls, given: str) -> Selection:
        text, _, names = given.partition(":")
        return cls(text, tuple(name for name in names.split(",") if name))

    def holds(self, mutant: Mutant) -> bool:
        return self.text in mutant.module and (not self.names or any(
            mutant.scope == name or mutant.scope.startswith(name + ".") for name in self.names))


def selected(mutant: Mutant, selections: list[Selection]) -> bool:
    """Whether a site is drawn from: one of `selections` holds it, or with none, its module is
    in one of TARGETS."""
    if selections:
        return any(selection.holds(mutant) for selection in selections)
    return Path(mutant.path).relative_to("src/retrograde").parts[0] in TARGETS


def module_name(root: Path, path: Path) -> str:
    """retrograde.data.store for src/retrograde/data/store.py, retrograde.data for its __init__.py."""
    return ".".join(path.relative_to(root / "src").with_suffix("").parts).removesuffix(".__init__")


# --- sites ------------------------------------------------------------------------------------

def _skipped(tree: ast.Module) -> set[int]:
    """ids of nodes no mutant touches: docstrings, annotations, decorators, f-strings, __all__."""
    skipped = set()
    for node in ast.walk(tree):
        roots = []
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                roots.append(body[0])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            roots += node.decorator_list
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            roots += [node.returns] + [arg.annotation for arg in ast.walk(node.args) if isinstance(arg, ast.arg)]
        if isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        if isinstance(node, (ast.JoinedStr, ast.match_case)):
            roots.append(node)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            roots.append(node)
        skipped.update(id(inner) for root in roots if root is not None for inner in ast.walk(root))
    return skipped


def _replacements(node: ast.AST):
    """(operator, new node) for each mutation of `node`."""
    if isinstance(node, ast.BinOp) and type(node.op) in BINOP:
        yield "binop", ast.BinOp(node.left, BINOP[type(node.op)](), node.right)
    elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP:
        yield "augassign", ast.AugAssign(node.target, BINOP[type(node.op)](), node.value)
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            ops = list(node.ops)
            ops[i] = COMPARE[type(op)]()
            yield "compare", ast.Compare(node.left, ops, node.comparators)
    elif isinstance(node, ast.BoolOp):
        yield "boolop", ast.BoolOp(BOOLOP[type(node.op)](), node.values)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        yield "not" if isinstance(node.op, ast.Not) else "negate", node.operand
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield "constant", ast.Constant(not node.value)
    elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        yield "constant", ast.Constant(node.value + 1)
    elif isinstance(node, ast.Slice):
        for bound in ("lower", "upper"):
            if getattr(node, bound) is not None:
                nudged = {"lower": node.lower, "upper": node.upper, "step": node.step}
                nudged[bound] = ast.BinOp(nudged[bound], ast.Add(), ast.Constant(1))
                yield "slice", ast.Slice(**nudged)
    if isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None):
        yield "return", ast.Return(ast.Constant(None))
    if isinstance(node, DELETED) and not (isinstance(node, ast.AnnAssign) and node.value is None) and not (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
        yield "delete", ast.Pass()


def _children(tree: ast.AST):
    """(node, parent, field, index or None) for every node under `tree`."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                yield from ((child, parent, field, i) for i, child in enumerate(value) if isinstance(child, ast.AST))
            elif isinstance(value, ast.AST):
                yield value, parent, field, None


def _text(node: ast.AST, new: ast.AST) -> str:
    """The text that replaces `node`'s span: a statement as is, an expression in parentheses (the
    slice's bounds are rewritten one by one, so a slice keeps its own colons)."""
    text = ast.unparse(ast.fix_missing_locations(new))
    return text if isinstance(node, (ast.stmt, ast.Slice)) else f"({text})"


def _scopes(tree: ast.Module) -> dict[int, str]:
    """id of each node -> the qualified name of the function or class it lies in ("" outside any)."""
    scopes: dict[int, str] = {}

    def visit(node: ast.AST, scope: str) -> None:
        scopes[id(node)] = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = f"{scope}.{node.name}" if scope else node.name
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(tree, "")
    return scopes


def sites(root: Path, path: Path) -> list[tuple[Mutant, ast.Module, ast.AST, ast.AST, str, int | None]]:
    """Every mutation site of the module at `path`: the mutant, the module's tree, and where in it
    the new node goes (parent, field, index)."""
    source = path.read_text()
    tree = ast.parse(source)
    skipped = _skipped(tree)
    scopes = _scopes(tree)
    relative = path.relative_to(root)
    module = module_name(root, path)
    found = []
    for node, parent, field, index in _children(tree):
        if id(node) in skipped or not hasattr(node, "lineno"):
            continue
        for operator, new in _replacements(node):
            mutant = Mutant(module, scopes[id(node)], str(relative), node.lineno, node.col_offset, node.end_lineno,
                            node.end_col_offset, operator, ast.get_source_segment(source, node), _text(node, new))
            found.append((mutant, tree, parent, new, field, index))
    return found


def _swap(parent: ast.AST, field: str, index: int | None, new: ast.AST) -> ast.AST:
    if index is None:
        old = getattr(parent, field)
        setattr(parent, field, new)
    else:
        old = getattr(parent, field)[index]
        getattr(parent, field)[index] = new
    return old


def sample(root: Path, count: int, seed: int, selections: list[Selection]) -> tuple[list[Mutant], int, dict[str, int]]:
    """`count` mutants of the tree at `root` drawn with `seed` from every selected site, each
    checked to parse to the intended tree; with the number of sites and their operators."""
    candidates = [site for path in package_paths(root) for site in sites(root, path)
                  if selected(site[0], selections)]
    operators: dict[str, int] = {}
    for site in candidates:
        operators[site[0].operator] = operators.get(site[0].operator, 0) + 1
    order = list(range(len(candidates)))
    random.Random(seed).shuffle(order)
    chosen = []
    for i in order:
        if len(chosen) == count:
            break
        mutant, tree, parent, new, field, index = candidates[i]
        source = (root / mutant.path).read_text()
        old = _swap(parent, field, index, new)
        intended = ast.dump(tree)
        _swap(parent, field, index, old)
        try:
            if ast.dump(ast.parse(mutant.apply(source))) == intended != ast.dump(tree):
                chosen.append(mutant)
        except SyntaxError:
            pass
    return chosen, len(candidates), operators


# --- which tests ------------------------------------------------------------------------------

def _imports(path: Path, reexports: dict[str, dict[str, str]]) -> set[str]:
    """The retrograde modules the file at `path` imports or names in a string."""
    named = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named.add(node.module)
            for alias in node.names:
                named.add(reexports.get(node.module, {}).get(alias.name, f"{node.module}.{alias.name}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.update(re.findall(r"\bretrograde(?:\.\w+)+", node.value))
    return {name for name in named if name.startswith("retrograde")}


def _package_reexports(root: Path) -> dict[str, dict[str, str]]:
    """package -> {name: module it comes from} for names a package's __init__ imports."""
    found = {}
    for init in (root / "src" / "retrograde").rglob("__init__.py"):
        package = ".".join(init.parent.relative_to(root / "src").parts)
        names = {}
        for node in ast.parse(init.read_text()).body:
            if isinstance(node, ast.ImportFrom):
                origin = f"{package}.{node.module}" if node.level else node.module
                names.update({alias.asname or alias.name: origin for alias in node.names})
        found[package] = names
    return found


def _named(imports: set[str], module: str, package: bool) -> bool:
    """Whether `imports` name `module` (or, for a module that is not a package, a name in it)."""
    return any(name == module or not package and name.startswith(module + ".") for name in imports)


def test_map(root: Path, extra: dict[str, list[str]], replaces: bool = False) -> dict[str, list[str]]:
    """module -> its test files, for the tree at `root` (see the module docstring for the rule);
    `extra`'s lists are added, or with `replaces` used instead."""
    modules = {module_name(root, path): path for path in package_paths(root)}
    reexports = _package_reexports(root)
    tests = {str(path.relative_to(root)): _imports(path, reexports) for path in sorted((root / "tests").glob("test_*.py"))}
    package = {module: path.name == "__init__.py" for module, path in modules.items()}
    direct = {module: [name for name, imports in tests.items() if _named(imports, module, package[module])]
              for module in modules}
    source = {module: _imports(path, reexports) for module, path in modules.items()}
    mapped = {}
    for module in modules:
        files, seen, frontier = list(direct[module]), {module}, [module]
        while not files and frontier:  # no test names it: the tests of its importers, nearest first
            frontier = [m for m in modules if m not in seen and any(_named(source[m], f, package[f]) for f in frontier)]
            seen.update(frontier)
            files = sorted({name for m in frontier for name in direct[m]})
        mapped[module] = sorted(extra[module] if replaces and module in extra else
                                set(files) | set(KNOWN_TESTS.get(module, [])) | set(extra.get(module, [])))
    return mapped


# --- running ----------------------------------------------------------------------------------

def copy_tree(source: Path, folder: Path) -> None:
    """What the tests read: src, tests, docs, .ci and the top-level files (no caches)."""
    folder.mkdir(parents=True)
    for name in COPIED:
        if (source / name).is_dir():
            shutil.copytree(source / name, folder / name, ignore=LEFT_OUT, symlinks=True)
    for path in source.iterdir():
        if path.is_file():
            shutil.copy2(path, folder / path.name)


class Worker:
    """A copy of the tree that runs one mutant at a time."""

    def __init__(self, tree: Path, folder: Path):
        self.folder = folder
        self.proc: subprocess.Popen | None = None
        copy_tree(tree, folder)
        (folder / "guard").mkdir()
        (folder / "guard" / "mutation_guard.py").write_text(GUARD)
        self.stamp = int(time.time())
        self.env = {**os.environ, "PYTHONPATH": f"{folder / 'src'}{os.pathsep}{folder / 'guard'}",
                    "MUTATION_SRC": os.path.realpath(folder / "src"), "NUMBA_CACHE_DIR": str(folder / "numba"),
                    "PYTHONUNBUFFERED": "1"}

    def write(self, relative: str, text: str) -> None:
        """Write a module with a modification time no earlier write had: Python's bytecode cache
        and numba's disk cache tell sources apart by (mtime in seconds, size)."""
        path = self.folder / relative
        path.write_text(text)
        self.stamp = max(self.stamp + 1, int(time.time()))
        os.utime(path, ns=(self.stamp * 10**9, self.stamp * 10**9))

    def mutate(self, mutant: Mutant, files: list[str], timeout: float) -> tuple[str, float, str]:
        """Run `files` against `mutant`, then put the module back."""
        original = (self.folder / mutant.path).read_text()
        self.write(mutant.path, mutant.apply(original))
        try:
            return self.pytest(files, timeout)
        finally:
            self.write(mutant.path, original)

    def pytest(self, files: list[str], timeout: float) -> tuple[str, float, str]:
        """Run `files` with pytest -x: (result, seconds, tail of the output)."""
        shutil.rmtree(self.folder / ".hypothesis", ignore_errors=True)  # no run replays another's examples
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "mutation_guard", "-p", "no:cacheprovider",
                   f"--basetemp={self.folder / 'tmp'}", *files]
        start = time.perf_counter()
        with open(self.folder / "output.txt", "wb") as output:
            self.proc = subprocess.Popen(command, cwd=self.folder, env=self.env, stdout=output,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
            self.stop()  # a timed-out run, and whatever a finished run left in its group
        seconds = time.perf_counter() - start
        tail = (self.folder / "output.txt").read_text(errors="replace")[-3000:]
        result = {None: "timeout", 0: "survived", 1: "caught", 2: "caught"}.get(code, "error")
        return result, seconds, tail

    def stop(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)


def _first_failure(tail: str) -> str | None:
    found = re.search(r"^(?:FAILED|ERROR) (\S+)", tail, re.MULTILINE)
    return found.group(1) if found else None


def _reason(tail: str) -> str | None:
    """The first failing test's line of pytest's short summary (with its message), else the last line."""
    found = re.search(r"^(?:FAILED|ERROR) .*$", tail, re.MULTILINE)
    lines = tail.strip().splitlines()
    return found.group(0)[:300] if found else lines[-1][:300] if lines else None


class Pool:
    """--jobs workers, each running one test run at a time in its own copy of `tree`."""

    def __init__(self, tree: Path, folder: Path, jobs: int, pause_file: Path | None = None):
        self.workers = [Worker(tree, folder / f"worker{k}") for k in range(jobs)]
        self.pause_file = pause_file
        self.free: queue.Queue[Worker] = queue.Queue()
        for worker in self.workers:
            self.free.put(worker)
        self.threads = ThreadPoolExecutor(jobs)

    def submit(self, method: str, *args):
        def on_a_worker():
            worker = self.free.get()
            while self.pause_file is not None and self.pause_file.exists():  # a quiet machine wanted meanwhile
                time.sleep(1)
            try:
                return getattr(worker, method)(*args)
            finally:
                self.free.put(worker)
        return self.threads.submit(on_a_worker)

    def close(self) -> None:
        """Stop what runs (on Ctrl-C too): every worker's process group."""
        self.threads.shutdown(wait=False, cancel_futures=True)
        for worker in self.workers:
            worker.stop()
        self.threads.shutdown(wait=True)


def baseline(pool: Pool, files: list[str], timeout: float) -> tuple[dict[str, float], dict[str, str]]:
    """Each test file run once unmutated: its seconds, and the files that fail (with why)."""
    print(f"baseline: {len(files)} test files, unmutated", flush=True)
    seconds: dict[str, float] = {}
    failing: dict[str, str] = {}
    futures = {pool.submit("pytest", [name], timeout): name for name in files}
    for future in as_completed(futures):
        name, (result, took, tail) = futures[future], future.result()
        seconds[name] = took
        print(f"  {name}: {'passes' if result == 'survived' else result} ({took:.1f} s)", flush=True)
        if result == "error" and "not from the copy" in tail:
            raise SystemExit(f"bench_mutation: the tests did not import the copy: {tail.strip()[-300:]}")
        if result != "survived":
            failing[name] = _reason(tail) or result
            print(f"    left out: {failing[name]}", flush=True)
    return seconds, failing


def run_mutants(pool: Pool, tree: Path, mutants: list[Mutant], mapping: dict[str, list[str]],
                seconds: dict[str, float], failing: dict[str, str], options) -> list[dict]:
    """Every mutant against its module's test files (those passing unmutated, fastest first);
    results in the mutants' order."""
    results: list[dict] = [{**asdict(mutant), "diff": diff_line(tree, mutant)} for mutant in mutants]
    futures = {}
    for i, mutant in enumerate(mutants):
        files = sorted((name for name in mapping[mutant.module] if name not in failing), key=seconds.get)
        timeout = options.timeout or options.timeout_factor * sum(seconds[name] for name in files) + 60
        results[i].update(tests=files, result="error", seconds=0.0, caught_by="no test file maps to this module")
        if files:
            futures[pool.submit("mutate", mutant, files, timeout)] = i
    for done, future in enumerate(as_completed(futures), 1):
        i = futures[future]
        mutant, (result, took, tail) = mutants[i], future.result()
        results[i].update(result=result, seconds=round(took, 2),
                          caught_by=_first_failure(tail) if result == "caught" else _reason(tail) if result == "error"
                          else None)
        print(f"[{done:>4}/{len(futures)}] {result:<8} {mutant.path.removeprefix('src/retrograde/')}:{mutant.line} "
              f"{mutant.scope or '-'} {mutant.operator}: {_short(mutant.before)} -> {_short(mutant.after)} "
              f"({took:.1f} s)", flush=True)
    return results


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def diff_line(tree: Path, mutant: Mutant) -> str:
    """The mutant's first changed line, before and after."""
    source = (tree / mutant.path).read_text()
    before = source.splitlines()[mutant.line - 1]
    after = mutant.apply(source).splitlines()[mutant.line - 1]
    return f"- {before.strip()}\n+ {after.strip()}"


def summarise(results: list[dict]) -> dict:
    """Print the totals, a table per module, each survivor with its diff line and each error."""
    kinds = ("caught", "survived", "timeout", "error")
    totals = {"tried": len(results), **{kind: sum(r["result"] == kind for r in results) for kind in kinds}}
    print(f"\n{'module':<40}{'tried':>6}{'caught':>7}{'survived':>9}{'timeout':>8}{'error':>6}")
    for module in sorted({r["module"] for r in results}):
        rows = [r for r in results if r["module"] == module]
        counts = [sum(r["result"] == kind for r in rows) for kind in kinds]
        print(f"{module:<40}{len(rows):>6}" + "".join(f"{n:>{len(kind) + 1}}" for n, kind in zip(counts, kinds)))
    print(f"{'total':<40}{totals['tried']:>6}" + "".join(f"{totals[kind]:>{len(kind) + 1}}" for kind in kinds))
    survivors = [r for r in results if r["result"] == "survived"]
    if survivors:
        print(f"\nsurvivors ({len(survivors)}):")
    for r in survivors:
        print(f"  {r['path']}:{r['line']} {r['scope'] or '-'} [{r['operator']}] tests: {' '.join(r['tests'])}")
        print("\n".join(f"    {line}" for line in r["diff"].splitlines()))
    for r in results:
        if r["result"] == "error":
            print(f"  error: {r['path']}:{r['line']} {r['operator']}: {r['caught_by']}")
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200, help="mutants to draw")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="mutants run at once")
    parser.add_argument("--module", action="append", default=[], metavar="TEXT[:NAMES]",
                        help="draw from modules whose dotted name holds TEXT (any package), only inside the "
                             "functions or classes NAMES (comma-separated) if given; repeatable")
    parser.add_argument("--map", type=Path, default=None, help="JSON {module: [test files]} added to the derived map")
    parser.add_argument("--map-replaces", action="store_true",
                        help="--map's lists replace the derived ones of the modules it names, not add to them")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds a mutant may run (default: --timeout-factor times its files' baseline, +60 s)")
    parser.add_argument("--timeout-factor", type=float, default=3.0)
    parser.add_argument("--baseline-timeout", type=float, default=1800.0, help="seconds one unmutated test file may run")
    parser.add_argument("--pause-file", type=Path, default=None,
                        help="while this file exists no test run starts (runs under way finish): a quiet machine "
                             "for a benchmark beside a long pass")
    parser.add_argument("--list", action="store_true", help="print the sample and the test map, run nothing")
    parser.add_argument("--out", type=Path, default=None, help="write every mutant and the totals here as JSON")
    options = parser.parse_args()
    if options.count < 1 or options.jobs < 1:
        raise SystemExit("bench_mutation: --count and --jobs must be at least 1")
    try:
        extra = json.loads(options.map.read_text()) if options.map else {}
    except (OSError, ValueError) as error:
        raise SystemExit(f"bench_mutation: cannot read --map {str(options.map)!r}: {error}")
    print_options(options)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        tree = Path(tmp) / "tree"  # one snapshot: mutants, map and workers agree even if the checkout changes
        copy_tree(ROOT, tree)
        selections = [Selection.parse(given) for given in options.module]
        mutants, site_count, operators = sample(tree, options.count, options.seed, selections)
        if not mutants:
            raise SystemExit(f"bench_mutation: no mutation site matches --module {' '.join(options.module)}")
        mapping = test_map(tree, extra, options.map_replaces)
        print(f"{site_count} sites {json.dumps(operators, sort_keys=True)}; {len(mutants)} mutants drawn with seed "
              f"{options.seed}", flush=True)
        if options.list:
            for mutant in mutants:
                print(f"  {mutant.path}:{mutant.line} {mutant.scope or '-'} {mutant.operator}: "
                      f"{_short(mutant.before)} -> {_short(mutant.after)}")
            for module, files in mapping.items():
                print(f"  {module}: {' '.join(files) or '(none)'}")
            return
        pool = Pool(tree, Path(tmp), options.jobs, options.pause_file)
        try:
            in_use = sorted({name for mutant in mutants for name in mapping[mutant.module]})
            seconds, failing = baseline(pool, in_use, options.baseline_timeout)
            results = run_mutants(pool, tree, mutants, mapping, seconds, failing, options)
        finally:
            pool.close()
    totals = summarise(results)
    print(f"\n{json.dumps({'benchmark': 'mutation', **totals, 'wall_s': round(time.perf_counter() - start, 1)})}")
    if options.out:
        options.out.write_text(json.dumps({"seed": options.seed, "count": options.count, "sites": site_count,
                                           "operators": operators, "totals": totals, "map": mapping,
                                           "baseline": {"seconds": {k: round(v, 2) for k, v in sorted(seconds.items())},
                                                        "failing": failing},
                                           "mutants": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
