"""The report's plots, drawn with matplotlib (no pyplot state, Agg canvas) and returned as base64
PNG text for embedding in the html. Each function takes report data and returns None when
there is nothing to draw."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from retrograde.validation import summary

DPI = 100
VALUE_COLOURS = {"win": "#2e7d32", "draw": "#9e9e9e", "loss": "#c62828"}


def to_png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _tier_axis(axes, labels: Sequence[str], name: str) -> None:
    """Categorical x axis of tiers or tier groups: at most `MAX_TICKS` labels, never overlapping."""
    stride = max(1, -(-len(labels) // MAX_TICKS))
    axes.set_xticks(range(0, len(labels), stride))
    axes.set_xticklabels(labels[::stride], rotation=0 if max(map(len, labels)) <= 3 else 45, ha="center"
                         if max(map(len, labels)) <= 3 else "right", fontsize=9)
    axes.set_xlim(-0.6, len(labels) - 0.4)
    axes.set_xlabel(name)


#: Tick labels an axis of tiers shows at most.
MAX_TICKS = 30


def blunder_rate_by_tier(report: dict[str, Any], short: dict[str, str]) -> str | None:
    """Per agent, the share of positions of each tier group whose value its move gives away
    (its tiers weighted by their positions); points only, joined where the groups are ordered counts."""
    name, groups, _ = summary.tier_groups(report)
    measured = {spec: summary.group_quality(report, spec) for spec in report["agents"]}
    groups = [g for g in groups if any(g in m for m in measured.values())]
    if not groups:
        return None
    figure = Figure(figsize=(min(12.0, max(8.0, 0.3 * len(groups))), 4.5))
    axes = figure.add_subplot()
    for spec, found in measured.items():
        rates = [1 - found[g]["value_kept"] if g in found else np.nan for g in groups]
        axes.plot(range(len(groups)), rates, marker="o", markersize=4,
                  linestyle="-" if report.get("tier_groups") else "none", label=short[spec])
    _tier_axis(axes, groups, name)
    axes.set_ylabel("blunder rate (value given away)")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(f"Blunder rate by {name}")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_png(figure)


def values_by_tier(report: dict[str, Any]) -> str | None:
    """Win/draw/loss shares (side to move's view) of each tier group: the store's positions, or the sampled ones."""
    name, groups, group_of = summary.tier_groups(report)
    counts = {group: dict.fromkeys(VALUE_COLOURS, 0) for group in groups}
    for tier, tier_counts in report["tiers"].items():
        for value in VALUE_COLOURS:
            counts[group_of[tier]][value] += tier_counts[value]
    groups = [g for g in groups if sum(counts[g].values())]
    if not groups:
        return None
    figure = Figure(figsize=(min(12.0, max(8.0, 0.3 * len(groups))), 4.5))
    axes = figure.add_subplot()
    bottom = np.zeros(len(groups))
    for value in ("win", "draw", "loss"):
        share = np.array([counts[g][value] / sum(counts[g].values()) for g in groups])
        axes.bar(range(len(groups)), share, bottom=bottom, color=VALUE_COLOURS[value], label=value, width=0.85)
        bottom += share
    _tier_axis(axes, groups, name)
    axes.set_ylabel("share of the positions")
    axes.set_title(f"Values of the positions by {name} (side to move)")
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_png(figure)


def remoteness_histogram(agents: dict[str, Any], short: dict[str, str]) -> str | None:
    """Per agent, how many plies its kept wins take beyond the fastest (0: the fastest win)."""
    given = {spec: {int(k): n for k, n in entry["remoteness_given_away"].items()} for spec, entry in agents.items()
             if entry["remoteness_given_away"]}
    if not given:
        return None
    top = max(max(counts) for counts in given.values())
    figure = Figure(figsize=(9, 4.5))
    axes = figure.add_subplot()
    width = 0.8 / len(given)
    for k, (spec, counts) in enumerate(given.items()):
        total = sum(counts.values())
        xs = np.arange(top + 1)
        axes.bar(xs + (k - (len(given) - 1) / 2) * width, [counts.get(int(x), 0) / total for x in xs],
                 width=width, label=short[spec])
    axes.set_yscale("log")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("plies beyond the fastest win (won positions where the win was kept)")
    axes.set_ylabel("share of positions (log)")
    axes.set_title("Remoteness given away")
    axes.legend(fontsize=8)
    return to_png(figure)


def tournament_heatmap(specs: Sequence[str], tournaments: Sequence[dict[str, Any]],
                       short: dict[str, str]) -> str | None:
    """First mover's score ((wins + draws/2) / games), row agent first, per kind of start."""
    starts = list(dict.fromkeys(entry.get("start", "initial") for entry in tournaments))
    if not starts:
        return None
    at = {spec: i for i, spec in enumerate(specs)}
    names = [short[spec] for spec in specs]
    size = max(4.0, 0.7 * len(specs) + 2)
    figure = Figure(figsize=(size * len(starts) + 1, size))
    for k, start in enumerate(starts):
        axes = figure.add_subplot(1, len(starts), k + 1)
        score = np.full((len(specs), len(specs)), np.nan)
        for entry in tournaments:
            if entry.get("start", "initial") == start and entry["games"]:
                score[at[entry["first"]], at[entry["second"]]] = (
                    (entry["first_wins"] + entry["draws"] / 2) / entry["games"])
        image = axes.imshow(score, vmin=0, vmax=1, cmap="RdYlGn")
        for (i, j), value in np.ndenumerate(score):
            if not np.isnan(value):
                axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8)
        axes.set_xticks(range(len(specs)))
        axes.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
        axes.set_yticks(range(len(specs)))
        axes.set_yticklabels(names, fontsize=8)
        axes.set_xlabel("second mover")
        if k == 0:
            axes.set_ylabel("first mover")
        axes.set_title(f"first mover's score, from the {'start position' if start == 'initial' else 'openings'}")
        figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
    return to_png(figure)


