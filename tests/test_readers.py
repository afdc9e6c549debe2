"""Readers during a solve: while `solve` writes a store, readers (the store API that probe,
status, agents and validate use, and the CLI's status and probe) see the tiers and chunks
recorded so far, with exactly their final values, and never a half-written chunk or an error."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np

from processes import kill_group, start
from retrograde.data.store import SOLVED, Store
from retrograde.errors import StoreError

#: A loop-free game with many small chunks (as in test_resume) and a game with cycles.
GAMES = [
    ("nim", {"heaps": [1, 3, 5, 7, 9], "max_take": 4}, 64, ["nim", "--heaps", "1,3,5,7,9", "--max-take", "4"]),
    ("quixo", {"size": 3}, 256, ["quixo", "--size", "3"]),
]


def _check_what_is_recorded(path, reference, seen: set) -> tuple[int, int]:
    """Compare each recorded chunk and solved tier not `seen` before with the reference store;
    (solved tiers, all tiers)."""
    with Store.open(path) as store:
        solved = 0
        for tier in store.plan.tiers:
            record = store.record(tier.name)
            for chunk, done in enumerate(record.chunks):
                if done is None or (tier.name, chunk) in seen:
                    continue
                got = store.read_chunk_raw(tier.name, chunk)
                want = reference.read_chunk_raw(tier.name, chunk)
                assert all(np.array_equal(a, b) for a, b in zip(got, want)), (tier.name, chunk)
                assert done == reference.record(tier.name).chunks[chunk], (tier.name, chunk)
                seen.add((tier.name, chunk))
            if record.status == SOLVED:
                solved += 1
                if tier.name not in seen:
                    assert all(np.array_equal(a, b) for a, b in zip(store.read_tier(tier.name),
                                                                    reference.read_tier(tier.name))), tier.name
                    seen.add(tier.name)
        return solved, len(store.plan.tiers)


def test_readers_see_only_finished_work_while_a_solve_writes(tmp_path, solved):
    for name, params, chunk_size, options in GAMES:
        reference_path = solved(name, params, chunk_size=chunk_size)
        path = tmp_path / f"{name}.zarr"
        args = ["solve", *options, "--chunk-size", str(chunk_size), "--store", str(path), "--workers", "0",
                "--quiet"]
        midway = cli_reads = 0
        seen: set = set()
        with open(tmp_path / f"{name}.out", "wb") as out, open(tmp_path / f"{name}.err", "wb") as err, \
                Store.open(reference_path) as reference:
            solve = start(args, stdout=out, stderr=err)
            try:
                while solve.poll() is None:
                    try:
                        done, total = _check_what_is_recorded(path, reference, seen)
                    except StoreError as exc:
                        assert not path.exists() or "no store" in str(exc), exc  # not created yet
                        continue
                    midway += 0 < done < total
                    if midway and not cli_reads:  # the CLI's readers too, once, mid-solve
                        status = subprocess.run([sys.executable, "-m", "retrograde", "status", "--store", str(path),
                                                 "--json"], capture_output=True, text=True, timeout=120)
                        assert status.returncode == 0, status.stderr
                        # Work only grows, so what status saw lies between our reads before and after it
                        # (the solve may well finish while status starts up).
                        report = json.loads(status.stdout)
                        solved_then = sum(t["status"] == SOLVED for t in report["tiers"])
                        after, _ = _check_what_is_recorded(path, reference, seen)
                        assert done <= solved_then <= after, (done, solved_then, after)
                        assert report["complete"] == (solved_then == total), report
                        cli_reads += 1
                    time.sleep(0.01)
                assert solve.wait() == 0, (tmp_path / f"{name}.err").read_text()
            finally:
                kill_group(solve)
        assert midway, f"{name}: the readers never saw a solve midway"
        assert _check_what_is_recorded(path, reference, seen)[0] == len(reference.plan.tiers)
