"""Agent specs: the one way to name an agent, on the command line and in Python.

Grammar (SPEC §6):

    spec    := NAME [":" option ("," option)*]
    option  := KEY "=" value
    value   := '"' text '"' | "(" spec-or-text ")" | text up to the next top-level ","

A value that is itself a spec with several options goes in parentheses:
`lookup:fallback=(minimax:depth=2,eval=lines)`; with one option it needs none:
`lookup:fallback=minimax:depth=2`. Any text at all (a path holding commas, unbalanced
parentheses, spaces at either end) goes in double quotes, a quote inside written twice:
`ga:params="runs/a,b (1/ga.json"`; a '"' opens quoted text only where a value begins (right
after its "="), so quotes inside other text stay as they are. `str(AgentSpec)` writes each
value in the first of the three forms (bare, parentheses, quotes) that reads back exactly,
so a spec's text always parses back to the same spec. A list of specs (`validate --agents`) is split at
top-level commas, a piece of the form `key=value` (no ":" before its "=") continuing the
spec before it: `lookup,minimax:depth=3,eval=lines,random` names three agents; so does a
piece that is no agent name after a spec with options (a path a comma cut, refused with
the way to write it).

Parsing checks only the grammar; `Option.convert` types and checks each value against
the agent's declared options (`registry.build_agent`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from retrograde.errors import BadAgent

_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: the agent's name and its options as written (values are text, or a
    nested `AgentSpec` where the text was in parentheses or itself looks like a spec)."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return f"{self.name}:{','.join(f'{key}={_written(value)}' for key, value in self.options)}"

    def get(self, key: str, default: str | None = None) -> str | None:
        return dict(self.options).get(key, default)


def _quoted(value: str) -> str:
    """`value` in double quotes, each quote inside it doubled: the form that holds any text."""
    return '"' + value.replace('"', '""') + '"'


@lru_cache(maxsize=4096)
def _written(value: str) -> str:
    """`value` as a spec writes it: bare, else in parentheses (a nested spec's form), else quoted:
    the first form that `parse_spec` reads back as exactly `value` (kept: reports name agents
    by their text again and again)."""
    for form in (value, f"({value})"):
        try:
            if _parse(f"agent:key={form}", hint=False).options == (("key", value),):
                return form
        except BadAgent:
            continue
    return _quoted(value)


def _closing_quote(text: str, start: int, where: str) -> int:
    """The index of the quote that closes the quoted text opening at `text[start]` (a doubled
    quote is one quote of the text)."""
    at = start + 1
    while True:
        end = text.find('"', at)
        if end < 0:
            raise BadAgent(f"agent spec {where!r}: '\"' without a closing '\"' (a quote inside quoted text "
                           "is written twice)")
        if text[end + 1:end + 2] != '"':
            return end
        at = end + 2


def _unquoted(text: str, where: str) -> Iterator[tuple[int, str]]:
    """Each character of `text` outside quoted values, with its index: a '"' that begins a value
    (after "=" and any spaces) opens quoted text, which is skipped whole."""
    at, value_begins = 0, False
    while at < len(text):
        char = text[at]
        if char == '"' and value_begins:
            at, value_begins = _closing_quote(text, at, where) + 1, False
            continue
        yield at, char
        if not char.isspace():
            value_begins = char == "="
        at += 1


def _split_top(text: str, where: str) -> list[str]:
    """Split at commas outside parentheses and quotes; unbalanced parentheses are a grammar error."""
    pieces, depth, start = [], 0, 0
    for i, char in _unquoted(text, where):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise BadAgent(f"agent spec {where!r}: ')' without '(' (a value holding one is written in "
                               "double quotes)")
        elif char == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    if depth:
        raise BadAgent(f"agent spec {where!r}: '(' without ')' (a value holding one is written in double quotes)")
    pieces.append(text[start:])
    return pieces


def _unwrap(value: str, where: str) -> str:
    """`"text"` -> `text` (quotes inside undoubled); `(text)` -> `text` when the first
    parenthesis closes at the value's end; any other value as it is."""
    if value.startswith('"'):
        end = _closing_quote(value, 0, where)
        if end != len(value) - 1:
            raise BadAgent(f"agent spec {where!r}: {value[end + 1:]!r} follows a quoted value (a quote inside "
                           "quoted text is written twice)")
        return value[1:-1].replace('""', '"')
    if not value.startswith("("):
        return value
    depth = 0
    for i, char in _unquoted(value, where):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return value[1:-1].strip() if i == len(value) - 1 else value
    return value


def parse_spec(text: str) -> AgentSpec:
    """Parse one spec; raise `BadAgent` naming what is wrong with its grammar."""
    return _parse(text, hint=True)


def _parse(text: str, hint: bool) -> AgentSpec:
    """`parse_spec`; with `hint`, a piece that a comma cut off the value before it is refused
    with that value written whole (`_written`, which reads its forms back without hints)."""
    raw = text.strip()
    if not raw:
        raise BadAgent("empty agent spec: give an agent name, e.g. random or minimax:depth=3")
    name, colon, rest = raw.partition(":")
    name = name.strip().lower()
    if not _NAME.match(name):
        raise BadAgent(f"agent spec {raw!r}: {name!r} is not an agent name "
                       "(write NAME or NAME:key=value,...; 'retrograde agents' lists them)")
    if colon and not rest.strip():
        raise BadAgent(f"agent spec {raw!r}: nothing after ':' (write NAME:key=value,...)")
    options: dict[str, str] = {}
    for piece in _split_top(rest, raw) if colon else []:
        key, equals, value = piece.partition("=")
        if hint and not equals and options:  # a comma split the value before: say how to write it whole
            last = next(reversed(options))
            raise BadAgent(f"agent spec {raw!r}: {piece.strip()!r} is not key=value; a value holding a comma "
                           f"is written in parentheses or quotes: {last}={_written(options[last] + ',' + piece)}")
        key, value = key.strip().lower(), _unwrap(value.strip(), raw)
        if not equals or not key:
            raise BadAgent(f"agent spec {raw!r}: {piece.strip()!r} is not key=value")
        if not _NAME.match(key):  # 'fallback(minimax:depth=2' would not read back as written
            raise BadAgent(f"agent spec {raw!r}: {key!r} is not an option name (write key=value, a value "
                           "that is a spec with options in parentheses)")
        if not value:
            raise BadAgent(f"agent spec {raw!r}: {key}= has no value")
        if key in options:
            raise BadAgent(f"agent spec {raw!r}: {key} is given twice")
        options[key] = value
    return AgentSpec(name, tuple(options.items()))


def parse_spec_list(text: str) -> list[AgentSpec]:
    """Parse a comma-separated list of specs (see the module docstring for continuations)."""
    specs: list[str] = []
    for piece in _split_top(text, text):
        key, equals, _ = piece.partition("=")
        named = _NAME.match(piece.partition(":")[0].strip().lower())
        if specs and ((equals and ":" not in key) or (not named and ":" in specs[-1])):
            specs[-1] += "," + piece  # an option, or a value's text after a comma (refused with a hint)
        else:
            specs.append(piece)
    return [parse_spec(spec) for spec in specs]


@dataclass(frozen=True)
class Option:
    """One agent parameter, declared as data so that specs are typed and checked in one place
    and `retrograde agents` can list it. `kind`: int, float, choice, text, file (a path that
    must exist) or agent (a nested spec, built for the same game)."""

    name: str
    help: str
    default: Any
    kind: str = "int"
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    def describe(self) -> str:
        if self.kind == "choice":
            kind = "|".join(self.choices)
        elif self.low is not None or self.high is not None:
            low = "" if self.low is None else f"{self.low:g}"
            high = "" if self.high is None else f"{self.high:g}"
            kind = f"{self.kind} {low}..{high}"
        else:
            kind = self.kind
        default = "" if self.default is None else f", default {self.default}"
        return f"{self.name}=<{kind}>{default}: {self.help}"

    def convert(self, value: str, where: str) -> Any:
        """The typed value of `value`; raise `BadAgent` naming the agent spec and the option."""
        def bad(why: str) -> BadAgent:
            return BadAgent(f"agent spec {where!r}: {self.name}={_written(value)}: {why}")

        if self.kind in ("int", "float"):
            try:
                if not value.isascii():  # int() and float() also read other scripts' digits: '١' is 1
                    raise ValueError(value)
                number = int(value) if self.kind == "int" else float(value)
            except ValueError:
                raise bad(f"not {'an integer' if self.kind == 'int' else 'a number'}") from None
            if number != number or (self.low is not None and number < self.low) or \
                    (self.high is not None and number > self.high):
                low = "-inf" if self.low is None else f"{self.low:g}"
                high = "inf" if self.high is None else f"{self.high:g}"
                raise bad(f"must be between {low} and {high}")
            return number
        if self.kind == "choice":
            if value.lower() not in self.choices:
                raise bad(f"must be one of {', '.join(self.choices)}")
            return value.lower()
        if self.kind == "file":
            try:  # `~user` of no user, a name too long, a NUL: no such file either
                path = Path(value).expanduser()
                found = path.is_file()
            except (OSError, RuntimeError, ValueError):
                found = False
            if not found:
                raise bad("no such file")
            return path
        if self.kind == "agent":
            return parse_spec(value)
        return value
