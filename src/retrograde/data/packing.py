"""2-bit packing of outcome codes: position i lives in byte i // 4, bits 2*(i % 4).

Packed outcomes are only read and written through these helpers (numpy only, so
that readers need no numba).
"""

import numpy as np

PER_BYTE = 4


def packed_length(n: int) -> int:
    """Bytes needed for n outcomes."""
    return -(-n // PER_BYTE)


def pack(outcome: np.ndarray) -> np.ndarray:
    """Pack an array of outcome codes (0..3) into bytes, 4 codes a byte."""
    codes = np.zeros(packed_length(outcome.size) * PER_BYTE, dtype=np.uint8)
    codes[: outcome.size] = outcome
    codes = codes.reshape(-1, PER_BYTE)
    return (codes[:, 0] | codes[:, 1] << 2 | codes[:, 2] << 4 | codes[:, 3] << 6).astype(np.uint8)


def unpack(packed: np.ndarray, n: int) -> np.ndarray:
    """Inverse of `pack`: the first n outcome codes as uint8."""
    packed = np.asarray(packed, dtype=np.uint8)
    shifts = np.array([0, 2, 4, 6], dtype=np.uint8)
    return ((packed[:, None] >> shifts) & 3).reshape(-1)[:n]


def unpack_at(packed: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Codes at positions `offsets`, given the packed bytes covering them (byte = offset // 4)."""
    return (packed >> (2 * (np.asarray(offsets) % PER_BYTE)).astype(np.uint8)) & 3
