"""Nim with any heaps, an optional bound k on objects taken per turn, normal or misère.

Tiers: positions with the same total number of objects (`s{total}`); a move takes
1..k objects, so tier s reads tiers s-1 .. s-k. Within a tier positions are ranked
as bounded compositions of the total (`ranking`).
Every heap vector with 0 <= h_i <= H_i is a legal position.
"""

from __future__ import annotations

import math
import re
from functools import cached_property

import numpy as np

from retrograde import outcome
from retrograde.errors import BadOption, BadPosition
from retrograde.games import ranking
from retrograde.games.base import Expansion, Game, Param, Tier

#: Instances above this many positions are refused: 2^40 (1.1 trillion) is above the largest
#: game solved here (5x5 Quixo, 847 billion positions), and at COSTS' 38,000 positions a second
#: a core would take 11 months.
MAX_POSITIONS = 2**40
#: Instances of more tiers, or whose plan links more tiers, than these are refused. A plan names
#: each tier and its children (tier s reads s-1 .. s-k: a link each) and is made again at every
#: opening of the store: one heap of 100,000 --max-take 5 (100,001 tiers, 500,000 links) took 17 s
#: and 290 MB, about 170 us a tier; one heap of 4,000 (8 million links) 45 s and 800 MB, about
#: 6 us and 75 bytes a link. So 100,000 tiers take 17 s and a million links 6 s; each tier also
#: costs a solve 15 ms (one heap of 300 --max-take 2), 25 minutes for 100,000. (One heap of
#: 70,000 --max-take 1 is the longest Nim game a test holds the remoteness dtype to.)
MAX_TIERS = 100_000
MAX_TIER_LINKS = 1_000_000
#: A heap size or a position's heap: ASCII digits only (int() also reads '١' and '1_0'); a minus
#: sign is read so that the range check can name the heap.
INTEGER = re.compile(r"-?[0-9]+", re.ASCII)


def integers(text: str) -> tuple[int, ...] | None:
    """The integers of comma-separated `text` (blanks around each allowed), None unless every
    item is ASCII digits, perhaps after a minus (at most 4,300 of them, as int() reads)."""
    items = [item.strip() for item in str(text).split(",")]
    if not all(INTEGER.fullmatch(item) and len(item) <= 4300 for item in items):
        return None
    return tuple(int(item) for item in items)


def parse_heaps(text: str) -> tuple[int, ...]:
    """Parse `1,3,5,7` into a heap tuple (BadOption on anything else)."""
    items = [item.strip() for item in str(text).split(",")]
    if not text or not str(text).strip() or any(item == "" for item in items):
        raise BadOption(f"--heaps {text!r}: give heap sizes separated by commas, e.g. 1,3,5,7")
    heaps = integers(text)
    if heaps is None:
        raise BadOption(f"--heaps {text!r}: heap sizes must be whole numbers")
    return heaps


def tier_links(total: int, take_limit: int) -> int:
    """Links between the tiers s0 .. s{total} when a move takes 1 .. take_limit objects: tier s
    reads min(s, take_limit) tiers below it."""
    below = min(total, take_limit)  # tiers s1 .. s{below} read every tier below them
    return below * (below + 1) // 2 + (total - below) * take_limit


