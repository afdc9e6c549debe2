"""What solving tic-tac-toe costs, measured, for the estimate before a solve."""

from retrograde.games.capabilities import Costs

#: 6,046 positions in 10 tiers solved one after another: 0.14-0.56 s in-process (2026-11-22),
#: 10,000 positions/s or more; half that a core, as more workers do not help a chain of tiers.
COSTS = Costs(solve_rate=5_000.0)
