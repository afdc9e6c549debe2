"""The validation report as files: report.json (SPEC §7 and everything the plots show),
report.md (tables) and report.html (tables and plots, self-contained: PNGs inlined as base64,
no external resource), the same bytes for the same inputs and seed however often the command
runs (or is killed and rerun); and timings.json, the run's wall-clock figures, which differ
from run to run. Each is written to a temporary name and renamed into place."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from retrograde.data.durable import make_folder, sync_folder, write_partial
from retrograde.validation import plots, seeds


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _interval(ci: Sequence[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def quality_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = ["agent", "positions", "value kept", "win kept", "draw kept", "remoteness lost (won)",
            "loss shortfall", "win→draw", "win→loss", "draw→loss"]
    rows = []
    for spec, entry in report["agents"].items():
        q = entry["move_quality"]
        rows.append([spec, str(q["positions"]), _pct(q["value_kept"]), _pct(q["win_kept"]), _pct(q["draw_kept"]),
                     _num(q["mean_remoteness_lost"]), _num(q["mean_loss_shortfall"]), str(q["win_to_draw"]),
                     str(q["win_to_loss"]), str(q["draw_to_loss"])])
    return head, rows


def _blunder(figures: dict[str, Any]) -> str:
    if figures["rate"] is None:
        return "–"
    return f"{_pct(figures['rate'])} {_interval(figures['ci95'])} ({figures['count']})"


def blunder_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Placement and piece blunders (sampled Quarto validation), overall and by tier."""
    agents = {spec: entry["blunders"] for spec, entry in report["agents"].items() if "blunders" in entry}
    tiers = [t for t in report["tiers"] if any(t in b["by_tier"] for b in agents.values())]
    head = ["agent", "positions not lost", "placement blunders", "piece blunders",
            *(f"{t}: placement / piece" for t in tiers)]
    rows = [[spec, str(b["positions_at_risk"]), _blunder(b["placement"]), _blunder(b["piece"]),
             *(f"{_pct(b['by_tier'][t]['placement']['rate'])} / {_pct(b['by_tier'][t]['piece']['rate'])}"
               if t in b["by_tier"] else "–" for t in tiers)]
            for spec, b in agents.items()]
    return head, rows


def tournament_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = ["start", "first", "second", "games", "first wins", "draws", "second wins", "first win 95% CI",
            "capped", "mean plies"]
    rows = [[t["start"], t["first"], t["second"], str(t["games"]), str(t["first_wins"]), str(t["draws"]),
             str(t["second_wins"]), _interval(t["first_win_ci95"]), str(t["capped"]), _num(t["mean_plies"], 1)]
            for t in report["tournaments"]]
    return head, rows


def rating_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    entries = sorted(report["ratings"]["agents"].items(), key=lambda item: -item[1]["elo"])
    return ["agent", "rating", "95% interval"], [[name, f"{e['elo']:.0f}", f"[{e['ci95'][0]:.0f}, {e['ci95'][1]:.0f}]"]
                                                for name, e in entries]


def published_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The seeds' figures beside ours: the rows and verdicts `run seeds` gives (`validation.seeds`)."""
    return seeds.table(report["published"])


def training_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    curves = report["learning_curves"]
    rows = [[spec, how, " -> ".join(_pct(curves[spec][i]["value_kept"]) for i in (0, -1)) if spec in curves else "-"]
            for spec, how in report.get("training", {}).items()]
    return ["agent", "how it was trained", "value kept, first -> last measured"], rows


def tier_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    specs = list(report["agents"])
    tiers = [t for t in report["tiers"] if any(t in report["agents"][s]["by_tier"] for s in specs)]
    head = ["tier", "positions", *(f"{spec} value kept" for spec in specs)]
    rows = []
    for tier in tiers:
        first = next(report["agents"][s]["by_tier"][tier] for s in specs if tier in report["agents"][s]["by_tier"])
        rows.append([tier, str(first["positions"]),
                     *(_pct(report["agents"][s]["by_tier"].get(tier, {}).get("value_kept")) for s in specs)])
    return head, rows


def check_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    return ["check", "result", "detail"], [[c["name"], "passed" if c["ok"] else "FAILED", c["detail"]]
                                           for c in report["checks"]]


