"""The signature of a loopy game's expand kernel (`Game.expand_kernel`): compiled with it
(`njit(EXPAND)`), the kernel is a first-class function that the loopy solver's first pass
(`solvers.loopy.first_pass_chunk`) takes, and both still come from numba's cache.

`expand(params, table, lines, symmetry, start, stop, child_offsets, primitive, children)` does
what `Game.expand(tier, start, stop, child_offsets, group=group)` does, into the first stop-start
rows of `primitive` and `children` (which may hold more rows). `params`, `table`, `lines` and
`symmetry` are the game's own arrays for the tier and group (as the playout kernels' are,
`search.playouts`): an int64 vector, an int64 matrix, an int64 vector and a read-only int32
array of three dimensions.
"""

from numba import types
from numba.core.types import FunctionType

#: Symmetry tables as `games.symmetry` shares them: read-only, [symmetry, piece, byte].
SYMMETRY = types.Array(types.int32, 3, "C", readonly=True)
EXPAND = types.void(types.int64[::1], types.int64[:, ::1], types.int64[::1], SYMMETRY, types.int64, types.int64,
                    types.int64[::1], types.int8[::1], types.int64[:, ::1])
#: The kernel as an argument of the kernels that call it.
EXPAND_FN = FunctionType(EXPAND)
