"""The validation report as files: report.json (SPEC §7 and everything the plots show),
report.md (tables) and report.html (tables and plots, self-contained: PNGs inlined as base64,
no external resource), the same bytes for the same inputs and seed however often the command
runs (or is killed and rerun); and timings.json, the run's wall-clock figures (each agent's
moves per second among them), which differ from run to run. Each is written to a temporary
name and renamed into place.

After the tables of all agents, each agent has a section of its own, what its author wants to
know: value kept with its interval, remoteness given away, where it errs, its forfeits, its
games against each other agent, and its worst positions, each linked to the explorer."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from retrograde.data.durable import make_folder, sync_folder, write_partial
from retrograde.validation import course, plots, summary


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _interval(ci: Sequence[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _short(report: dict[str, Any], spec: str) -> str:
    """An agent's name on the page: its short name (reports from before short names: the spec)."""
    return report["agents"].get(spec, {}).get("short", spec)


def answer_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The agents ranked: value kept (exact) and rating with its interval."""
    head = ["#", "agent", "value kept", "rating", "95% interval"]
    return head, [[str(k), row["short"], summary.percent(row["value_kept"]), summary.signed(row["elo"]),
                   f"[{summary.signed(row['elo_ci95'][0])}, {summary.signed(row['elo_ci95'][1])}]"]
                  for k, row in enumerate(report["summary"]["ranking"], 1)]


def key_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Each short name with the full spec it stands for, and how its artifact was trained."""
    training = report.get("training", {})
    return ["agent", "spec", "trained"], [[_short(report, spec), spec, training.get(spec, "–")]
                                          for spec in report["agents"]]


def quality_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = ["agent", "positions", "value kept", "win kept", "draw kept", "remoteness lost (won)",
            "loss shortfall", "win→draw", "win→loss", "draw→loss"]
    rows = []
    for spec, entry in report["agents"].items():
        q = entry["move_quality"]
        rows.append([_short(report, spec), str(q["positions"]), summary.percent(q["value_kept"]), summary.percent(q["win_kept"]),
                     summary.percent(q["draw_kept"]), _num(q["mean_remoteness_lost"]), _num(q["mean_loss_shortfall"]),
                     str(q["win_to_draw"]), str(q["win_to_loss"]), str(q["draw_to_loss"])])
    return head, rows


def _blunder(figures: dict[str, Any]) -> str:
    if figures["rate"] is None:
        return "–"
    return f"{summary.percent(figures['rate'])} {_interval(figures['ci95'])} ({figures['count']})"


def blunder_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Placement and piece blunders (sampled Quarto validation), overall and by tier."""
    agents = {spec: entry["blunders"] for spec, entry in report["agents"].items() if "blunders" in entry}
    tiers = [t for t in report["tiers"] if any(t in b["by_tier"] for b in agents.values())]
    head = ["agent", "positions not lost", "placement blunders", "piece blunders",
            *(f"{t}: placement / piece" for t in tiers)]
    rows = [[_short(report, spec), str(b["positions_at_risk"]), _blunder(b["placement"]), _blunder(b["piece"]),
             *(f"{summary.percent(b['by_tier'][t]['placement']['rate'])} / {summary.percent(b['by_tier'][t]['piece']['rate'])}"
               if t in b["by_tier"] else "–" for t in tiers)]
            for spec, b in agents.items()]
    return head, rows


def _pairs(entry: dict[str, Any]) -> tuple[str, str, str]:
    """A pairing's pentanomial counts (LL/LD/DD+WL/WD/WW), Elo with its interval and LOS, or dashes."""
    pairs = entry.get("pairs")
    if not pairs:
        return "–", "–", "–"
    counts = "/".join(str(pairs[key]) for key in ("LL", "LD", "DD_WL", "WD", "WW"))
    return counts, summary.elo_interval(entry["elo"], entry["elo_ci95"]), summary.percent(entry["los"])


