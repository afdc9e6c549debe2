"""Bytes of a store's chunk data under value encodings x codecs, chunked as the plan chunks it.

    /work/venv/bin/python compress.py FEATURES.npz [VARIANT ...]

Encodings of the representatives' values (holes stay 0 everywhere):
  cur      : today's arrays (2-bit outcome, remoteness as is).
  dc0      : terminal positions and those one ply decides (win in 1, loss in 1) are don't-cares,
             stored as 0 (outcome and remoteness), like holes.
  dc0h     : dc0, and the remaining remoteness stored halved: s = (r - 2) >> 1 (loss r = 2s + 2,
             win r = 2s + 3; parity follows the outcome once those in 1 are gone).
  dc0hL    : dc0h, and a loss's remoteness not stored (0): 1 + max over its children (all wins).
  dcFh     : as dc0h but don't-cares copy the previous stored index's outcome/remoteness (fill).
  dcFHh    : dc0h, and every index not stored (holes too) copies the last stored index's values.
  lite     : outcome exact (holes 0); remoteness r >> 1 everywhere. liteH: holes copy the last position.
Codecs: outcome (packed bytes) zstd-L / lzma-P; remoteness as uint16 blosc-zstd byte shuffle
(today), uint8 zstd-L, uint8 lzma, blosc bitshuffle.
"""
import lzma
import os
import sys
import time

import numcodecs
import numpy as np

f = np.load(sys.argv[1])
code, rem, kind, win1 = f["code"], f["rem"].astype(np.int32), f["kind"], f["win1"]
derived = f["derived"]
offsets, sizes, chunk_sizes = f["offsets"], f["sizes"], f["chunk_sizes"]
reps = kind > 0
nt = kind == 2
loss1 = nt & (code == 1) & (rem == 1)
oneply = (kind == 1) | (nt & win1) | loss1
print(f"don't-cares: {oneply.sum():,} of {reps.sum():,} representatives")


def pack(codes):
    c = np.zeros(-(-codes.size // 4) * 4, np.uint8)
    c[:codes.size] = codes
    c = c.reshape(-1, 4)
    return (c[:, 0] | c[:, 1] << 2 | c[:, 2] << 4 | c[:, 3] << 6).astype(np.uint8)


def ffill(values, keep):
    """Each index outside `keep` (among representatives and don't-cares) takes the last kept value."""
    idx = np.where(keep, np.arange(values.size), 0)
    np.maximum.accumulate(idx, out=idx)
    return values[idx]


def encoding(name):
    o, r = code.copy(), rem.copy()
    if name == "cur":
        return o, r
    if name.startswith("lite"):  # outcome exact; remoteness r >> 1 for every position (decoded with
        r = r >> 1              # the outcome, a terminal check and "a non-terminal loss is 1 or even")
        if name.endswith("H"):  # holes copy the last position's outcome and half remoteness
            o, r = ffill(o, reps), ffill(r, reps)
        return o, r
    o[oneply] = 0
    r[oneply] = 0
    stored = reps & ~oneply
    if "h" in name[2:]:
        r = np.where(stored & (code != 2), (rem - 2) >> 1, 0)
        assert (r >= 0).all()
    if name.endswith("L"):
        r[code == 1] = 0
    if name.startswith("dcF"):
        keep = stored
        fill = oneply  # only don't-cares take the previous stored value; holes stay 0
        if name.startswith("dcFH"):  # holes too (outcome): every index not stored copies the last stored
            fill = ~stored
        o = np.where(fill, ffill(o, keep), o)
        r = np.where(fill, ffill(r, keep), r)
    return o, r


def codecs():
    out = {
        "o:zstd5": numcodecs.Zstd(level=5), "o:zstd19": numcodecs.Zstd(level=19), "o:zstd22": numcodecs.Zstd(level=22),
        "o:lzma9e": numcodecs.LZMA(preset=9 | lzma.PRESET_EXTREME),
        "r16:blosc-zstd4-shuffle": numcodecs.Blosc("zstd", 4, numcodecs.Blosc.SHUFFLE, 1 << 20, typesize=2),
        "r16:blosc-zstd9-shuffle": numcodecs.Blosc("zstd", 9, numcodecs.Blosc.SHUFFLE, 1 << 20, typesize=2),
        "r16:blosc-zstd9-bitshuffle": numcodecs.Blosc("zstd", 9, numcodecs.Blosc.BITSHUFFLE, 1 << 20, typesize=2),
        "r8:zstd5": numcodecs.Zstd(level=5), "r8:zstd19": numcodecs.Zstd(level=19), "r8:zstd22": numcodecs.Zstd(level=22),
        "r8:lzma9e": numcodecs.LZMA(preset=9 | lzma.PRESET_EXTREME),
        "r8:blosc-zstd9-bitshuffle": numcodecs.Blosc("zstd", 9, numcodecs.Blosc.BITSHUFFLE, 1 << 20, typesize=1),
    }
    return out


def measure(name, selected):
    o, r = encoding(name)
    totals = {}
    for off, size, cs in zip(offsets, sizes, chunk_sizes):
        for start in range(0, size, cs):
            stop = min(start + cs, size)
            oc = o[off + start:off + stop]
            rc = r[off + start:off + stop]
            pad = cs - (stop - start)
            if pad:
                oc = np.concatenate([oc, np.zeros(pad, oc.dtype)])
                rc = np.concatenate([rc, np.zeros(pad, rc.dtype)])
            packed = pack(oc)
            for label, codec in selected.items():
                kind_, _ = label.split(":")
                if kind_ == "o":
                    data = packed
                elif kind_ == "r16":
                    data = rc.astype("<u2")
                else:
                    assert rc.max() < 256
                    data = rc.astype(np.uint8)
                # zarr writes no file for an all-fill chunk
                totals[label] = totals.get(label, 0) + (0 if not data.any() else len(codec.encode(data.tobytes())))
    return totals


if __name__ == "__main__":
    variants = sys.argv[2:] or ["cur", "dc0", "dc0h", "dc0hL", "dcFh"]
    allc = codecs()
    if os.environ.get("CODECS"):  # a comma-separated choice of codec labels
        allc = {k: allc[k] for k in os.environ["CODECS"].split(",")}
    for name in variants:
        fast = allc if os.environ.get("CODECS") or name in ("dc0h", "dc0hL", "cur") else {
            k: v for k, v in allc.items() if "lzma" not in k and "22" not in k}
        t0 = time.time()
        totals = measure(name, fast)
        print(f"== {name} ({time.time() - t0:.0f} s)")
        for label, nbytes in totals.items():
            print(f"   {label:30s} {nbytes:>12,}")
        sys.stdout.flush()
