"""Encode and decode time of the candidate codecs over a store's chunks in the proposed encoding
(dcFHh of compress.py: one-ply decided positions and holes copy the last stored value, half
remoteness), and today's codecs on today's arrays. Process CPU seconds (blosc may use threads) summed over all chunks.

    /work/venv/bin/python codec_speed.py FEATURES.npz [sweep]
"""
import sys
import time

import numcodecs
import numpy as np

sweep = len(sys.argv) > 2
args, sys.argv = sys.argv, [sys.argv[0], sys.argv[1]]
import compress  # noqa: E402  (its module level loads the features; it runs no variant when imported)

CANDIDATES = {
    "cur": {"o:zstd5": numcodecs.Zstd(level=5),
            "r16:blosc-zstd4-shuffle": numcodecs.Blosc("zstd", 4, numcodecs.Blosc.SHUFFLE, 1 << 20, typesize=2)},
    "dcFHh": {"o:zstd5": numcodecs.Zstd(level=5), "o:zstd19": numcodecs.Zstd(level=19),
              "o:zstd22": numcodecs.Zstd(level=22),
              "r16:blosc-zstd4-shuffle": numcodecs.Blosc("zstd", 4, numcodecs.Blosc.SHUFFLE, 1 << 20, typesize=2),
              "r16:blosc-zstd9-shuffle": numcodecs.Blosc("zstd", 9, numcodecs.Blosc.SHUFFLE, 1 << 20, typesize=2),
              "r8:zstd19": numcodecs.Zstd(level=19)},
}
if sweep:  # a level sweep (a second argument: sweep) over the proposed encoding
    CANDIDATES = {"dcFHh": {f"o:zstd{level}": numcodecs.Zstd(level=level) for level in (9, 12, 15, 17)}}
    CANDIDATES["dcFHh"].update({f"r16:blosc-zstd{c}-shuffle": numcodecs.Blosc("zstd", c, numcodecs.Blosc.SHUFFLE,
                                                                             1 << 20, typesize=2) for c in (5, 6, 7, 8)})
    CANDIDATES["dcFHh"].update({f"r8:zstd{level}": numcodecs.Zstd(level=level) for level in (9, 12, 15, 17)})
for name, codecs in CANDIDATES.items():
    o, r = compress.encoding(name)
    enc, dec, size = {}, {}, {}
    for off, n, cs in zip(compress.offsets, compress.sizes, compress.chunk_sizes):
        for start in range(0, n, cs):
            stop = min(start + cs, n)
            oc = np.zeros(cs, np.uint8)
            oc[:stop - start] = o[off + start:off + stop]
            rc = np.zeros(cs, np.int32)
            rc[:stop - start] = r[off + start:off + stop]
            for label, codec in codecs.items():
                data = compress.pack(oc) if label.startswith("o:") else rc.astype("<u2" if label.startswith("r16") else np.uint8)
                if not data.any():
                    continue
                t = time.process_time()
                blob = codec.encode(data.tobytes())
                enc[label] = enc.get(label, 0) + time.process_time() - t
                t = time.process_time()
                codec.decode(blob)
                dec[label] = dec.get(label, 0) + time.process_time() - t
                size[label] = size.get(label, 0) + len(blob)
    for label in codecs:
        print(f"{name:6s} {label:26s} bytes {size[label]:>11,}  encode {enc[label]:7.2f} s  decode {dec[label]:6.2f} s")
