"""The bulk decoder of the "one-ply" encoding (`data.encoding`), in numba: a whole chunk's
packed outcome and remoteness in one pass over its classes and stored arrays, with no unpacked
copy (what every solve task reads of its child tiers; `encoding.decode` is the numpy version
for a few indices, and the reference this kernel is tested against)."""

import numpy as np

from retrograde.data.encoding import _OUTCOME, _REMOTENESS
from retrograde.games.base import STORED
from retrograde.jit import njit


@njit
def decode_packed(classes, packed_codes, s, half, packed_out, remoteness_out):
    """packed_out (zeroed by the caller), remoteness_out = the values of a chunk stored as
    packed codes and s, given each index's one-ply class (see `encoding.decode`)."""
    for i in range(classes.size):
        kind = classes[i]
        if kind == STORED:
            code = (packed_codes[i >> 2] >> (2 * (i & 3))) & 3
            r = 0
            if code & 1:
                r = 2 * np.int64(s[i]) + 2 + (code >> 1) if half else np.int64(s[i])
        else:
            code = _OUTCOME[kind]
            r = _REMOTENESS[kind]
        packed_out[i >> 2] |= code << (2 * (i & 3))
        remoteness_out[i] = r
