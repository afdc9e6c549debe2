"""The plan: frozen data saying which tiers exist, how they are chunked, and in what order.

A plan is computed from a game instance once, written into the store, and read
back by every later stage; executors only run it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from retrograde.errors import BadOption
from retrograde.games import Game

FORMAT_VERSION = 1
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


@dataclass(frozen=True)
class Plan:
    """Everything a store needs to know before the first position is solved."""

    game: str
    params: dict[str, Any]
    chunk_size: int
    remoteness_dtype: str
    tiers: tuple[TierPlan, ...]
    format: int = FORMAT_VERSION

    def tier(self, name: str) -> TierPlan:
        for tier in self.tiers:
            if tier.name == name:
                return tier
        raise KeyError(name)

    @property
    def positions(self) -> int:
        return sum(tier.size for tier in self.tiers)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tiers"] = [dict(asdict(t), children=list(t.children)) for t in self.tiers]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        tiers = tuple(TierPlan(t["name"], t["size"], tuple(t["children"]), t["chunk_size"])
                      for t in data["tiers"])
        return cls(data["game"], data["params"], data["chunk_size"], data["remoteness_dtype"],
                   tiers, data["format"])


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
    tiers = tuple(
        TierPlan(t.name, t.size, t.children, min(chunk_size, max(4, -(-t.size // 4) * 4)))
        for t in game.tiers()
    )
    return Plan(game.name, game.params, chunk_size, remoteness_dtype(game.max_remoteness), tiers)
