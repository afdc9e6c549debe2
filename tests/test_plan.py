"""A store's plan (data/plan.py): how a tier is cut into chunks."""

from __future__ import annotations

from retrograde.data.plan import make_plan
from retrograde.games import make_game


def test_a_tier_smaller_than_a_chunk_is_one_chunk_of_a_multiple_of_4():
    """data/plan.py: a tier smaller than the chunk size is one chunk of its size rounded up to a
    multiple of 4 (a packed byte holds 4 outcomes): Nim 1,3,5,7's tiers s0 and s16 hold one
    position each, in a chunk of 4 (docs/STORE.md)."""
    plan = make_plan(make_game("nim", {"heaps": [1, 3, 5, 7]}))
    assert [plan.chunking(name).chunk_size for name in ("s0", "s16")] == [4, 4]
