"""What solving Quixo costs, measured (BENCHMARKS.md), for the estimate before a solve."""

from retrograde.games.capabilities import Costs

#: Indexed positions solved per second per core on 2 workers, by board size (BENCHMARKS.md, issue
#: 12, store format 3): 4x4 43,046,721 in 17.0 s (median of 3); 5x5 from --down-to 23,
#: 2,969,567,232 in 593 s (--down-to 24 went faster, 2,672,000: deeper tiers have more blanks, so
#: more moves; SCALING.md expects the middle tiers slower still); 3x3 is per-tier overhead bound:
#: 19,683 positions in 1.1-1.4 s in-process (2026-11-22), halved as workers do not help.
SOLVE_RATES = {3: 7_500.0, 4: 1_266_000.0, 5: 2_505_000.0}
#: Bytes a finished store takes an indexed position (holes included), measured (BENCHMARKS.md,
#: issue 26, store format 4): 4x4 1,125,827 bytes (0.21 bits); 5x5 --down-to 23 44,384,706 bytes
#: for 2,969,567,232 (0.12 bits). 3x3 is not measured: the 4x4 figure, the larger.
STORED_BYTES = {3: 1_125_827 / 43_046_721, 4: 1_125_827 / 43_046_721, 5: 44_384_706 / 2_969_567_232}
#: One index in about 8 holds a position (a symmetry class's representative): 5,398,083 of
#: the 43,046,721 of 4x4 (docs/STORE.md); larger boards have fewer symmetric boards, so less.
POSITION_SHARE = 5_398_083 / 43_046_721
#: Scratch files deflate to about 1/50 of 4 bytes a row: 5x5 --down-to 24's first passes,
#: 1,770,042,280 bytes in 35,691,454 (2026-11-28); the estimate takes 1/10, to be safe where the
#: middle tiers' values are less uniform.
SCRATCH_SHARE = 0.1
#: Messages of a split propagation: 5x5 --down-to 21's group m10o12 m12o10 (2,974,571,600
#: indices, 2 partitions) sent 2,034,373,360 at its level 1 (0.68 an index, so 5.6 a position),
#: which deflate to 0.75-0.83 bytes each in frames (2026-11-28): 4.7 bytes a position a level.
#: Two levels are kept, and a third partition sends 4/3 as much: 12.5 bytes a position.
MESSAGE_BYTES = 12.5


def costs(size: int) -> Costs:
    """What solving Quixo on a size x size board costs."""
    return Costs(solve_rate=SOLVE_RATES[size], stored_bytes_per_position=STORED_BYTES[size],
                 position_share=POSITION_SHARE, scratch_share=SCRATCH_SHARE,
                 message_bytes=MESSAGE_BYTES,
                 too_big_hint="solve part of it with --down-to N (the tiers with at least N cubes)")