SECTIONS: tuple[tuple[str, Callable[[dict[str, Any]], tuple[list[str], list[list[str]]]]], ...] = (
    ("Consistency checks", check_table),
    ("Move quality", quality_table),
    ("Blunders: where the agent placed, or what it handed over", blunder_table),
    ("Tournaments", tournament_table),
    ("Ratings", rating_table),
    ("Training", training_table),
    ("Beside the seeds' published results", published_table),
    ("Value kept by tier", tier_table),
)
#: Sections left out when they have no rows (blunders: sampled Quarto validation only; training:
#: no agent names a training artifact).
OPTIONAL = {blunder_table, training_table}
#: The HTML page shows the plots before these sections.
AFTER_PLOTS = {published_table, tier_table}


def tables(report: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]], bool]]:
    """(title, head, rows, shown after the plots) of each section the report has."""
    result = []
    for title, table in SECTIONS:
        head, rows = table(report)
        if rows or table not in OPTIONAL:
            result.append((title, head, rows, table in AFTER_PLOTS))
    return result


def _sample_lines(report: dict[str, Any]) -> list[str]:
    """How the move-quality positions were chosen and valued."""
    sample = report["move_quality_sample"]
    if sample["kind"] == "sampled":
        tiers = ", ".join(f"{name} {n['positions']}/{n['asked']}" for name, n in sample["per_tier"].items())
        return [f"Move quality over {sample['positions']:,} distinct positions met in {sample['games']:,} seeded "
                f"games between the baselines {', '.join(sample['baselines'])} (every ordered pair in turn), in "
                f"the tiers (positions found / asked for) {tiers}; {report['tier_legend']}. Each position is solved "
                f"exactly: {sample['ruler']}.",
                "Blunders, over the positions not lost: a placement blunder places where no piece handed over "
                "keeps the value; a piece blunder places where one would, and hands over a piece that gives the "
                "value away. Intervals: 95% Wilson; counts in brackets."]
    how = ("every non-terminal position of the store" if sample["exhaustive"] else
           f"a seeded sample of {sample['positions']:,} of the store's {sample['non_terminal_positions']:,} "
           f"non-terminal positions, proportional per tier (at least {sample['min_per_tier']} a tier), "
           "each weighted by its tier's share")
    return [f"Move quality over {how}."]


TIMINGS = "timings.json"
SEARCH_TIMES = {"store": "", "sampled": ", the exact search's seconds a position by tier"}


def _intro(report: dict[str, Any]) -> list[str]:
    settings = report["settings"]
    sample_kind = report["move_quality_sample"]["kind"]
    store = f" (store {report['store']['path']})" if report["store"] else ""
    return [
        f"Game: {report['game_description']}{store}, seed {report['seed']}.",
        *_sample_lines(report),
        "Value kept = the chosen move achieves the position's value; remoteness lost = plies the chosen win "
        "takes beyond the fastest (won positions where the win is kept); loss shortfall = plies the chosen "
        "loss ends sooner than the slowest (lost positions).",
        f"Tournaments: every ordered pair of agents (an agent against itself too), {settings['games']} games "
        f"each from the start position and {settings['games']} from seeded random openings of "
        f"{settings['opening_plies'][0]}–{settings['opening_plies'][1]} plies (the same for every pair); "
        f"games stop as draws after {report['max_plies']} plies. Intervals: 95% Wilson.",
        f"Ratings: {report['ratings']['scale']}; anchored at {report['ratings']['anchor']}.",
        f"Wall-clock timings (each stage, each agent's move choice{SEARCH_TIMES[sample_kind]}) are in {TIMINGS} "
        "beside this report: they vary from run to run, and this report does not.",
    ]


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# Validation report: {report['game_description']}", ""]
    lines += [f"{line}\n" for line in _intro(report)]
    for title, head, rows, _ in tables(report):
        lines += [f"## {title}", ""]
        if not rows:
            lines += ["(none)", ""]
            continue
        lines += [*_markdown_table(head, rows), ""]
    return "\n".join(lines)


def _markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)]


SEEDS_TITLE = "The course reports' figures, rerun"


