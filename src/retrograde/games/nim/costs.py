"""What solving Nim costs, measured (BENCHMARKS.md), for the estimate before a solve."""

from retrograde.games.capabilities import Costs

#: Solving is per-tier overhead bound (one tier after another): 1,3,5,7,9,11,13 --max-take 4
#: (645,120 positions) ran at 76,900 positions/s on 2 workers (BENCHMARKS.md, issue 2), so
#: half that a core; in-process it did 103,700/s, so the figure is cautious for one core.
COSTS = Costs(solve_rate=38_000.0)
