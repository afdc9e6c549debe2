"""What solving Quarto costs, measured (BENCHMARKS.md), for the estimate before a solve."""

from retrograde.games.capabilities import Costs

#: Roots with 9 empty cells (28,756,297 indexed positions) solved in 17-21 s on 2 workers,
#: 1.36-1.69 million a second, on a machine shared with other work (benchmarks/bench_quarto.py);
#: their stores took 2,993,943-3,708,444 bytes (about half the indices are holes, which
#: compress to almost nothing), so the larger figure.
COSTS = Costs(solve_rate=650_000.0, stored_bytes_per_position=3_708_444 / 28_756_297,
              too_big_hint="solve below a later position: --from POSITION with at most 10 empty cells "
                           "(11 need about 20 GB a worker: --workers 1)")
