"""The house's structure, so that its knots cannot come back: imports point down the layers
(ground, search framework, games, data and solvers, pipeline and agents, training, validation,
workflows/api/cli), counting imports inside functions and module names in strings (the
`import_module` tables of agents and hooks); no package imports another in a loop; and no code
outside `games/` names a game (identifiers and strings; docstrings and comments may)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from retrograde.games import GAMES

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "retrograde"

#: The floor of each room (a module at the package's top, or a subpackage): a room imports its
#: own floor and those below only.
FLOORS = {
    "errors": 0, "outcome": 0, "jit": 0, "spec": 0,
    "search": 1,
    "games": 2,
    "data": 3, "solvers": 3,
    "pipeline": 4, "agents": 4,
    "training": 5,
    "validation": 6,
    "workflows": 7, "analysis": 7, "explorer": 7, "api": 7, "cli": 7, "exits": 7, "__init__": 7, "__main__": 7,
}
#: A module named in a string: "retrograde.x.y" or "retrograde.x.y:Name".
MODULE_TEXT = re.compile(r"^retrograde(\.\w+)+(:\w+)?$")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def room(module: str) -> str:
    """The room of a dotted module name inside the package (`retrograde.games.nim.game` -> games)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, here: str | None = None) -> list[tuple[int, str]]:
    """(line, module) of every import of the package in a file (the module `here`, by default
    the file's own name in the package): statements anywhere (top level or inside functions),
    module names in strings, and dynamic `import_module` calls (an f-string of a submodule of the
    file's own package counts as that package)."""
    tree = ast.parse(path.read_text())
    here = here or dotted(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("retrograde")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.append((node.lineno, f"{base}.{node.module}" if node.module else base))
            elif node.module and node.module.startswith("retrograde"):
                folder = PACKAGE.parent / node.module.replace(".", "/")
                submodules = [f"{node.module}.{alias.name}" for alias in node.names
                              if (folder / f"{alias.name}.py").exists() or (folder / alias.name).is_dir()]
                found += [(node.lineno, module) for module in submodules]
                if len(submodules) < len(node.names):  # names the package itself defines
                    found.append((node.lineno, node.module))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_TEXT.match(node.value):
            found.append((node.lineno, node.value.partition(":")[0]))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "import_module", "__import__"):
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.JoinedStr) and isinstance(argument.values[0], ast.FormattedValue) \
                    and getattr(argument.values[0].value, "id", "") == "__name__":
                found.append((node.lineno, here))
            elif not (isinstance(argument, ast.Constant) or isinstance(argument, ast.Name)):
                found.append((node.lineno, "<a module computed at run time>"))
    return found


def test_every_room_has_a_floor():
    rooms = {room(dotted(path)) for path in modules()}
    assert rooms <= set(FLOORS), sorted(rooms - set(FLOORS))


def test_imports_point_down_the_layers():
    upward = []
    for path in modules():
        source = room(dotted(path))
        for line, module in imports(path):
            target = room(module) if module.startswith("retrograde") else None
            if target is None or FLOORS.get(target, 99) > FLOORS[source]:
                upward.append(f"{path.relative_to(PACKAGE)}:{line} ({source}, floor {FLOORS[source]}) "
                              f"imports {module}")
    assert not upward, "\n".join(upward)


def test_no_two_rooms_import_each_other():
    edges = {}
    for path in modules():
        source = room(dotted(path))
        for _, module in imports(path):
            if room(module) != source:
                edges.setdefault(source, set()).add(room(module))
    loops = sorted(f"{a} <-> {b}" for a, targets in edges.items() for b in targets if a in edges.get(b, ()))
    assert not loops, loops


def test_the_checker_sees_lazy_relative_and_string_imports(tmp_path):
    """The import finder itself: a lazy import, a relative one and a module in a string count."""
    probe = tmp_path / "probe.py"
    probe.write_text('def f():\n    from retrograde.agents import base\n    from ..data import store\n\n'
                     'TABLE = {"x": "retrograde.cli:main"}\n')
    found = {module for _, module in imports(probe, here="retrograde.search.probe")}
    assert {"retrograde.agents.base", "retrograde.data", "retrograde.cli"} <= found


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (a module's, class's or function's first
    statement)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def game_names() -> re.Pattern:
    """Every game's registry name and class name, as words."""
    words = sorted({name for name in GAMES} | {cls.__name__ for cls in GAMES.values()}, key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9])", re.IGNORECASE)


def named_games(path: Path, pattern: re.Pattern, root: Path = PACKAGE) -> list[str]:
    """Where code in a file names a game: identifiers, attribute names and strings (not docstrings)."""
    tree = ast.parse(path.read_text())
    skip = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        texts = []
        if isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts = [node.name]
        elif isinstance(node, ast.arg):
            texts = [node.arg]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = [node.value]
        for text in texts:
            for hit in pattern.finditer(text.replace("_", " ")):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {hit.group(0)!r} in {text[:60]!r}")
    return found


def test_no_code_outside_the_games_names_a_game():
    pattern = game_names()
    found = [hit for path in modules() if "games" not in path.relative_to(PACKAGE).parts[:1]
             for hit in named_games(path, pattern)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text,named", [("same = game.name == 'quixo'", True), ("nim_lost(heaps)", True),
                                        ("x = Quarto()", True), ("minimum = 1", False), ("quixotic = 2", False)])
def test_the_name_checker_finds_game_names(tmp_path, text, named):
    probe = tmp_path / "probe.py"
    probe.write_text(f'"""A docstring may say Quixo."""\n{text}\n')
    assert bool(named_games(probe, game_names(), root=tmp_path)) == named
