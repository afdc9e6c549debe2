"""A tier array's chunk files, encoded and decoded here as zarr does it, without zarr's event loop.

The codecs are those the array's document names (`ArrayV3Metadata.codecs`: the bytes codec,
then zstd or blosc), applied as zarr applies them: an edge chunk is padded with the fill value
to the full chunk length, and a chunk holding only the fill value has no file. So the files are
byte for byte the ones zarr writes, and any zarr reader reads them (tests/test_chunk_files.py
writes with zarr and compares). Going through zarr cost every chunk read or write a round trip
through its event-loop thread and a worker thread for the codec: a quarter of an in-process 4x4
Quixo solve.
"""

from __future__ import annotations

import numcodecs
import numpy as np
from zarr.core.metadata import ArrayV3Metadata

#: numcodecs' Blosc shuffle numbers by zarr's names.
SHUFFLE = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}


class ChunkCodec:
    """Encodes one array's chunks to the bytes of their files, and back."""

    def __init__(self, metadata: ArrayV3Metadata):
        (self.length,) = metadata.chunk_grid.chunk_shape
        self.fill = metadata.fill_value
        bytes_codec, *compressors = [codec.to_dict() for codec in metadata.codecs]
        if bytes_codec["name"] != "bytes":
            raise ValueError(f"chunks encoded by {bytes_codec['name']!r} first: only the bytes codec is read here")
        endian = bytes_codec.get("configuration", {}).get("endian", "little")
        self.dtype = metadata.data_type.to_native_dtype().newbyteorder("<" if endian == "little" else ">")
        self._compressors = [_numcodec(config) for config in compressors]

    def encode(self, values: np.ndarray) -> bytes | None:
        """The file of a chunk holding `values` (at most the chunk length); None: only the fill
        value, no file."""
        if values.size < self.length:
            values = np.concatenate([values, np.full(self.length - values.size, self.fill, dtype=values.dtype)])
        if not np.any(values != self.fill):
            return None
        data: bytes = np.ascontiguousarray(values, dtype=self.dtype).tobytes()
        for codec in self._compressors:
            data = bytes(codec.encode(data))
        return data

    def decode(self, data: bytes | None, n: int) -> np.ndarray:
        """The first `n` values of a chunk stored as `data` (None: no file, the fill value)."""
        if data is None:
            return np.full(n, self.fill, dtype=self.dtype.newbyteorder("="))
        for codec in reversed(self._compressors):
            data = codec.decode(data)
        values = np.frombuffer(data, dtype=self.dtype)
        if values.size != self.length:
            raise ValueError(f"a chunk decodes to {values.size} values, not {self.length}")
        return values[:n].astype(self.dtype.newbyteorder("="))


def _numcodec(config: dict) -> numcodecs.abc.Codec:
    """The numcodecs codec zarr runs for a zstd or blosc codec of this configuration."""
    options = dict(config.get("configuration", {}))
    if config["name"] == "zstd":
        return numcodecs.Zstd(**options)
    if config["name"] == "blosc":
        options["shuffle"] = SHUFFLE[options["shuffle"]]
        return numcodecs.Blosc(**options)
    raise ValueError(f"chunks compressed by {config['name']!r}: only zstd and blosc are read here")
