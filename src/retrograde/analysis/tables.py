"""The analysis as tables (title, header, rows of text, which columns hold numbers), shared by the
terminal output and the html page, and the terminal text itself."""

from __future__ import annotations

from typing import Any

#: (title, a sentence saying what the table holds or "", header, rows, the columns holding numbers)
Table = tuple[str, str, list[str], list[list[str]], set[int]]


def _value(value: str, remoteness: int | None) -> str:
    return value if remoteness is None else f"{value} in {remoteness}"


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def tier_list(names: list[str], shown: int = 10) -> str:
    """Tier names for a line of text: the first `shown`, then how many more."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def headline(report: dict[str, Any]) -> list[str]:
    """What was analysed, the start's value, and the tiers left out."""
    total = max(report["positions"], 1)
    lines = [f"{report['description']}: {report['positions']:,} positions, each counted once: "
             + ", ".join(f"{report[v]:,} {v} ({100 * report[v] / total:.1f}%)" for v in ("win", "loss", "draw"))
             + " (side to move's view)."]
    start = report["start"]
    lines.append("The start position is not in the analysed tiers." if start is None else
                 f"Start {start['position']}: {_value(start['value'], start['remoteness'])} for the first player.")
    if report["missing_tiers"]:
        lines.append(f"Not analysed (not solved in this store): {len(report['missing_tiers'])} tiers, "
                     + tier_list(report["missing_tiers"]) + ".")
    lines.append(f"Tiers: {report['tier_legend']}.")
    return lines


def tables(report: dict[str, Any]) -> list[Table]:
    """Every table of the analysis, in the order shown."""
    histogram, only = report["histogram"], report["only_move"]
    depths = sorted({int(r) for value in ("win", "loss") for r in histogram[value]})
    remoteness_note = (f"Won and lost positions by remoteness (plies to the end with perfect play); "
                       f"the {histogram['draw']:,} drawn positions have none.")
    only_note = (f"{only['count']:,} positions ({only['win']:,} won, {only['draw']:,} drawn) where exactly one "
                 f"of two or more moves keeps the value; those with the most moves:")
    found = [
        ("Remoteness histogram", remoteness_note, ["remoteness", "win", "loss"],
         [[str(r), f"{histogram['win'].get(str(r), 0):,}", f"{histogram['loss'].get(str(r), 0):,}"]
          for r in depths], {0, 1, 2}),
        *((f"Longest {'wins' if value == 'win' else 'losses'}", "", ["remoteness", "position"],
           [[str(e["remoteness"]), e["position"]] for e in report["longest"][value]], {0})
          for value in ("win", "loss")),
        ("Only moves", only_note, ["position", "value", "only move", "moves"],
         [[e["position"], _value(e["value"], e["remoteness"]), e["move"], str(e["moves"])]
          for e in only["examples"]], {3}),
        ("Most moves", "", ["moves", "position"], [[str(e["moves"]), e["position"]] for e in report["most_moves"]],
         {0}),
    ]
    if "trickiest" in report:
        sample = report["trickiest_sample"]
        trickiest_note = (f"Where the agents most often give the value away: {sample['positions']:,} positions "
                          f"sampled of {sample['candidates']:,}, {sample['tries']} choices each, seed {sample['seed']}.")
        found.append(("Trickiest positions", trickiest_note, ["agent", "lost", "position", "value", "moves keeping it"],
                      [[e["agent"], _rate(e["lost_rate"]), e["position"], _value(e["value"], e["remoteness"]),
                        f"{e['keeping']} of {e['moves']}"] for e in report["trickiest"]], {1}))
        found.append(("Value given away", "By each agent, in the sampled positions.", ["agent", "mean lost"],
                      [[spec, _rate(rate)] for spec, rate in sample["mean_lost_rate"].items()], {1}))
    return found


def text(report: dict[str, Any]) -> str:
    """The analysis for a terminal: the headline, then each table in aligned columns."""
    lines = headline(report)
    for title, note, head, rows, numeric in tables(report):
        lines += ["", f"{title}:" + (f" {note}" if note else "")]
        if not rows:
            lines.append("  (none)")
            continue
        widths = [max(len(row[k]) for row in [head, *rows]) for k in range(len(head))]
        for row in [head, *rows]:
            cells = [cell.rjust(width) if k in numeric else cell.ljust(width)
                     for k, (cell, width) in enumerate(zip(row, widths))]
            lines.append("  " + "  ".join(cells).rstrip())
    if "trickiest" in report:
        lines += ["", f"Method: {report['trickiest_method']}."]
    return "\n".join(lines)
