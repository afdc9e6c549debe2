"""The plan: frozen data saying which tiers exist, how they are chunked, and in what order.

A plan is computed from a game instance once, written into the store, and read
back by every later stage; executors only run it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

from retrograde.errors import BadOption
from retrograde.games import Game, Tier

#: The store format (docs/STORE.md). 2: chunk records carry a digest of the stored files.
#: 3: a game with symmetries keeps one position per symmetry class (Quixo, tic-tac-toe).
FORMAT_VERSION = 3
#: Positions per chunk by default: 1 Mi positions is ~3 MiB of outcome+remoteness.
DEFAULT_CHUNK_SIZE = 1 << 20


@dataclass(frozen=True)
class TierPlan:
    """One tier: its size, the tiers it reads, and its chunking (in positions)."""

    name: str
    size: int
    children: tuple[str, ...]
    chunk_size: int

    @property
    def n_chunks(self) -> int:
        return -(-self.size // self.chunk_size)

    def chunk_bounds(self, chunk: int) -> tuple[int, int]:
        """Index range [start, stop) of a chunk."""
        start = chunk * self.chunk_size
        return start, min(start + self.chunk_size, self.size)

    def chunk_length(self, chunk: int) -> int:
        """Positions in a chunk (the last one may be short)."""
        start, stop = self.chunk_bounds(chunk)
        return stop - start


@dataclass(frozen=True)
class Step:
    """Tiers solved as one unit: a single loop-free tier (chunk by chunk), or a loopy
    group whose positions lead into each other (solved together). Steps of one wave
    depend only on earlier waves, so they run in parallel."""

    tiers: tuple[str, ...]
    loopy: bool
    wave: int


@dataclass(frozen=True)
class Plan:
    """Everything a store needs to know before the first position is solved."""

    game: str
    params: dict[str, Any]
    chunk_size: int
    remoteness_dtype: str
    tiers: tuple[TierPlan, ...]
    steps: tuple[Step, ...]
    format: int = FORMAT_VERSION

    def tier(self, name: str) -> TierPlan:
        return self._by_name[name]

    @cached_property
    def _by_name(self) -> dict[str, TierPlan]:
        return {tier.name: tier for tier in self.tiers}

    @property
    def positions(self) -> int:
        return sum(tier.size for tier in self.tiers)

    def waves(self) -> list[list[Step]]:
        """Steps grouped by wave, in order."""
        waves: dict[int, list[Step]] = {}
        for step in self.steps:
            waves.setdefault(step.wave, []).append(step)
        return [waves[w] for w in sorted(waves)]

    def extends(self, other: Plan) -> bool:
        """Whether this plan is `other` with more tiers solved after its own (e.g. a Quixo
        --down-to lower than `other`'s): a store of `other` can be deepened to it."""
        return (self.game == other.game and self.chunk_size == other.chunk_size and self.format == other.format
                and self.remoteness_dtype == other.remoteness_dtype and len(self.tiers) > len(other.tiers)
                and self.tiers[:len(other.tiers)] == other.tiers and self.steps[:len(other.steps)] == other.steps)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tiers"] = [dict(asdict(t), children=list(t.children)) for t in self.tiers]
        data["steps"] = [dict(asdict(s), tiers=list(s.tiers)) for s in self.steps]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        tiers = tuple(TierPlan(t["name"], t["size"], tuple(t["children"]), t["chunk_size"])
                      for t in data["tiers"])
        steps = tuple(Step(tuple(s["tiers"]), s["loopy"], s["wave"]) for s in data["steps"])
        return cls(data["game"], data["params"], data["chunk_size"], data["remoteness_dtype"],
                   tiers, steps, data["format"])


def plan_steps(tiers: tuple[Tier, ...]) -> tuple[Step, ...]:
    """Group tiers into steps (strongly connected components of the child-tier graph) and
    number the waves: a step's wave is one more than the latest wave it reads from.

    Children outside the instance (e.g. below a Quixo --down-to) must not be read:
    every child must be a listed tier.
    """
    names = [t.name for t in tiers]
    order = {name: i for i, name in enumerate(names)}
    children = {t.name: list(t.children) for t in tiers}
    missing = sorted({c for cs in children.values() for c in cs} - set(names))
    if missing:
        raise ValueError(f"tiers read by the plan but not in it: {missing[:5]}")
    # Tarjan's algorithm, iterative; components come out children first.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in names:
        if root in index:
            continue
        work = [(root, iter(children[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for child in successors:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(children[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component, key=order.__getitem__))
    wave_of: dict[str, int] = {}
    steps = []
    for component in components:
        members = set(component)
        outside = [c for t in component for c in children[t] if c not in members]
        wave = 1 + max((wave_of[c] for c in outside), default=-1)
        loopy = len(component) > 1 or component[0] in children[component[0]]
        for t in component:
            wave_of[t] = wave
        steps.append(Step(tuple(component), loopy, wave))
    return tuple(sorted(steps, key=lambda s: (s.wave, order[s.tiers[0]])))


def validate_chunk_size(chunk_size: int) -> int:
    if chunk_size < 4 or chunk_size % 4:
        raise BadOption(f"--chunk-size {chunk_size}: must be a positive multiple of 4")
    return chunk_size


def remoteness_dtype(bound: int | None) -> str:
    """The narrowest unsigned dtype holding remoteness up to `bound` (uint16 if unknown)."""
    if bound is None:
        return "uint16"
    for dtype, top in (("uint8", 2**8 - 1), ("uint16", 2**16 - 1), ("uint32", 2**32 - 1)):
        if bound <= top:
            return dtype
    raise BadOption(f"remoteness up to {bound} does not fit a uint32")


def make_plan(game: Game, *, chunk_size: int = DEFAULT_CHUNK_SIZE) -> Plan:
    """Plan a solve of `game`: tiers in dependency order, each cut into chunks."""
    validate_chunk_size(chunk_size)
    game_tiers = game.tiers()
    tiers = tuple(
        TierPlan(t.name, t.size, t.children, min(chunk_size, max(4, -(-t.size // 4) * 4)))
        for t in game_tiers
    )
    return Plan(game.name, game.params, chunk_size, remoteness_dtype(game.max_remoteness), tiers,
                plan_steps(game_tiers))
