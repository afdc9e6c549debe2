"""What solving Connect Four costs, measured (BENCHMARKS.md), for the estimate before a solve."""

from retrograde.games.hooks import Costs


def costs(game) -> Costs:
    """What solving a Connect Four instance costs."""
    return Costs(solve_rate=500_000.0, position_share=0.5,
                 too_big_hint="solve a smaller board (--width, --height), or --connect 3")