def tournament_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Every pairing: real draws and capped games apart (report.json's `draws` counts both)."""
    head = ["start", "first", "second", "games", "first wins", "draws", "capped", "second wins",
            "first win 95% CI", "pairs LL/LD/DD+WL/WD/WW", "Elo of first [95%]", "LOS", "mean plies"]
    rows = [[t["start"], _short(report, t["first"]), _short(report, t["second"]), str(t["games"]),
             str(t["first_wins"]), str(t["draws"] - t.get("capped", 0)), str(t.get("capped", 0)),
             str(t["second_wins"]), _interval(t["first_win_ci95"]), *_pairs(t), _num(t["mean_plies"], 1)]
            for t in report["tournaments"]]
    return head, rows


def _totals(report: dict[str, Any]) -> dict[tuple[str, str], list[int]]:
    """[wins, draws, losses] of each agent against each agent over all their games (both seats,
    every start; capped games count as draws)."""
    specs = list(report["agents"])
    totals = {(a, b): [0, 0, 0] for a in specs for b in specs}
    for t in report["tournaments"]:
        a, b = t["first"], t["second"]
        for key, (wins, draws, losses) in (((a, b), (t["first_wins"], t["draws"], t["second_wins"])),
                                           ((b, a), (t["second_wins"], t["draws"], t["first_wins"]))):
            if a != b or key == (a, b):  # an agent against itself: its games once
                totals[key] = [x + y for x, y in zip(totals[key], (wins, draws, losses))]
    return totals


def _score(wins: int, draws: int, losses: int) -> str:
    """(wins + draws/2) / games with wins-draws-losses: "55% 10-3-7"."""
    return f"{100 * (wins + draws / 2) / (wins + draws + losses):.0f}% {wins}-{draws}-{losses}"


def tournament_matrix(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The row agent's score against the column agent over all their games (both seats, every
    start), with wins-draws-losses; capped games count as draws."""
    specs = list(report["agents"])
    totals = _totals(report)
    rows = [[_short(report, a), *("–" if a == b or not sum(totals[a, b]) else _score(*totals[a, b]) for b in specs)]
            for a in specs]
    return ["row vs column", *(_short(report, b) for b in specs)], rows


def rating_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    entries = sorted(report["ratings"]["agents"].items(), key=lambda item: -item[1]["elo"])
    return ["agent", "rating", "95% interval"], [[_short(report, name), f"{e['elo']:.0f}",
                                                  f"[{e['ci95'][0]:.0f}, {e['ci95'][1]:.0f}]"]
                                                 for name, e in entries]


def published_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The seeds' figures beside ours: the rows and verdicts `run seeds` gives (`validation.course`)."""
    return course.table(report["published"])


def training_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    curves = report["learning_curves"]
    rows = [[_short(report, spec), how,
             " -> ".join(summary.percent(curves[spec][i]["value_kept"]) for i in (0, -1)) if spec in curves else "-"]
            for spec, how in report.get("training", {}).items()]
    return ["agent", "how it was trained", "value kept, first -> last measured"], rows


def tier_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    specs = list(report["agents"])
    tiers = [t for t in report["tiers"] if any(t in report["agents"][s]["by_tier"] for s in specs)]
    head = ["tier", "positions", *(f"{_short(report, spec)} value kept" for spec in specs)]
    rows = []
    for tier in tiers:
        first = next(report["agents"][s]["by_tier"][tier] for s in specs if tier in report["agents"][s]["by_tier"])
        rows.append([tier, str(first["positions"]),
                     *(summary.percent(report["agents"][s]["by_tier"].get(tier, {}).get("value_kept")) for s in specs)])
    return head, rows


def tier_group_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """Value kept by tier group (`Game.tier_group`: Quixo's cubes on the board), or None."""
    if not report.get("tier_groups"):
        return None
    specs = list(report["agents"])
    measured = {spec: summary.group_quality(report, spec) for spec in specs}
    label, groups, _ = summary.tier_groups(report)
    groups = [group for group in groups if any(group in figures for figures in measured.values())]
    rows = [[group, str(max(measured[s].get(group, {}).get("positions", 0) for s in specs)),
             *(summary.percent(measured[s].get(group, {}).get("value_kept")) for s in specs)] for group in groups]
    return [label, "positions", *(f"{_short(report, spec)} value kept" for spec in specs)], rows


def check_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    return ["check", "result", "detail"], [[c["name"], "passed" if c["ok"] else "FAILED", c["detail"]]
                                           for c in report["checks"]]


#: The explorer's address on its default port, where the trickiest positions link to.
EXPLORER = "http://127.0.0.1:8000/?position="


def trickiest_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The sampled positions where the most agents give the value away."""
    return ["position", "value", "agents that give it away"], [
        [t["position"], t["value"], ", ".join(_short(report, spec) for spec in t["agents"])]
        for t in report.get("trickiest", [])]


def _value(name: str, remoteness: int | None) -> str:
    """"win in 7", "loss in 0", "draw"."""
    return name if remoteness is None else f"{name} in {remoteness}"


def worst_table(report: dict[str, Any], spec: str) -> tuple[list[str], list[list[str]]]:
    """An agent's worst positions (`quality.worst_order`): the move it chose (or its forfeit),
    what that achieves, and the right moves."""
    return ["position", "value", "chosen", "achieves", "right moves"], [
        [w["position"], _value(w["value"], w["remoteness"]),
         w["chosen"] if w["forfeit"] is None else f"forfeit ({w['forfeit']})",
         _value(w["achieves"], w["achieves_remoteness"]), " ".join(w["best"])]
        for w in report["agents"][spec].get("worst", [])]


def _errs(report: dict[str, Any], spec: str) -> str:
    """The tier groups where the agent keeps the value least (up to three, each below 100%)."""
    label, _, _ = summary.tier_groups(report)
    groups = sorted(((figures["value_kept"], group, figures["positions"])
                     for group, figures in summary.group_quality(report, spec).items() if figures["value_kept"] < 1),
                    key=lambda item: item[0])[:3]
    named = (lambda group: f"{group} {label}") if label != "tier" else (lambda group: f"tier {group}")
    return "; ".join(f"{named(group)}: {summary.percent(kept)} of {n:,} positions" for kept, group, n in groups) or \
        "nowhere: every value kept"


def _games(report: dict[str, Any], spec: str) -> list[list[str]]:
    """The agent's score against each other agent (`tournament_matrix`'s) and the pair Elo of
    each of its pairings where it moved first."""
    totals = _totals(report)
    rows = []
    for other in report["agents"]:
        if other == spec or not sum(totals[spec, other]):
            continue
        elo = [f"pair Elo {summary.elo_interval(t['elo'], t['elo_ci95'])} moving first from {t['start']}"
               for t in report["tournaments"]
               if (t["first"], t["second"]) == (spec, other) and t.get("elo") is not None]
        rows.append([f"against {_short(report, other)}", "; ".join([_score(*totals[spec, other]), *elo])])
    return rows


def agent_table(report: dict[str, Any], spec: str) -> tuple[list[str], list[list[str]]]:
    """One agent's figures, as its author wants them: value kept with its interval, remoteness
    given away, where it errs, forfeits, rating and games against each other agent."""
    q = report["agents"][spec]["move_quality"]
    interval = f" {_interval(q['value_kept_ci95'])}" if q.get("value_kept_ci95") else ""
    rating = report["ratings"]["agents"].get(spec)
    rows = [["spec", spec],
            ["value kept", f"{summary.percent(q['value_kept'])}{interval}"],
            ["moves measured", f"{q['positions']:,} (its moves per second are in {TIMINGS})"],
            ["wins kept, draws kept", f"{summary.percent(q['win_kept'])}, {summary.percent(q['draw_kept'])}"],
            ["value given away", f"win→loss {q['win_to_loss']:,}, win→draw {q['win_to_draw']:,}, "
                                 f"draw→loss {q['draw_to_loss']:,}"],
            ["remoteness given away", f"{_num(q['mean_remoteness_lost'])} plies a won position kept; loss shortfall "
                                      f"{_num(q['mean_loss_shortfall'])} plies a lost position"],
            ["where it errs most", _errs(report, spec)]]
    if "forfeits" in q:
        rows.append(["forfeits", f"{summary.counts(q['forfeits']) or 'none'} of its moves measured; "
                                 f"{summary.counts(summary.game_forfeits(report, spec)) or 'none'} of its games"])
    if rating:
        rows.append(["rating", summary.elo_interval(rating["elo"], rating["ci95"])])
    return ["", _short(report, spec)], rows + _games(report, spec)


@dataclass(frozen=True)
class Section:
    """A table of the report: `brief` (a summary shown open, the full rows collapsed below it)."""

    title: str
    head: list[str]
    rows: list[list[str]]
    note: str = ""
    brief: tuple[list[str], list[list[str]]] | None = None
    after_plots: bool = False
    #: A column of long text shown under each row.
    notes: str | None = None
    #: The column whose cells are positions, linked to the explorer in the page.
    links: int | None = None


def sections(report: dict[str, Any]) -> list[Section]:
    """The report's tables after the answer, in page order; empty optional ones left out."""
    found = [Section("Agents", *key_table(report), note="The short names the page uses, and what each stands for."),
             Section("Consistency checks", *check_table(report)),
             Section("Move quality", *quality_table(report))]
    if any("blunders" in entry for entry in report["agents"].values()):
        found.append(Section("Blunders: where the agent placed, or what it handed over", *blunder_table(report)))
    if report.get("trickiest"):
        found.append(Section("Trickiest positions", *trickiest_table(report), note=(
            "The sampled positions where the most agents give the value away. With `retrograde explore --store "
            "STORE` running, each position links to it."), links=0))
    found += [Section("Tournaments", *tournament_table(report), brief=tournament_matrix(report), note=(
                  "Each cell: the row agent's score against the column agent over all their games (both seats, "
                  "every start), wins-draws-losses; games stopped at the ply cap count as draws there. "
                  "The full table counts each opening pair (the same opening, seats swapped) as the unit "
                  "and shows capped games apart from real draws.")),
              Section("Ratings", *rating_table(report), note=f"{report['ratings']['scale']}; anchored at "
                                                             f"{report['ratings']['anchor']}.")]
    if report.get("training"):
        found.append(Section("Training", *training_table(report)))
    if report.get("published"):
        found.append(Section("Beside the seeds' published results", *published_table(report), after_plots=True,
                             notes=course.WHY))
    found += [Section("Value kept by tier", *tier_table(report), brief=tier_group_table(report), after_plots=True,
                      note=f"Tiers: {report['tier_legend']}.")]
    for spec in report["agents"]:
        found += agent_sections(report, spec)
    return found


