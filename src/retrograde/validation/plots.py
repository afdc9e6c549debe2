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

DPI = 100
VALUE_COLOURS = {"win": "#2e7d32", "draw": "#9e9e9e", "loss": "#c62828"}


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _tier_axis(axes, tiers: Sequence[str]) -> None:
    axes.set_xticks(range(len(tiers)))
    axes.set_xticklabels(tiers, rotation=90, fontsize=7 if len(tiers) > 30 else 9)
    axes.set_xlim(-0.6, len(tiers) - 0.4)


def _width(items: int) -> float:
    return min(24.0, max(8.0, 0.16 * items))


def blunder_rate_by_tier(tiers: Sequence[str], agents: dict[str, Any]) -> str | None:
    """Per agent, the share of positions of each tier whose value its move gives away."""
    measured = [tier for tier in tiers if any(tier in a["by_tier"] for a in agents.values())]
    if not measured:
        return None
    figure = Figure(figsize=(_width(len(measured)), 4.5))
    axes = figure.add_subplot()
    for spec, entry in agents.items():
        rates = [np.nan if entry["by_tier"].get(t, {}).get("value_kept") is None
                 else 1 - entry["by_tier"][t]["value_kept"] for t in measured]
        axes.plot(range(len(measured)), rates, marker="o", markersize=3, label=spec)
    _tier_axis(axes, measured)
    axes.set_ylabel("blunder rate (value given away)")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title("Blunder rate by tier")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(figure)


def values_by_tier(tier_counts: dict[str, dict[str, int]]) -> str | None:
    """Win/draw/loss shares (side to move's view) of each tier: the store's positions, or the sampled ones."""
    tiers = [t for t, c in tier_counts.items() if c["win"] + c["draw"] + c["loss"]]
    if not tiers:
        return None
    figure = Figure(figsize=(_width(len(tiers)), 4.5))
    axes = figure.add_subplot()
    bottom = np.zeros(len(tiers))
    for value in ("win", "draw", "loss"):
        share = np.array([tier_counts[t][value] / max(1, sum(tier_counts[t][v] for v in VALUE_COLOURS))
                          for t in tiers])
        axes.bar(range(len(tiers)), share, bottom=bottom, color=VALUE_COLOURS[value], label=value, width=0.85)
        bottom += share
    _tier_axis(axes, tiers)
    axes.set_ylabel("share of the tier's positions")
    axes.set_title("Values of the positions by tier (side to move)")
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(figure)


def remoteness_histogram(agents: dict[str, Any]) -> str | None:
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
                 width=width, label=spec)
    axes.set_yscale("log")
    axes.set_xlabel("plies beyond the fastest win (won positions where the win was kept)")
    axes.set_ylabel("share of positions (log)")
    axes.set_title("Remoteness given away")
    axes.legend(fontsize=8)
    return _png(figure)


def tournament_heatmap(specs: Sequence[str], tournaments: Sequence[dict[str, Any]]) -> str | None:
    """First mover's score ((wins + draws/2) / games), row agent first, per kind of start."""
    starts = list(dict.fromkeys(entry.get("start", "initial") for entry in tournaments))
    if not starts:
        return None
    at = {spec: i for i, spec in enumerate(specs)}
    size = max(4.0, 0.9 * len(specs) + 2)
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
        axes.set_xticklabels(specs, rotation=45, ha="right", fontsize=8)
        axes.set_yticks(range(len(specs)))
        axes.set_yticklabels(specs, fontsize=8)
        axes.set_xlabel("second mover")
        if k == 0:
            axes.set_ylabel("first mover")
        axes.set_title(f"first mover's score, from the {'start position' if start == 'initial' else 'openings'}")
        figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
    return _png(figure)


def rating_chart(ratings: dict[str, Any]) -> str | None:
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
    axes.set_yticklabels([name for name, _ in entries], fontsize=9)
    axes.axvline(0, color="#888", linewidth=0.8)
    axes.set_xlabel(f"rating (Elo scale, {ratings['anchor']}), 95% interval")
    axes.set_title("Bradley-Terry ratings")
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


def learning_curves(curves: dict[str, list[dict[str, float]]]) -> str | None:
    """Value kept against training step, per trained agent that recorded a curve."""
    if not curves:
        return None
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot()
    for spec, points in curves.items():
        axes.plot([p["step"] for p in points], [p["value_kept"] for p in points], marker=".", label=spec)
    axes.set_xlabel("training step")
    axes.set_ylabel("value kept")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title("Learning curves")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return _png(figure)


def fitness_by_generation(curves: dict[str, list[dict[str, float]]]) -> str | None:
    """A GA's best and mean fitness against its generations, per GA artifact (report 001's Figure 1)."""
    if not curves:
        return None
    figure = Figure(figsize=(8, 4.5))
    axes = figure.add_subplot()
    for spec, points in curves.items():
        generations = [p["generation"] for p in points]
        line, = axes.plot(generations, [p["best"] for p in points], marker=".", label=f"{spec}: best")
        axes.plot(generations, [p["mean"] for p in points], linestyle="--", color=line.get_color(),
                  label=f"{spec}: mean")
    axes.set_xlabel("generation")
    axes.set_ylabel("fitness")
    axes.set_title("GA fitness by generation")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return _png(figure)
