"""Integrity (issue 11): flip one bit at a time at seeded random places of a solved store and
count what `retrograde verify` reports.

    python benchmarks/bench_integrity.py                       # 3x3 Quixo, 100 flips
    python benchmarks/bench_integrity.py --flips 300 --seed 2

Each flip lands in a random file of the store (documents `zarr.json` and chunk files alike),
`verify --workers 0` runs on the damaged store, then the byte is put back. A flip counts as
detected when verify exits 1 (one line on stderr when the store cannot be opened at all).
Chunk flips that leave the decoded arrays unchanged (a codec header field the decoder
ignores), which only the chunk's stored digest can catch, are counted apart. Any traceback
is counted too.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import zarr
from common import print_options, report


def decoded(store: Path) -> list:
    arrays = []
    for array in sorted(store.glob("tiers/*/*/zarr.json")):
        try:
            arrays.append(np.asarray(zarr.open_array(array.parent, mode="r")[:]).tobytes())
        except Exception:  # noqa: BLE001 - undecodable is a value here
            arrays.append(None)
    return arrays


def verify(store: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "retrograde", "verify", "--store", str(store), "--workers", "0",
                           "--quiet"], capture_output=True, text=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flips", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    print_options(options, workers="0 (solve and every verify in-process)")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "q3.zarr"
        subprocess.run([sys.executable, "-m", "retrograde", "solve", "quixo", "--size", "3", "--store", str(store),
                        "--workers", "0", "--quiet"], check=True, capture_output=True)
        assert verify(store).returncode == 0
        original = decoded(store)
        files = sorted(p for p in store.rglob("*") if p.is_file())
        rng = random.Random(options.seed)
        counts = {"document flips": 0, "document flips detected": 0, "chunk flips": 0,
                  "chunk flips detected": 0, "chunk flips leaving the decoded data intact": 0,
                  "chunk flips leaving the decoded data intact, detected": 0, "tracebacks": 0}
        for _ in range(options.flips):
            path = rng.choice(files)
            data = bytearray(path.read_bytes())
            at, bit = rng.randrange(len(data)), 1 << rng.randrange(8)
            data[at] ^= bit
            path.write_bytes(bytes(data))
            result = verify(store)
            kind = "document" if path.name == "zarr.json" else "chunk"
            counts[f"{kind} flips"] += 1
            counts["tracebacks"] += "Traceback" in result.stdout + result.stderr
            detected = result.returncode == 1
            counts[f"{kind} flips detected"] += detected
            if kind == "chunk" and decoded(store) == original:
                counts["chunk flips leaving the decoded data intact"] += 1
                counts["chunk flips leaving the decoded data intact, detected"] += detected
            data[at] ^= bit
            path.write_bytes(bytes(data))
    report("integrity: single-bit flips in a solved 3x3 Quixo store",
           {"flips": options.flips, "seed": options.seed, "files in the store": len(files), **counts})


if __name__ == "__main__":
    main()