def rating_chart(ratings: dict[str, Any], short: dict[str, str]) -> str | None:
    """Ratings with their 95% intervals, best at the top."""
    entries = sorted(ratings["agents"].items(), key=lambda item: item[1]["elo"])
    if not entries:
        return None
    figure = Figure(figsize=(8, max(2.5, 0.5 * len(entries) + 1)))
    axes = figure.add_subplot()
    elo = np.array([e["elo"] for _, e in entries])
    low = np.array([e["ci95"][0] for _, e in entries])
    high = np.array([e["ci95"][1] for _, e in entries])
    axes.errorbar(elo, range(len(entries)), xerr=[elo - low, high - elo], fmt="o", capsize=4)
    axes.set_yticks(range(len(entries)))
    axes.set_yticklabels([short[name] for name, _ in entries], fontsize=9)
    axes.axvline(0, color="#888", linewidth=0.8)
    axes.set_xlabel(f"rating (Elo scale, {ratings['anchor']}), 95% interval")
    axes.set_title("Bradley-Terry ratings")
    axes.grid(axis="x", alpha=0.3)
    return to_png(figure)


def learning_curves(curves: dict[str, list[dict[str, float]]], units: dict[str, str],
                    short: dict[str, str]) -> str | None:
    """Value kept against training, one panel per trained agent, each on its own x axis (a GA's
    generations, a Q-learner's episodes)."""
    if not curves:
        return None
    figure = Figure(figsize=(min(12.0, 4.2 * len(curves)), 3.8))
    panels = figure.subplots(1, len(curves), squeeze=False)[0]
    for axes, (spec, points) in zip(panels, curves.items()):
        axes.plot([p["step"] for p in points], [p["value_kept"] for p in points], marker="o", markersize=4)
        axes.set_xlabel(units.get(spec, "training step"))
        axes.set_ylim(-0.02, 1.02)
        axes.set_title(short[spec], fontsize=10)
        axes.grid(alpha=0.3)
    panels[0].set_ylabel("value kept")
    figure.suptitle("Learning curves")
    return to_png(figure)


def fitness_by_generation(curves: dict[str, list[dict[str, float]]], short: dict[str, str]) -> str | None:
    """A GA's best and mean fitness against its generations, per GA artifact (report 001's Figure 1)."""
    if not curves:
        return None
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot()
    for spec, points in curves.items():
        generations = [p["generation"] for p in points]
        line, = axes.plot(generations, [p["best"] for p in points], marker=".", label=f"{short[spec]}: best")
        axes.plot(generations, [p["mean"] for p in points], linestyle="--", color=line.get_color(),
                  label=f"{short[spec]}: mean")
    axes.set_xlabel("generation")
    axes.set_ylabel("fitness")
    axes.set_title("GA fitness by generation")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return to_png(figure)
