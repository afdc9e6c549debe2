"""What solving Connect Four costs, measured (BENCHMARKS.md), for the estimate before a solve."""

import math

from retrograde.games.capabilities import Costs

#: Measured solves with 4 in a row on 2 workers (`benchmarks/bench_connect4.py`, 2026-11-25):
#: board -> (indexed positions, seconds, store bytes). Indices that no play reaches cost little
#: and a small board pays mostly per-tier overhead: 5x4 0.76 million indices a second (0.70 of
#: them reachable), 4x7 7.3 million (0.20 reachable), 7x4 4.0 million (0.49 reachable).
MEASURED = {(5, 4): (5_621_939, 7.37, 975_658), (6, 4): (159_643_961, 42.7, 17_365_053),
            (5, 5): (171_976_899, 38.2, 16_528_616), (4, 7): (676_262_587, 93.1, 34_659_778),
            (7, 4): (4_593_382_831, 1150.1, 289_484_820)}
#: Reachable positions over indexed ones, measured: 3,945,711 of 5,621,939 (5x4) down to
#: 135,385,909 of 676,262,587 (4x7); a position and its mirror image share one representative, so
#: at most about 0.36 of the indices hold one. 0.5 stays a bound for the scratch the solve needs.
POSITION_SHARE = 0.5


def costs(game) -> Costs:
    """What solving a Connect Four instance costs: the rates of the measured board whose index
    is nearest in size (by ratio)."""
    indexed = sum(tier.size for tier in game.tiers())
    nearest = min(MEASURED.values(), key=lambda figures: abs(math.log(figures[0] / indexed)))
    positions, seconds, stored = nearest
    return Costs(solve_rate=positions / seconds / 2, stored_bytes_per_position=stored / positions,
                 position_share=POSITION_SHARE,
                 too_big_hint="solve a smaller board (--width, --height), or --connect 3")
