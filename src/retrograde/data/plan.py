"""The plan: the store's schema, frozen data saying which tiers a store holds, how each is cut
into chunks, and in what steps they are solved.

A plan is made from a game instance (`make_plan`), written into the store's root document
and made again from the game that document names whenever the store is opened (the store
then checks that the two agree byte for byte); every stage reads it, executors only run it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from retrograde.errors import BadOption
from retrograde.games import Game
from retrograde.games.tiers import Step, Tier, solve_steps

#: The store format (docs/STORE.md). 2: chunk records carry a digest of the stored files.
#: 3: a game with symmetries keeps one position per symmetry class. 4: stronger codecs, and a game
#: that classifies positions in one ply stores no value one ply decides ("one-ply" encoding).
FORMAT_VERSION = 4
#: How a tier's arrays hold its values: as they are, or without what one ply decides (`data.encoding`).
PLAIN, ONE_PLY = "plain", "one-ply"
#: Positions per chunk by default: 1 Mi positions is ~3 MiB of outcome+remoteness.
DEFAULT_CHUNK_SIZE = 1 << 20


@dataclass(frozen=True)
class Chunking:
    """How one tier of `size` indices is cut into chunks of `chunk_size` (the last may be short)."""

    size: int
    chunk_size: int

    @property
    def count(self) -> int:
        return -(-self.size // self.chunk_size)

    def bounds(self, chunk: int) -> tuple[int, int]:
        """Index range [start, stop) of a chunk."""
        start = chunk * self.chunk_size
        return start, min(start + self.chunk_size, self.size)

    def length(self, chunk: int) -> int:
        """Indices in a chunk."""
        start, stop = self.bounds(chunk)
        return stop - start


@dataclass(frozen=True)
class Plan:
    """Everything a store needs to know before the first position is solved: the game
    instance, the chunk size, the remoteness dtype, the tiers (children first) and the steps."""

    game: str
    params: dict[str, Any]
    chunk_size: int
    remoteness_dtype: str
    tiers: tuple[Tier, ...]
    steps: tuple[Step, ...]
    #: PLAIN or ONE_PLY (the game's `one_ply`).
    encoding: str = PLAIN
    format: int = FORMAT_VERSION

    def tier(self, name: str) -> Tier:
        """The tier called `name` (KeyError if the plan has none)."""
        return self.tiers[self.place(name)]

    def place(self, name: str) -> int:
        """Where tier `name` stands in `tiers`, from 0 (KeyError if the plan has none): with its
        name, what a tier's record is bound to (`data.store.TierRecord`)."""
        return self._places[name]

    @cached_property
    def _places(self) -> dict[str, int]:
        return {tier.name: place for place, tier in enumerate(self.tiers)}

    def chunking(self, name: str) -> Chunking:
        """How tier `name` is cut into chunks: `chunk_size`, or the tier's size rounded up to a
        multiple of 4 (a packed byte holds 4 outcomes) if that is smaller."""
        size = self.tier(name).size
        return Chunking(size, min(self.chunk_size, max(4, -(-size // 4) * 4)))

    @property
    def positions(self) -> int:
        """Indices in every tier (holes included)."""
        return sum(tier.size for tier in self.tiers)

    def waves(self) -> list[list[Step]]:
        """Steps grouped by wave, in order."""
        waves: dict[int, list[Step]] = {}
        for step in self.steps:
            waves.setdefault(step.wave, []).append(step)
        return [waves[w] for w in sorted(waves)]

    def extends(self, other: Plan) -> bool:
        """Whether this plan is `other` with more tiers solved after its own (a game instance
        holding more of the same game, e.g. more of its tiers): a store of `other` can be
        deepened to it."""
        return (self.game == other.game and self.chunk_size == other.chunk_size and self.format == other.format
                and self.encoding == other.encoding
                and self.remoteness_dtype == other.remoteness_dtype and len(self.tiers) > len(other.tiers)
                and self.tiers[:len(other.tiers)] == other.tiers and self.steps[:len(other.steps)] == other.steps)

    def to_json(self) -> dict[str, Any]:
        """The plan as the store's root document holds it."""
        return {"game": self.game, "params": self.params, "chunk_size": self.chunk_size,
                "remoteness_dtype": self.remoteness_dtype,
                "tiers": [{"name": tier.name, "size": tier.size, "children": list(tier.children),
                           "chunk_size": self.chunking(tier.name).chunk_size} for tier in self.tiers],
                "steps": [{"tiers": list(step.tiers), "loopy": step.loopy, "wave": step.wave} for step in self.steps],
                "encoding": self.encoding, "format": self.format}


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
    tiers = game.tiers()
    steps = solve_steps(tiers)
    loopy = next((step for step in steps if step.loopy), None)
    if loopy is not None and game.loopy is None:
        raise BadOption(f"{game.describe()}: tiers {', '.join(loopy.tiers)} lead into each other, and the game "
                        "gives no `loopy` capability to solve them (docs/GAMES.md)")
    return Plan(game.name, game.params, chunk_size, remoteness_dtype(game.max_remoteness), tiers, steps,
                ONE_PLY if game.one_ply else PLAIN)