def agent_sections(report: dict[str, Any], spec: str) -> list[Section]:
    """An agent's own section (`agent_table`) and, where measured, its worst positions."""
    short = _short(report, spec)
    found = [Section(f"Agent {short}", *agent_table(report, spec), after_plots=True)]
    if "worst" in report["agents"][spec]:
        found.append(Section(f"Agent {short}: its worst positions", *worst_table(report, spec), after_plots=True,
                             links=0))
    return found


#: How the agents' own sections read (in "How this was measured").
EACH_AGENT = (
    "Each agent's own section: value kept with its 95% Wilson interval, counted over the measured positions' "
    "effective number (each position weighs the positions it stands for: Kish's (sum of weights)² / sum of "
    "squared weights); its games against each other agent over both seats and every start (capped games as "
    "draws), with the pair Elo where it moved first; and its worst positions, at most 10: the value lost first "
    "(win→loss, win→draw, draw→loss), then the most remoteness given away, with the right moves (the lookup "
    "agent's: the fastest win, the slowest loss), each linked to the explorer while `retrograde explore --store "
    "STORE` runs. A forfeit (the agent raised, kept answering illegal moves, ran past its move time or its "
    "memory, or its process died) loses the game, and at a measured position counts as a loss in 0: a won or "
    "drawn position's value given away, a lost one's whole remoteness short.")


