"""Which codecs does plain zarr-python 3.1 open and decode? Writes one array per codec chain with
zarr (in a child process), then opens and decodes every chunk in a fresh process that imports
only zarr and numpy (no retrograde, no explicit numcodecs import).

    /work/venv/bin/python zarr_codecs_check.py FOLDER
"""
import subprocess
import sys
import textwrap

folder = sys.argv[1]
write = textwrap.dedent(f"""
    import warnings, numpy as np, zarr, lzma
    from zarr.codecs import BloscCodec, ZstdCodec, GzipCodec, Crc32cCodec, TransposeCodec, ShardingCodec, BytesCodec
    from zarr.codecs.numcodecs import LZMA, Shuffle, Delta, PackBits, BZ2, Zstd as NZstd
    warnings.simplefilter("always")
    rng = np.random.default_rng(0)
    values = (rng.integers(0, 4, 1 << 16)).astype("uint8")
    chains = {{
        "zstd22": dict(compressors=[ZstdCodec(level=22)]),
        "blosc_zstd9_bitshuffle": dict(compressors=[BloscCodec(cname="zstd", clevel=9, shuffle="bitshuffle", typesize=1)]),
        "gzip9_crc32c": dict(compressors=[GzipCodec(level=9), Crc32cCodec()]),
        "numcodecs_lzma9e": dict(compressors=[LZMA(preset=9 | lzma.PRESET_EXTREME)]),
        "numcodecs_shuffle_lzma": dict(compressors=[Shuffle(elementsize=1), LZMA(preset=9)]),
        "numcodecs_bz2": dict(compressors=[BZ2(level=9)]),
        "numcodecs_delta_zstd": dict(filters=[Delta(dtype="uint8")], compressors=[ZstdCodec(level=19)]),
        "sharded_zstd": dict(shards=(1 << 15,), compressors=[ZstdCodec(level=19)]),
    }}
    for name, options in chains.items():
        with warnings.catch_warnings(record=True) as caught:
            array = zarr.create_array("{folder}/" + name, shape=values.shape, chunks=(1 << 13,), dtype="uint8",
                                      fill_value=0, **options)
            array[:] = values
        print("wrote", name, "; warnings:", sorted({{str(w.message)[:90] for w in caught}}) or "none")
""")
read = textwrap.dedent(f"""
    import sys, numpy as np, zarr
    assert "retrograde" not in sys.modules
    rng = np.random.default_rng(0)
    values = (rng.integers(0, 4, 1 << 16)).astype("uint8")
    import os
    for name in sorted(os.listdir("{folder}")):
        array = zarr.open_array("{folder}/" + name, mode="r")
        ok = np.array_equal(array[:], values)
        print("read", name, [c["name"] for c in array.metadata.to_dict()["codecs"]], "equal:", ok)
""")
for script in (write, read):
    subprocess.run([sys.executable, "-c", script], check=True)
