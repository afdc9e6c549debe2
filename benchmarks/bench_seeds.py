"""`retrograde run seeds` (issue 24): the wall time of a whole run, its verdicts, the trainings it
ran (each training's seconds, side by side on the workers) and the three slowest rows (each row's
seconds from the run's timings.json; a row that first needs a store includes its solve).

    python benchmarks/bench_seeds.py                          # a first run, from an empty folder
    python benchmarks/bench_seeds.py --out DIR                # run in DIR (kept): what is done stays done
    python benchmarks/bench_seeds.py --out DIR --replay       # every row again, the trained artifacts kept
    python benchmarks/bench_seeds.py --only 000               # one report's rows
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from common import measure, print_options, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None, help="one course report's rows (its number)")
    parser.add_argument("--workers", type=int, default=None, help="run --workers (default: as run picks)")
    parser.add_argument("--out", type=Path, default=None, help="the run's folder, kept (default: a temporary one)")
    parser.add_argument("--replay", action="store_true", help="delete DIR/seeds/rows first: play every row again")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory(prefix="retrograde-seeds-") as tmp:
        out = options.out or Path(tmp)
        folder = out / "seeds"
        if options.replay:
            shutil.rmtree(folder / "rows", ignore_errors=True)
        args = ["run", "seeds", "--out", str(out), "--quiet"]
        args += ["--only", options.only] if options.only else []
        args += ["--workers", str(options.workers)] if options.workers is not None else []
        run = measure(args)
        document = json.loads((folder / "report.json").read_text())
        timings = json.loads((folder / "timings.json").read_text())
    slowest = sorted(timings["rows_played_s"].items(), key=lambda item: -item[1])[:3]
    figures = {"wall s": round(run["wall"], 1), "peak RSS MB": round(run["peak_rss"] / 2**20),
               "rows": len(document["rows"]), "verdicts": document["summary"],
               "rows played": len(timings["rows_played_s"]),
               "rows played s (sum)": round(sum(timings["rows_played_s"].values()), 1)}
    figures.update({f"trained: {name}": f"{seconds:.1f} s" for name, seconds in timings["artifacts_trained_s"].items()})
    figures.update({f"slowest row {rank}": f"{name} ({time:.1f} s)" for rank, (name, time) in enumerate(slowest, 1)})
    report("run seeds" + (f" --only {options.only}" if options.only else "") + (" (replay)" if options.replay else ""),
           figures)


if __name__ == "__main__":
    main()