def _sample_lines(report: dict[str, Any]) -> list[str]:
    """How the move-quality positions were chosen and valued."""
    sample = report["move_quality_sample"]
    if sample["kind"] == "sampled":
        tiers = ", ".join(f"{name} {n['positions']}/{n['asked']}" for name, n in sample["per_tier"].items())
        return [f"Move quality over {sample['positions']:,} distinct positions met in {sample['games']:,} seeded "
                f"games between the baselines {', '.join(sample['baselines'])} (every ordered pair in turn), in "
                f"the tiers (positions found / asked for) {tiers}. Each position is solved "
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


def _starts(settings: dict[str, Any]) -> str:
    """Where the tournaments' games start."""
    games = settings["games"]
    low, high = settings["opening_plies"]
    if not settings.get("from_start", True):
        return (f"{games} games each from seeded random positions of the store's first tiers (it does not hold "
                "the start)")
    if not settings["openings"]:
        return f"{games} games each from the start position"
    return f"{games} games each from the start position and {games} from seeded random openings of {low}–{high} plies"


def _intro(report: dict[str, Any]) -> list[str]:
    """How the figures were measured (shown after the answer)."""
    settings = report["settings"]
    sample_kind = report["move_quality_sample"]["kind"]
    store = f" (store {report['store']['path']})" if report["store"] else ""
    return [
        f"Game: {report['game_description']}{store}, seed {report['seed']}. Tiers: {report['tier_legend']}.",
        *_sample_lines(report),
        "Value kept = the chosen move achieves the position's value; remoteness lost = plies the chosen win "
        "takes beyond the fastest (won positions where the win is kept); loss shortfall = plies the chosen "
        "loss ends sooner than the slowest (lost positions).",
        f"Tournaments: every ordered pair of agents (an agent against itself too), {_starts(settings)} (the same "
        "for every pair); "
        f"games stop after {report['max_plies']} plies (capped: shown apart, counted as draws in report.json "
        "and the ratings). Intervals: 95% Wilson; pair Elo: pentanomial, normal approximation.",
        f"Ratings: {report['ratings']['scale']}; anchored at {report['ratings']['anchor']}.",
        EACH_AGENT,
        f"Wall-clock timings (each stage, each agent's move choice{SEARCH_TIMES[sample_kind]}) are in {TIMINGS} "
        "beside this report: they vary from run to run, and this report does not.",
    ]


def markdown(report: dict[str, Any]) -> str:
    answer = report["summary"]
    lines = [f"# Validation report: {report['game_description']}", "", f"**{answer['answer']}**", "",
             *_markdown_table(*answer_table(report)), "", *(f"- {finding}" for finding in answer["findings"]), "", f"Tiers: {report['tier_legend']}.", "",
             "## How this was measured", ""]
    lines += [f"{line}\n" for line in _intro(report)]
    for section in sections(report):
        lines += [f"## {section.title}", ""]
        if section.note:
            lines += [section.note, ""]
        if section.brief:
            lines += [*_markdown_table(*section.brief), ""]
        lines += [*(_markdown_table(section.head, section.rows) if section.rows else ["(none)"]), ""]
    return "\n".join(lines)


def _markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows)]


