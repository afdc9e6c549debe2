"""The report's figures (validation/plots.py): their widths read from the PNG's header, and what
they draw read from the matplotlib figure before it becomes a PNG."""

from __future__ import annotations

import base64
import struct

import matplotlib
import pytest

from retrograde.validation import plots


def _drawn(draw, monkeypatch):
    """The matplotlib figure a `plots` function draws (its PNG left unmade)."""
    figures = []
    monkeypatch.setattr(plots, "to_png", lambda figure: figures.append(figure) or "png")
    draw()
    return figures[0]


def test_the_blunder_plot_grows_with_its_tier_groups():
    """validation/plots.py: the plot is 0.3 in wide per tier group, 8 in at least and 12 in at
    most: 40 groups draw a plot 4 in wider than 10 groups do, of which the axes (the figure less
    matplotlib's side margins, which the tight crop trims) keep their share."""
    tiers = [f"t{i}" for i in range(40)]
    by_tier = {tier: {"positions": 1, "value_kept": 0.5} for tier in tiers}

    def width(groups: int) -> int:
        report = {"tiers": tiers[:groups], "agents": {"a": {"by_tier": by_tier}}}
        png = base64.b64decode(plots.blunder_rate_by_tier(report, {"a": "a"}))
        return struct.unpack(">I", png[16:20])[0]  # the PNG header's width

    axes_share = matplotlib.rcParams["figure.subplot.right"] - matplotlib.rcParams["figure.subplot.left"]
    assert width(40) - width(10) == pytest.approx((12 - 8) * plots.DPI * axes_share, abs=3)


def test_the_blunder_plot_draws_each_agent_per_tier_group(monkeypatch):
    """validation/plots.py: one line an agent, its blunder rate (1 - value kept) at each tier
    group, every one of the 10 groups labelled on the x axis, which is named after the groups."""
    tiers = [f"t{i}" for i in range(10)]
    report = {"tiers": tiers, "agents": {"a": {"by_tier": {t: {"positions": 1, "value_kept": i / 10}
                                                           for i, t in enumerate(tiers)}}}}
    axes = _drawn(lambda: plots.blunder_rate_by_tier(report, {"a": "a"}), monkeypatch).axes[0]
    assert len(axes.lines) == 1
    assert axes.lines[0].get_ydata() == pytest.approx([1 - i / 10 for i in range(10)])
    assert [label.get_text() for label in axes.get_xticklabels()] == tiers
    assert axes.get_xlabel() == "tier"


def test_learning_curves_get_a_panel_each():
    """validation/plots.py: the learning curves' figure is 4.2 inches wider for each trained agent
    (a panel each), at the plots' DPI; the tight crop of the saved PNG takes up to an inch of the
    spacing between panels."""
    curves = {"ga": [{"step": 1, "value_kept": 0.4}, {"step": 2, "value_kept": 0.5}],
              "rl": [{"step": 10, "value_kept": 0.3}, {"step": 20, "value_kept": 0.6}]}

    def width(specs):
        png = base64.b64decode(plots.learning_curves({spec: curves[spec] for spec in specs},
                                                     {"ga": "generations", "rl": "episodes"}, {"ga": "ga", "rl": "rl"}))
        return struct.unpack(">I", png[16:20])[0]  # the PNG header's width

    assert 3.2 * plots.DPI <= width(["ga", "rl"]) - width(["ga"]) <= 4.2 * plots.DPI


def test_the_given_away_plot_draws_the_counts():
    """validation/plots.py: the remoteness-given-away histogram draws each agent's counts: two
    reports that differ only in the counts give different pictures."""
    def picture(counts):
        return plots.remoteness_histogram({"a": {"remoteness_given_away": counts}}, {"a": "a"})

    assert picture({"0": 5, "2": 1}) != picture({"0": 1, "2": 5})


def test_the_given_away_bars_share_each_step_between_the_agents(monkeypatch):
    """validation/plots.py: two agents' bars are 0.4 wide each (0.8 of a step shared), side by
    side about each step."""
    agents = {"a": {"remoteness_given_away": {"0": 3, "1": 1}}, "b": {"remoteness_given_away": {"0": 1, "1": 1}}}
    axes = _drawn(lambda: plots.remoteness_histogram(agents, {"a": "a", "b": "b"}), monkeypatch).axes[0]
    assert [round(bar.get_width(), 6) for bar in axes.patches] == [0.4] * 4
    assert [round(bar.get_x(), 6) for bar in axes.patches] == [-0.4, 0.6, 0.0, 1.0]