def seeds_markdown(rows: list[dict[str, Any]]) -> str:
    """`run seeds`' report.md: the rows `validation.seeds` made, as a table."""
    return "\n".join([f"# {SEEDS_TITLE}", "", seeds.INTRO, "", seeds.summary(rows), "",
                      *_markdown_table(*seeds.table(rows))]) + "\n"


def seeds_html(rows: list[dict[str, Any]]) -> str:
    """`run seeds`' report.html: the same table on a page of its own."""
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(SEEDS_TITLE)}"
            f"</title><style>{STYLE}</style></head><body><h1>{html.escape(SEEDS_TITLE)}</h1>"
            f"<p>{html.escape(seeds.INTRO)}</p><p>{html.escape(seeds.summary(rows))}</p>"
            f"{_html_table(*seeds.table(rows))}</body></html>\n")


STYLE = """body{font-family:sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right;white-space:nowrap}th{background:#f0f0f0}
td:last-child{white-space:normal}
td:first-child,th:first-child{text-align:left}.failed{color:#b71c1c;font-weight:bold}
img{max-width:100%;display:block;margin:0.5em 0 1.5em}"""


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return "<p>(none)</p>"
    cells = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    failed = ' class="failed"'
    for row in rows:
        cells.append("<tr>" + "".join(f"<td{failed if cell == 'FAILED' else ''}>{html.escape(cell)}</td>"
                                      for cell in row) + "</tr>")
    return "<table>" + "".join(cells) + "</table>"


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(title, base64 PNG) of every plot there is data for."""
    drawn = [
        ("Blunder rate by tier", plots.blunder_rate_by_tier(list(report["tiers"]), report["agents"])),
        ("Values by tier", plots.values_by_tier(report["tiers"])),
        ("Remoteness given away", plots.remoteness_histogram(report["agents"])),
        ("Tournament results", plots.tournament_heatmap(list(report["agents"]), report["tournaments"])),
        ("Ratings", plots.rating_chart(report["ratings"])),
        ("Learning curves", plots.learning_curves(report["learning_curves"])),
        ("GA fitness by generation", plots.fitness_by_generation(report.get("fitness_curves", {}))),
    ]
    return [(title, png) for title, png in drawn if png]


def html_page(report: dict[str, Any]) -> str:
    title = f"Validation report: {report['game_description']}"
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    parts += [f"<p>{html.escape(line)}</p>" for line in _intro(report)]
    sections = tables(report)
    for title_, head, rows, after in sections:
        if not after:
            parts.append(f"<h2>{html.escape(title_)}</h2>{_html_table(head, rows)}")
    parts.append("<h2>Plots</h2>")
    for name, png in figures(report):
        parts.append(f"<h3>{html.escape(name)}</h3>"
                     f"<img alt=\"{html.escape(name)}\" src=\"data:image/png;base64,{png}\">")
    for title_, head, rows, after in sections:
        if after:
            parts.append(f"<h2>{html.escape(title_)}</h2>{_html_table(head, rows)}")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(out_dir: Path, report: dict[str, Any], timings: dict[str, Any] | None = None) -> None:
    """Create `out_dir` if needed and write the three report files, and `timings` (wall-clock
    seconds, kept out of `report`) as timings.json when given: all of them, or none. Each is
    written to a temporary name and flushed first; only then are they renamed into place. A
    refused write (a full disk: the CLI's one line, exit 74) or an interrupt removes the
    temporary files, and the folder if this call made it, before it goes on up."""
    contents = {"report.json": json.dumps(report, indent=2) + "\n", "report.md": markdown(report),
                "report.html": html_page(report)}
    if timings is not None:
        contents[TIMINGS] = json.dumps(timings, indent=2) + "\n"
    made = not out_dir.exists()
    partials: dict[Path, Path] = {}
    try:
        make_folder(out_dir)
        for name, text in contents.items():
            partials[write_partial(out_dir / name, lambda file, text=text: file.write(text.encode()))] = out_dir / name
    except BaseException:  # a refused write, or Ctrl-C: no temporary file stays behind
        for partial in partials:
            partial.unlink(missing_ok=True)
        if made and out_dir.is_dir() and not any(out_dir.iterdir()):
            out_dir.rmdir()
        raise
    for partial, target in partials.items():
        os.replace(partial, target)
    sync_folder(out_dir)