SEEDS_TITLE = "The course reports' figures, rerun"


def seeds_markdown(rows: list[dict[str, Any]], unplayed: list[dict[str, Any]]) -> str:
    """`run seeds`' report.md: the rows `validation.course` made, as a table, each row's evidence
    (the versions of its match played) under a heading of its own, and the figures no match plays."""
    lines = [f"# {SEEDS_TITLE}", "", course.INTRO, "", course.summary(rows, unplayed), "",
             *_markdown_table(*course.table(rows)), "", "## Evidence: the versions each row played", ""]
    for number, found in enumerate(rows, 1):
        if found["evidence"]:
            lines += [f"### {number}. {found['seed'][:3]} {found['where']}: {found['agent']} vs {found['opponent']}, "
                      f"{found['seat']}", "", *_markdown_table(*course.evidence_table(found)), ""]
    lines += ["## Published figures no match plays", "", *_markdown_table(*course.unplayed_table(unplayed))]
    return "\n".join(lines) + "\n"


def _evidence_html(found: dict[str, Any]) -> str:
    """A row's evidence, collapsed under it."""
    if not found["evidence"]:
        return ""
    count = len(found["evidence"])
    return (f"<details><summary>evidence: {count} version{'s' if count > 1 else ''} played</summary>"
            f"{html_table(*course.evidence_table(found))}</details>")


