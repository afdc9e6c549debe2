"""`retrograde run seeds` from an empty folder (issue 24): the wall time of the whole run, its
verdicts, and the three slowest rows (each row's seconds from the run's timings.json; a row that
first needs a store includes its solve).

    python benchmarks/bench_seeds.py                  # every report's rows
    python benchmarks/bench_seeds.py --only 000       # one report's
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from common import measure, print_options, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None, help="one course report's rows (its number)")
    parser.add_argument("--workers", type=int, default=None, help="run --workers (default: as run picks)")
    options = parser.parse_args()
    print_options(options)
    with tempfile.TemporaryDirectory(prefix="retrograde-seeds-") as tmp:
        args = ["run", "seeds", "--out", tmp, "--quiet"]
        args += ["--only", options.only] if options.only else []
        args += ["--workers", str(options.workers)] if options.workers is not None else []
        run = measure(args)
        folder = Path(tmp) / "seeds"
        document = json.loads((folder / "report.json").read_text())
        seconds = json.loads((folder / "timings.json").read_text())["rows_played_s"]
    slowest = sorted(seconds.items(), key=lambda item: -item[1])[:3]
    figures = {"wall s": round(run["wall"], 1), "peak RSS MB": round(run["peak_rss"] / 2**20),
               "rows": len(document["rows"]), "verdicts": document["summary"]}
    figures.update({f"slowest {rank}": f"{name} ({time:.1f} s)" for rank, (name, time) in enumerate(slowest, 1)})
    report("run seeds" + (f" --only {options.only}" if options.only else ""), figures)


if __name__ == "__main__":
    main()
