"""The bulk encoder and decoder of the "one-ply" encoding (`data.encoding`), in numba: a whole
chunk in one pass, with no unpacked copy of the codes. Every solve task writes its chunks with
`encode_packed` and reads its child tiers with `decode_packed`; `encoding.encode` and
`encoding.decode` are the numpy versions (verify's and a probe's) and the references these
kernels are tested against."""

import numpy as np

from retrograde.data.encoding import _OUTCOME, _REMOTENESS
from retrograde.games.base import STORED
from retrograde.jit import njit
from retrograde.outcome import DRAW


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


@njit
def encode_packed(outcome, remoteness, packed_out, s_out):
    """packed_out (zeroed by the caller), s_out = the encoding of a chunk's outcome codes (one a
    byte) and remoteness; returns the half flag (see `encoding.encode`)."""
    half = True
    for i in range(outcome.size):  # a stored win's r odd, a stored loss's even
        if outcome[i] & 1 and remoteness[i] >= 2 and (remoteness[i] & 1) != (outcome[i] >> 1):
            half = False
            break
    code = 0
    s = 0
    for i in range(outcome.size):
        if outcome[i] == DRAW:
            code, s = DRAW, 0
        elif outcome[i] & 1 and remoteness[i] >= 2:
            code = outcome[i]
            s = (np.int64(remoteness[i]) - 2 - (code >> 1)) >> 1 if half else np.int64(remoteness[i])
        packed_out[i >> 2] |= code << (2 * (i & 3))
        s_out[i] = s
    return half
