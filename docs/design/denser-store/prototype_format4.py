"""Prototype of the proposed store format end to end: convert a format-3 Quixo store into the
proposed arrays, written by zarr-python itself, then read them back with plain zarr, decode them
(one-ply kernel + half remoteness) and compare with the original values at every index.

    PYTHONPATH=/tmp/dense/repo/src:/tmp/dense/scripts /work/venv/bin/python prototype_format4.py STORE OUT [OLEVEL] [RCLEVEL]

Encoding, per chunk (chunk-local, so a chunk task can write its chunk alone):
  * a position is *stored* if it is a draw, or a win or loss with remoteness >= 2; a hole, a
    terminal position (remoteness 0) and one decided in one ply (remoteness 1) are not;
  * a stored win keeps s = (r - 3) / 2, a stored loss s = (r - 2) / 2 (the writer checks that a
    stored win's r is odd and a stored loss's even), a draw s = 0;
  * an index not stored copies the outcome code and s of the last stored index before it in the
    chunk (0 and 0 before the first one).
Arrays: outcome 2-bit packed uint8 (zstd OLEVEL, default 19), remoteness uint16 s (blosc zstd
RCLEVEL, default 9, byte shuffle, 1 MiB blocks), the same chunk grid as today.
Decoding: the one-ply kernel's class for each index; STORED: outcome from the array, r = 2s+3
(win) / 2s+2 (loss) / none (draw).
"""
import sys
import time
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BloscCodec, ZstdCodec

from one_ply_kernel_lib import (LOSS_IN_1, STORED, TERMINAL_LOSS, TERMINAL_WIN, WIN_IN_1,
                                one_ply)
from retrograde.data import packing
from retrograde.data.store import Store
from retrograde.games import symmetry

source, target = Store.open(sys.argv[1]), Path(sys.argv[2])
olevel = int(sys.argv[3]) if len(sys.argv) > 3 else 19
rclevel = int(sys.argv[4]) if len(sys.argv) > 4 else 9
plan, game = source.plan, source.game
WIN, LOSS, DRAW = 3, 1, 2


def encode(outcome, remoteness):
    """(codes, s) of one chunk in the proposed encoding (see module)."""
    r = remoteness.astype(np.int64)
    decided = (outcome == WIN) | (outcome == LOSS)
    stored = (outcome == DRAW) | (decided & (r >= 2))
    win, loss = stored & (outcome == WIN), stored & (outcome == LOSS)
    if np.any(win & (r % 2 == 0)) or np.any(loss & (r % 2 == 1)):
        raise ValueError("parity broken: this chunk needs the plain encoding")
    s = np.where(win, (r - 3) >> 1, np.where(loss, (r - 2) >> 1, 0))
    last = np.where(stored, np.arange(outcome.size), -1)
    np.maximum.accumulate(last, out=last)
    codes = np.where(last >= 0, outcome[np.maximum(last, 0)], 0).astype(np.uint8)
    s = np.where(last >= 0, s[np.maximum(last, 0)], 0).astype(np.uint16)
    return codes, s


def decode(classes, codes, s):
    outcome = np.zeros(classes.size, np.uint8)
    remoteness = np.zeros(classes.size, np.int64)
    outcome[classes == TERMINAL_WIN] = WIN
    outcome[classes == TERMINAL_LOSS] = LOSS
    outcome[classes == WIN_IN_1], remoteness[classes == WIN_IN_1] = WIN, 1
    outcome[classes == LOSS_IN_1], remoteness[classes == LOSS_IN_1] = LOSS, 1
    stored = classes == STORED
    outcome[stored] = codes[stored]
    remoteness[stored & (codes == WIN)] = 2 * s[stored & (codes == WIN)].astype(np.int64) + 3
    remoteness[stored & (codes == LOSS)] = 2 * s[stored & (codes == LOSS)].astype(np.int64) + 2
    return outcome, remoteness


root = zarr.open_group(target, mode="w")
t0 = time.time()
for tier in plan.tiers:
    chunking = plan.chunking(tier.name)
    group = root.create_group(f"tiers/{tier.name}")
    o_arr = group.create_array("outcome", shape=(packing.packed_length(tier.size),), chunks=(chunking.chunk_size // 4,),
                               dtype="uint8", fill_value=0, compressors=[ZstdCodec(level=olevel)])
    r_arr = group.create_array("remoteness", shape=(tier.size,), chunks=(chunking.chunk_size,), dtype="uint16",
                               fill_value=0, compressors=[BloscCodec(cname="zstd", clevel=rclevel, shuffle="shuffle",
                                                                     typesize=2, blocksize=1 << 20)])
    for chunk in range(chunking.count):
        start, stop = chunking.bounds(chunk)
        packed, remoteness = source.read_chunk_raw(tier.name, chunk)
        codes, s = encode(packing.unpack(packed, stop - start), remoteness)
        o_arr[start // 4:packing.packed_length(stop)] = packing.pack(codes)
        r_arr[start:stop] = s
print(f"written in {time.time() - t0:.0f} s")
nbytes = {a: sum(p.stat().st_size for p in target.glob(f"tiers/*/{a}/c/**/*") if p.is_file()) for a in ("outcome", "remoteness")}
print(f"chunk data: outcome {nbytes['outcome']:,} + remoteness {nbytes['remoteness']:,} = {sum(nbytes.values()):,} bytes")

# read back with plain zarr, decode, compare with the original at every index
reread = zarr.open_group(target, mode="r")
table = symmetry.tables(game.size)
out = np.empty(plan.chunk_size, np.uint8)
wrong = 0
for tier in plan.tiers:
    chunking = plan.chunking(tier.name)
    for chunk in range(chunking.count):
        start, stop = chunking.bounds(chunk)
        codes = packing.unpack(reread[f"tiers/{tier.name}/outcome"][start // 4:packing.packed_length(stop)], stop - start)
        s = reread[f"tiers/{tier.name}/remoteness"][start:stop]
        one_ply(game.size, game.move_table, game.line_masks, table, *tier.key, start, stop, out)
        outcome, remoteness = decode(out[:stop - start], codes, s)
        packed, original = source.read_chunk_raw(tier.name, chunk)
        original_outcome = packing.unpack(packed, stop - start)
        wrong += int(np.sum((outcome != original_outcome) | (remoteness != original)))
print(f"decoded with plain zarr + one-ply kernel: {wrong} indices differ from the original store")
