"""Chunk files are written and read without zarr (`data.chunks`), and must be byte for byte the
files zarr writes for the same values, and decode to what zarr reads. zarr is the reference:
each array here is made and filled by zarr itself."""

from __future__ import annotations

import numpy as np
import pytest
import zarr
from zarr.codecs import BloscCodec, ZstdCodec

from retrograde.data.chunks import ChunkCodec
from retrograde.data.store import Store
from retrograde.errors import StoreError

#: The codecs a store's arrays use (docs/STORE.md): zstd for packed outcomes, byte-shuffled
#: blosc-zstd for remoteness, with the typesize of the dtype.
CASES = [
    ("uint8", ZstdCodec(level=15)),
    ("uint8", BloscCodec(cname="zstd", clevel=8, shuffle="shuffle", typesize=1, blocksize=1 << 20)),
    ("uint16", BloscCodec(cname="zstd", clevel=8, shuffle="shuffle", typesize=2, blocksize=1 << 20)),
    ("uint32", BloscCodec(cname="zstd", clevel=8, shuffle="shuffle", typesize=4, blocksize=1 << 20)),
]


def _chunks(dtype: str, length: int, seed: int) -> list[np.ndarray]:
    """Chunk contents: random, runs (as remoteness is), all zero, one nonzero value, an edge chunk."""
    rng = np.random.default_rng(seed)
    top = np.iinfo(dtype).max
    return [rng.integers(0, top, length, dtype=dtype, endpoint=True),
            np.repeat(rng.integers(0, 40, length // 64 + 1, dtype=dtype), 64)[:length],
            np.zeros(length, dtype=dtype),
            np.where(np.arange(length) == length - 1, top, 0).astype(dtype),
            rng.integers(0, 3, length // 3, dtype=dtype)]


@pytest.mark.parametrize("dtype,codec", CASES, ids=[f"{dtype}-{codec.to_dict()['name']}" for dtype, codec in CASES])
@pytest.mark.parametrize("length", [4096, 1 << 20])
def test_chunk_files_are_the_bytes_zarr_writes_and_read_as_zarr_reads(tmp_path, dtype, codec, length):
    chunks = _chunks(dtype, length, seed=length)
    size = length * (len(chunks) - 1) + chunks[-1].size
    array = zarr.create_array(str(tmp_path / "a.zarr"), shape=(size,), chunks=(length,), dtype=dtype,
                              fill_value=0, compressors=(codec,))
    ours = ChunkCodec(array.metadata)
    for i, values in enumerate(chunks):
        array[i * length: i * length + values.size] = values
        path = tmp_path / "a.zarr" / "c" / str(i)
        written = path.read_bytes() if path.exists() else None
        assert ours.encode(values) == written, f"chunk {i}"
        decoded = ours.decode(written, values.size)
        assert decoded.dtype == np.dtype(dtype) and np.array_equal(decoded, values), f"chunk {i}"
        assert np.array_equal(decoded, array[i * length: i * length + values.size]), f"chunk {i}"


def test_a_damaged_chunk_file_does_not_decode(tmp_path):
    array = zarr.create_array(str(tmp_path / "a.zarr"), shape=(4096,), chunks=(4096,), dtype="uint16",
                              fill_value=0, compressors=CASES[2][1])
    ours = ChunkCodec(array.metadata)
    data = ours.encode(np.arange(4096, dtype=np.uint16))
    with pytest.raises(Exception):
        ours.decode(data[: len(data) // 2], 4096)


def test_a_solved_store_reads_the_same_through_zarr_and_through_the_store(solved):
    """Every chunk the store wrote reads back through plain zarr as the store reads it (the arrays
    as stored: a 3x3 Quixo store holds the one-ply encoding, its half flags included)."""
    path = solved("quixo", {"size": 3}, chunk_size=256)
    root = zarr.open_group(str(path), mode="r")
    with Store.open(path) as store:
        assert store.arrays == ("outcome", "remoteness", "half")
        for tier in store.plan.tiers:
            packed, remoteness = root[f"tiers/{tier.name}/outcome"][:], root[f"tiers/{tier.name}/remoteness"][:]
            half = root[f"tiers/{tier.name}/half"][:]
            chunking = store.plan.chunking(tier.name)
            for chunk in range(chunking.count):
                start, stop = chunking.bounds(chunk)
                ours = store.read_chunk_stored(tier.name, chunk)
                assert np.array_equal(ours[0], packed[start // 4: -(-stop // 4)]), (tier.name, chunk)
                assert np.array_equal(ours[1], remoteness[start:stop]), (tier.name, chunk)
                assert np.array_equal(ours[2], half[chunk:chunk + 1]), (tier.name, chunk)


def test_a_store_opened_read_only_writes_no_chunk_and_no_record(solved):
    path = solved("quixo", {"size": 3}, chunk_size=256)
    before = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
    with Store.open(path) as store:
        tier = store.plan.tiers[0]
        outcome, remoteness = store.read_tier(tier.name)
        with pytest.raises(StoreError, match="read-only"):
            store.write_chunk(tier.name, 0, outcome[:256], remoteness[:256])
        with pytest.raises(StoreError, match="read-only"):
            store.record_chunks(tier.name, [])
    assert {p: p.read_bytes() for p in path.rglob("*") if p.is_file()} == before
