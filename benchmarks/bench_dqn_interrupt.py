"""Ctrl-C at random moments of `retrograde train dqn` (issue 36, item 9 and point 3): each must
end with one line and exit status 130, never a crash, never lose a checkpoint, and a rerun must
resume and end with the bytes of an uninterrupted run.

    python benchmarks/bench_dqn_interrupt.py                  # 20 interrupts, seed 0
    python benchmarks/bench_dqn_interrupt.py --interrupts 40 --seed 7

An uninterrupted run is timed first (its wall time, start-up included, is the span the moments
are drawn from) and gives the reference artifact. Then runs of the same command into one
output (a chain) each get SIGINT after a delay drawn uniformly from that span (seeded): the
moment may fall in the interpreter's start, JAX's import, a compilation, an Adam step or a
checkpoint's write. A run that ends before its signal closes the chain: its artifact is
compared with the reference and the next chain starts afresh. After the last interrupt the
chain is rerun to its end and compared too; a run that ends (exit 0) as its signal comes is
counted apart and closes its chain likewise. The script prints counts: exit 130 with one line,
other exits, crashes (killed by a signal: -11 is SIGSEGV), checkpoints lost (the checkpoint
after the stop holds fewer episodes than the one on disk just before the signal, or cannot be
read), interrupts whose chain resumed to the reference's bytes, and each outcome that was not
exit 130 with its stderr.
"""

from __future__ import annotations

import argparse
import json
import signal
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np

from common import kill_group, print_options, processes, report


def checkpoint_done(partial: Path) -> int | None:
    """Episodes the checkpoint in `partial` holds (0: none there; None: there but unreadable)."""
    checkpoint = partial / "checkpoint.npz"
    if not checkpoint.exists():
        return 0
    try:
        with np.load(checkpoint, allow_pickle=False) as data:
            return int(json.loads(str(data["metadata"]))["done"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None


def one_run(args: list[str], folder: Path, name: str, delay: float | None, timeout: float) -> dict:
    """Run the command once (SIGINT after `delay` seconds unless None); what happened."""
    out, err = folder / f"{name}.out", folder / f"{name}.err"
    partial = Path(args[args.index("--out") + 1] + ".partial")
    with open(out, "wb") as stdout, open(err, "wb") as stderr:  # the default Ctrl-C handling, whoever started us
        proc = processes.start(args, stdout=stdout, stderr=stderr)
    try:
        before = None
        if delay is not None:
            try:
                proc.wait(timeout=delay)
            except Exception:  # subprocess.TimeoutExpired: still running, as intended
                before = checkpoint_done(partial)
                proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=timeout)
    finally:
        kill_group(proc)
    stderr = err.read_text(errors="replace")
    return {"code": code, "signalled": before is not None, "before": before, "after": checkpoint_done(partial),
            "lines": [line for line in stderr.splitlines() if line.strip()], "stderr": stderr}


def outcome(result: dict) -> str:
    """How an interrupted run ended, as the counts name it."""
    code, lines = result["code"], result["lines"]
    if code < 0:
        return f"crash ({signal.Signals(-code).name})"
    if code == 130 and len(lines) == 1 and lines[0].startswith("retrograde: error: interrupted") \
            and "Traceback" not in result["stderr"]:
        return "exit 130 with one line"
    return f"other exit ({code}, {len(lines)} lines)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interrupts", type=int, default=20, help="SIGINTs sent (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the moments (default 0)")
    parser.add_argument("--learner", default="dqn:episodes=600,every=20,hidden=32,memory=500,batch=32,"
                                             "opponents=random", help="the learner spec trained")
    parser.add_argument("--game", default="tictactoe", help="the game (default tictactoe)")
    parser.add_argument("--folder", type=Path, default=None, help="where the runs write (default: TMPDIR)")
    options = parser.parse_args()
    print_options(options)
    rng = np.random.default_rng(options.seed)
    counts: Counter[str] = Counter()
    odd: list[str] = []
    with tempfile.TemporaryDirectory(dir=options.folder) as scratch:
        base = Path(scratch)

        def command(out: Path) -> list[str]:
            return ["train", options.learner, "--game", options.game, "--out", str(out), "--seed", "1", "--quiet"]

        began = time.perf_counter()
        reference = one_run(command(base / "reference.npz"), base, "reference", None, 600)
        span = time.perf_counter() - began
        if reference["code"] != 0:
            raise SystemExit(f"the uninterrupted run failed: {reference['stderr']}")
        expected = (base / "reference.npz").read_bytes()
        print(f"  uninterrupted run: {span:.1f} s", flush=True)
        chain, pending, sent, runs = 0, 0, 0, 0

        def close_chain(out: Path, interrupts: int) -> None:
            same = out.read_bytes() == expected and not out.with_name(out.name + ".partial").exists()
            counts["resumed to the reference's bytes" if same else "resumed to other bytes"] += interrupts

        out = base / "chain0" / "q.npz"
        out.parent.mkdir()
        while sent < options.interrupts:
            delay = float(rng.uniform(0, span))
            result = one_run(command(out), base, f"run{runs}", delay, 120)
            runs += 1
            if not result["signalled"] or result["code"] == 0:  # it ended first, or as its signal came
                if result["code"] != 0:
                    raise SystemExit(f"a run failed unsignalled: {result['stderr']}")
                counts["ended as its signal came (exit 0, not counted)"] += result["signalled"]
                close_chain(out, pending)
                chain, pending = chain + 1, 0
                out = base / f"chain{chain}" / "q.npz"
                out.parent.mkdir()
                continue
            sent += 1
            pending += 1
            kind = outcome(result)
            counts[kind] += 1
            before, after = result["before"], result["after"]
            lost = after is None or (before is not None and after < before)
            counts["checkpoints lost"] += lost
            line = (f"  interrupt {sent}: after {delay:.2f} s, {kind}; checkpoint {before} -> {after} episodes")
            print(line, flush=True)
            if kind != "exit 130 with one line" or lost:
                odd.append(f"{line}\n{result['stderr']}")
        final = one_run(command(out), base, f"run{runs}", None, 600)
        if final["code"] != 0:
            raise SystemExit(f"the last rerun failed: {final['stderr']}")
        close_chain(out, pending)
    for text in odd:
        print(text)
    figures = {"interrupts": sent, "chains": chain + 1, "uninterrupted run s": round(span, 2),
               **{key: counts[key] for key in ("exit 130 with one line", "checkpoints lost",
                                               "resumed to the reference's bytes")},
               **{key: value for key, value in sorted(counts.items())
                  if key.startswith(("crash", "other exit", "resumed to other", "ended as"))}}
    report("Ctrl-C during train dqn", figures)


if __name__ == "__main__":
    main()