def seeds_html(rows: list[dict[str, Any]], unplayed: list[dict[str, Any]]) -> str:
    """`run seeds`' report.html: the same table on a page of its own, each row's "why" under it and
    its evidence collapsed under that; then the figures no match plays."""
    head, cells = course.table(rows)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(SEEDS_TITLE)}"
            f"</title><style>{STYLE}</style></head><body><h1>{html.escape(SEEDS_TITLE)}</h1>"
            f"<p>{html.escape(course.INTRO)}</p><p>{html.escape(course.summary(rows, unplayed))}</p>"
            f"{html_table(head, cells, notes=head.index(course.WHY), under=[_evidence_html(row) for row in rows])}"
            f"<h2>Published figures no match plays</h2>{html_table(*course.unplayed_table(unplayed))}"
            "</body></html>\n")


STYLE = """body{font-family:sans-serif;margin:1.2em 2em;max-width:1200px;color:#222;text-align:left}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.2em 0 .3em}h3{font-size:1em}
.answer{font-size:1.25em;margin:.2em 0 .5em}.top{display:flex;gap:2em;align-items:flex-start}
.legend{color:#555;font-size:13px}.top ul{margin:0;padding-left:1.2em;max-width:620px}.top li{margin-bottom:.45em;line-height:1.35}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:13px;max-width:100%}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f0f0f0}td:first-child{white-space:nowrap}td.num{text-align:right}tr.note td{color:#555;font-size:12px;border-top:none;white-space:normal}.failed{color:#b71c1c;font-weight:bold}
details{margin:.2em 0 1em}summary{cursor:pointer;color:#1a5fb4}
img{max-width:100%;display:block;margin:.5em 0 1.5em}"""
#: A cell that is a number, a share, an interval or a W-D-L count: right-aligned.
NUMERIC = re.compile(r"^(?=.*\d)[-+–]?[\d.,%\[\] +/–-]*$")
#: Where a long spec, path or position may break across lines.
BREAKS = re.compile(r"([,/=])")
#: Rows beyond which a table without a brief collapses.
LONG = 20


def html_table(head: list[str], rows: list[list[str]], links: int | None = None, notes: int | None = None,
               under: Sequence[str] | None = None) -> str:
    """A table; `links`: the column whose cells are positions linked to the explorer; `notes`: a
    column of long text shown as a full-width line under its row instead (when not empty);
    `under`: HTML shown full-width under each row (when not empty), after its note."""
    if not rows:
        return "<p>(none)</p>"
    columns = [k for k in range(len(head)) if k != notes]
    cells = ["<tr>" + "".join(f"<th>{html.escape(head[k])}</th>" for k in columns) + "</tr>"]
    for number, row in enumerate(rows):
        out = []
        for k in columns:
            cell = row[k]
            kind = ' class="failed"' if cell == "FAILED" else ' class="num"' if NUMERIC.match(cell) else ""
            text = BREAKS.sub(r"\1<wbr>", html.escape(cell, quote=False)) if not kind else html.escape(cell)
            if k == links:
                text = f'<a href="{EXPLORER}{quote(cell)}">{text}</a>'
            out.append(f"<td{kind}>{text}</td>")
        cells.append("<tr>" + "".join(out) + "</tr>")
        if notes is not None and row[notes]:
            cells.append(f'<tr class="note"><td colspan="{len(columns)}">{html.escape(head[notes])}: '
                         f"{html.escape(row[notes])}</td></tr>")
        if under and under[number]:
            cells.append(f'<tr class="note"><td colspan="{len(columns)}">{under[number]}</td></tr>')
    return "<table>" + "".join(cells) + "</table>"