class Nim(Game):
    name = "nim"
    summary = "Nim: take 1..k objects from one heap; normal (last take wins) or misère play"
    notation = "heap sizes, comma-separated: 1,3,5,7; moves are HEAP-COUNT (1-based heap)"
    tier_legend = "s{n} holds the positions with n objects left"
    examples = ({"heaps": [1, 2, 3]}, {"heaps": [2, 3, 4], "max_take": 2, "misere": True})
    params_spec = (
        Param("heaps", "heap sizes of the start position, comma-separated (e.g. 1,3,5,7)",
              kind=parse_heaps, required=True, metavar="LIST"),
        Param("max_take", "at most K objects may be taken per turn (default: any number)",
              kind=int, metavar="K"),
        Param("misere", "misère play: taking the last object loses"),
    )

    def __init__(self, *, heaps, max_take: int | None = None, misere: bool = False):
        heaps = parse_heaps(heaps) if isinstance(heaps, str) else tuple(int(h) for h in heaps)
        if not heaps:
            raise BadOption("--heaps: at least one heap is needed")
        shown = ",".join(map(str, heaps))
        shown = shown if len(shown) <= 80 else shown[:60] + "..."
        if any(h < 1 for h in heaps):
            raise BadOption(f"--heaps {shown}: heap sizes must be >= 1")
        if max_take is not None and int(max_take) < 1:
            raise BadOption(f"--max-take {max_take}: must be >= 1")
        self.heaps = heaps
        self.max_take = None if max_take is None else int(max_take)
        self.misere = bool(misere)
        # each heap at least doubles the positions: past bit_length heaps the product is not needed
        positions = math.prod(h + 1 for h in heaps) if len(heaps) < MAX_POSITIONS.bit_length() else None
        if positions is None or positions > MAX_POSITIONS:
            count = f"{positions:,}" if positions is not None else f"at least 2^{len(heaps)}"
            raise BadOption(f"--heaps {shown}: {count} positions, over the {MAX_POSITIONS:,} a store of Nim may hold")
        if sum(heaps) >= MAX_TIERS:
            raise BadOption(f"--heaps {shown}: {sum(heaps) + 1:,} tiers (one for each count of objects left), "
                            f"over the {MAX_TIERS:,} a plan may hold")
        links = tier_links(sum(heaps), self._take_limit)
        if links > MAX_TIER_LINKS:
            raise BadOption(f"--heaps {shown}{'' if max_take is None else f' --max-take {max_take}'}: "
                            f"{links:,} links between tiers (tier s reads s-1 .. s-k), over the "
                            f"{MAX_TIER_LINKS:,} links a plan may hold (fewer objects, or a smaller --max-take)")

    @property
    def params(self):
        return {"heaps": list(self.heaps), "max_take": self.max_take, "misere": self.misere}

    @property
    def _take_limit(self) -> int:
        return max(self.heaps) if self.max_take is None else min(self.max_take, max(self.heaps))

    @property
    def max_moves(self) -> int:
        return sum(min(h, self._take_limit) for h in self.heaps)

    @property
    def max_remoteness(self) -> int:
        return sum(self.heaps)  # every move removes at least one object

    @cached_property
    def _ways(self) -> np.ndarray:
        """ways[i, t]: number of ways heaps i.. (each 0..H) sum to exactly t."""
        return ranking.composition_ways(self.heaps)

    def tiers(self):
        return tuple(
            Tier(
                name=f"s{total}",
                size=int(self._ways[0, total]),
                children=tuple(f"s{total - take}" for take in range(1, min(self._take_limit, total) + 1)),
                key=(total,),
            )
            for total in range(sum(self.heaps) + 1)
        )

    @property
    def initial_position(self):
        return self.heaps

    def parse(self, text):
        text = text.strip()
        heaps = integers(text)
        if heaps is None:
            raise BadPosition(f"nim position {text!r}: expected heap sizes like 1,3,5,7")
        if len(heaps) != len(self.heaps):
            raise BadPosition(f"nim position {text!r}: {len(heaps)} heaps, the instance has {len(self.heaps)}")
        for i, (h, limit) in enumerate(zip(heaps, self.heaps), start=1):
            if not 0 <= h <= limit:
                raise BadPosition(f"nim position {text!r}: heap {i} holds {h}, allowed 0..{limit}")
        return heaps

    def format(self, position):
        return ",".join(map(str, position))

    def locate(self, position):
        return f"s{sum(position)}", ranking.rank_composition(position, self._ways)

    def position_at(self, tier, index):
        return ranking.unrank_composition(index, tier.key[0], self._ways)

    def moves(self, position):
        result = []
        for i, h in enumerate(position):
            for take in range(1, min(h, self._take_limit) + 1):
                child = position[:i] + (h - take,) + position[i + 1:]
                result.append((f"{i + 1}-{take}", child))
        return result

    def primitive(self, position):
        if sum(position) == 0:
            return outcome.WIN if self.misere else outcome.LOSS
        return 0

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        from retrograde.games.nim import kernels

        result = Expansion.buffers(stop - start, self.max_moves, out)
        terminal = outcome.WIN if self.misere else outcome.LOSS
        kernels.expand(self._ways, np.array(self.heaps, dtype=np.int64), self._take_limit,
                           terminal, tier.key[0], start, stop, child_offsets, result.primitive, result.children)
        return result

    # --- capabilities ----------------------------------------------------------------
    @property
    def display(self):
        from retrograde.games.nim.display import NimDisplay

        return NimDisplay(self)

    @property
    def costs(self):
        from retrograde.games.nim.costs import COSTS

        return COSTS

    @property
    def search(self):
        from retrograde.games.nim.search import NimSearch

        return NimSearch(self)

    @property
    def playouts(self):
        from retrograde.games.nim.playouts import playouts

        return playouts(self)

    @property
    def genome(self):
        from retrograde.games.nim.genome import NimRules

        return NimRules(self)

    @property
    def policies(self):
        from retrograde.games.nim.players import FixedRules, NimExpert

        return {"expert": NimExpert, "rules": FixedRules}

    @property
    def course(self):
        from retrograde.games.nim.presets import NimCourse

        return NimCourse()
