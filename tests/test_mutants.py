"""Pins of issue 36's second mutation pass (benchmarks/bench_mutation.py over verify, the store's
reads, the lock and the artifact loaders): each test fails under a mutant that the tests of its
module let through (BENCHMARKS.md, "Issue 36 — the second mutation pass", names each)."""

from __future__ import annotations

import json

import reference as ref


def test_verify_counts_every_position_once(solved, cli):
    """verify's count is the positions it checked, from nought: nim 1,3,5,7 has 2*4*6*8 of them
    (every heap from empty to full). Mutant: VerifyResult.positions starting at 1."""
    heaps = [1, 3, 5, 7]
    assert len(ref.nim_positions(heaps)) == 2 * 4 * 6 * 8
    code, stdout, _ = cli("verify", "--store", str(solved("nim", {"heaps": heaps})), "--workers", "0", "--quiet",
                          "--json")
    assert code == 0 and json.loads(stdout)["positions"] == 2 * 4 * 6 * 8, stdout