def _html_section(section: Section) -> str:
    """A section's title, note and table; a brief shows open with the full rows collapsed, a long table collapses."""
    parts = [f"<h2>{html.escape(section.title)}</h2>"]
    if section.note:
        parts.append(f"<p>{html.escape(section.note)}</p>")
    full = html_table(section.head, section.rows, section.links,
                       section.head.index(section.notes) if section.notes else None)
    if section.brief:
        parts.append(html_table(*section.brief))
        parts.append(f"<details><summary>All {len(section.rows)} rows</summary>{full}</details>")
    elif len(section.rows) > LONG:
        parts.append(f"<details><summary>{len(section.rows)} rows</summary>{full}</details>")
    else:
        parts.append(full)
    return "".join(parts)


def figures(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(title, base64 PNG) of every plot there is data for."""
    short = {spec: _short(report, spec) for spec in report["agents"]}
    drawn = [
        ("Blunder rate by tier", plots.blunder_rate_by_tier(report, short)),
        ("Values by tier", plots.values_by_tier(report)),
        ("Remoteness given away", plots.remoteness_histogram(report["agents"], short)),
        ("Tournament results", plots.tournament_heatmap(list(report["agents"]), report["tournaments"], short)),
        ("Ratings", plots.rating_chart(report["ratings"], short)),
        ("Learning curves", plots.learning_curves(report["learning_curves"], report.get("learning_units", {}),
                                                  short)),
        ("GA fitness by generation", plots.fitness_by_generation(report.get("fitness_curves", {}), short)),
    ]
    return [(title, png) for title, png in drawn if png]


def html_page(report: dict[str, Any]) -> str:
    """The page: the answer first (value, ranking, findings), then the tables and plots."""
    title = f"Validation report: {report['game_description']}"
    answer = report["summary"]
    findings = "".join(f"<li>{html.escape(line)}</li>" for line in answer["findings"])
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p class=\"answer\"><b>{html.escape(answer['answer'])}</b></p>",
             f"<div class=\"top\"><div>{html_table(*answer_table(report))}</div>"
             f"<div><b>Findings</b><ul>{findings}</ul><p class=\"legend\">Tiers: {html.escape(report['tier_legend'])}."
             "</p></div></div>",
             "<h2>How this was measured</h2>", *(f"<p>{html.escape(line)}</p>" for line in _intro(report))]
    found = sections(report)
    parts += [_html_section(section) for section in found if not section.after_plots]
    parts.append("<h2>Plots</h2>")
    for name, png in figures(report):
        parts.append(f"<h3>{html.escape(name)}</h3>"
                     f"<img alt=\"{html.escape(name)}\" src=\"data:image/png;base64,{png}\">")
    parts += [_html_section(section) for section in found if section.after_plots]
    parts.append("</body></html>")
    return "\n".join(parts)


def moves_per_second(report: dict[str, Any], timings: dict[str, Any]) -> dict[str, float | None]:
    """Each agent's moves per second in move quality: its measured positions over its seconds
    choosing (`timings["move_quality_s"]`); None where no time was measured."""
    seconds = timings.get("move_quality_s", {})
    return {spec: round(entry["move_quality"]["positions"] / seconds[spec], 1) if seconds.get(spec) else None
            for spec, entry in report["agents"].items()}


def write_report(out_dir: Path, report: dict[str, Any], timings: dict[str, Any] | None = None) -> None:
    """Create `out_dir` if needed and write the three report files, and `timings` (wall-clock
    seconds, kept out of `report`) as timings.json when given, with each agent's moves per
    second (`moves_per_second`): all of them, or none. Each is
    written to a temporary name and flushed first; only then are they renamed into place. A
    refused write (a full disk: the CLI's one line, exit 74) or an interrupt removes the
    temporary files, and the folder if this call made it, before it goes on up."""
    contents = {"report.json": json.dumps(report, indent=2) + "\n", "report.md": markdown(report),
                "report.html": html_page(report)}
    if timings is not None:
        contents[TIMINGS] = json.dumps({**timings, "moves_per_second": moves_per_second(report, timings)},
                                       indent=2) + "\n"
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
