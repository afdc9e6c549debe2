"""The analysis as an html page (self-contained: the plot inlined as base64 PNG, no external
resource; nothing wider than 1280 px) beside its JSON, written into the --out folder."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from retrograde.analysis.tables import headline, tables
from retrograde.data.durable import make_folder, write_atomically
from retrograde.validation.plots import VALUE_COLOURS, to_png
from retrograde.validation.report import LONG, STYLE, html_table

#: Counts spanning more than this factor are plotted on a log scale (the long wins are few).
LOG_SPREAD = 50
def histogram_plot(report: dict[str, Any]) -> str | None:
    """Bar charts of won and lost positions by remoteness, side by side, as base64 PNG; None when
    there are no wins or losses."""
    shown = [value for value in ("win", "loss") if report["histogram"][value]]
    if not shown:
        return None
    figure = Figure(figsize=(5.4 * len(shown), 3.6))
    for k, value in enumerate(shown, start=1):
        axes = figure.add_subplot(1, len(shown), k)
        counts = {int(r): n for r, n in report["histogram"][value].items()}
        axes.bar(list(counts), list(counts.values()), width=0.8, color=VALUE_COLOURS[value])
        wide = max(counts.values()) > LOG_SPREAD * min(counts.values())
        if wide:
            axes.set_yscale("log")
            axes.set_ylim(bottom=0.7)  # every bar from the same baseline, a count of 1 visible
        axes.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))
        axes.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12))
        axes.set_xlabel("remoteness (plies to the end)")
        axes.set_ylabel("positions (log scale)" if wide else "positions")
        axes.set_title(f"{'Won' if value == 'win' else 'Lost'} positions by remoteness")
        axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    return to_png(figure)


def _table(head: list[str], rows: list[list[str]]) -> str:
    """The report's table (numbers right-aligned, text left), folded when long."""
    table = html_table(head, rows)
    return table if len(rows) <= LONG else f"<details><summary>{len(rows)} rows</summary>{table}</details>"


def html_page(report: dict[str, Any]) -> str:
    title = f"Analysis: {report['description']}"
    head = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>")
    parts = [head]
    parts += [f"<p>{html.escape(line)}</p>" for line in headline(report)]
    png = histogram_plot(report)
    if png:
        parts.append(f"<img alt=\"won and lost positions by remoteness\" src=\"data:image/png;base64,{png}\">")
    for name, note, head, rows, _ in tables(report):
        parts.append(f"<h2>{html.escape(name)}</h2>" + (f"<p>{html.escape(note)}</p>" if note else "")
                     + _table(head, rows))
    if "trickiest" in report:
        parts.append(f"<p>Method: {html.escape(report['trickiest_method'])}.</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_page(out_dir: Path, report: dict[str, Any]) -> None:
    """Write analysis.json and analysis.html into `out_dir` (created if need be), each whole or not at all."""
    make_folder(out_dir)
    for name, content in (("analysis.json", json.dumps(report, indent=2) + "\n"), ("analysis.html", html_page(report))):
        write_atomically(out_dir / name, lambda file, content=content: file.write(content.encode()))
