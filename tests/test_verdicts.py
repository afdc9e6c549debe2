"""The seeds' verdict rule (validation/course.py, docs/validation.md): their rates against ours
across win, draw and loss together, Holm at 0.05; two-sample (Newcombe's hybrid score interval)
where their games are given, ours against their rates as points where not, their sample against
the exact rates where known; a range consistent when some rate in it is; not comparable where an
agent of theirs was never printed. The references here are written out by hand (Wilson,
Newcombe's interval, the binomial law), with the standard library's normal distribution."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from retrograde.games.capabilities import AgentRef, Figure
from retrograde.validation import course


def wilson(k: float, n: float, z: float) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float) -> tuple[float, float]:
    """Newcombe (1998), method 10: the interval of p1 - p2 from the two Wilson intervals."""
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson(k1, n1, z), wilson(k2, n2, z)
    return p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def quantile(p: float) -> float:
    """The normal quantile whose two-sided tail is p."""
    return NormalDist().inv_cdf(1 - p / 2)


#: Newcombe's (1998) worked examples, Table II, method 10 at 95%: (k1, n1, k2, n2, low, high).
NEWCOMBE_TABLE = [(56, 70, 48, 80, 0.0524, 0.3339), (9, 10, 3, 10, 0.1705, 0.8090),
                  (5, 56, 0, 29, -0.0381, 0.1926), (0, 10, 0, 20, -0.1611, 0.2775), (0, 10, 0, 10, -0.2775, 0.2775)]


@pytest.mark.parametrize("k1, n1, k2, n2, low, high", NEWCOMBE_TABLE)
def test_the_two_sample_p_value_inverts_newcombes_interval(k1, n1, k2, n2, low, high):
    assert newcombe(k1, n1, k2, n2, 1.959964) == pytest.approx((low, high), abs=1e-4)  # the reference itself
    p = course.newcombe_p(k1 / n1, n1, k2 / n2, n2)
    assert (p <= 0.05) == (low > 0 or high < 0)  # significant exactly where the published interval excludes 0
    if 0 < p < 1:  # the interval at the p-value's quantile touches 0
        wider, narrower = newcombe(k1, n1, k2, n2, quantile(p) * 1.0001), newcombe(k1, n1, k2, n2, quantile(p) * 0.9999)
        assert wider[0] <= 0 <= wider[1] and not narrower[0] <= 0 <= narrower[1]


@pytest.mark.parametrize("n1, n2, rate", [(20, 20, 0.3), (30, 15, 0.5), (25, 40, 0.1)])
def test_the_two_sample_test_holds_its_level_by_exact_enumeration(n1, n2, rate):
    """Under equal rates, the probability (over every pair of counts, by the binomial law) that one
    outcome's test finds a difference at 0.05 stays near 0.05."""
    def law(k, n):
        return math.comb(n, k) * rate ** k * (1 - rate) ** (n - k)

    size = sum(law(k1, n1) * law(k2, n2) for k1 in range(n1 + 1) for k2 in range(n2 + 1)
               if course.newcombe_p(k1 / n1, n1, k2 / n2, n2) <= 0.05)
    assert size <= 0.06


@pytest.mark.parametrize("k, n, null", [(153, 200, 0.80), (153, 200, 0.70), (3, 100, 0.0), (0, 100, 0.0),
                                        (100, 100, 1.0), (60, 100, 0.5)])
def test_the_one_sample_p_value_inverts_wilsons_interval(k, n, null):
    p = course.score_p(k / n, n, null)
    if null in (0.0, 1.0):
        assert p == (1.0 if k / n == null else 0.0)  # a rate of 0 or 1 allows no other
        return
    low, high = wilson(k, n, quantile(p) * 1.0001)
    assert low <= null <= high
    low, high = wilson(k, n, quantile(p) * 0.9999)
    assert not low <= null <= high


def test_holm_steps_down_across_the_outcomes():
    assert course.holm({"win": 0.01, "draw": 0.02, "loss": 0.04}) == ["win", "draw", "loss"]
    assert course.holm({"win": 0.01, "draw": 0.03, "loss": 0.04}) == ["win"]  # 0.03 > 0.05 / 2
    assert course.holm({"win": 0.02, "draw": 0.03, "loss": 0.04}) == []  # 0.02 > 0.05 / 3
    assert course.holm({"win": 0.02, "loss": 0.03}) == ["win", "loss"]  # two outcomes given: 0.025, then 0.05


THEIRS = AgentRef("their rule", "rules", (("preset", "000"), ("rule", "fixed")), text="rules:rule=largest-min")
RANDOM = AgentRef("pure_random", "random", (("preset", "000"),))


def figure(win, draw, loss, games, agent=THEIRS, opponent=RANDOM, notes=()):
    return course.ReportFigure("nim", Figure({"heaps": [1, 3, 5, 7]}, agent, opponent, "first", win, loss, draw,
                                             games, "000_x.txt, Table 9", notes))


def played(found: course.ReportFigure, *counts, exact=None) -> dict:
    """The row of `found` whose versions gave `counts` ([wins, draws, losses] each)."""
    theirs = found.theirs()
    evidence = [course.version(label, agent, opponent, count, theirs, exact=exact)
                for (label, agent, opponent), count in zip(found.versions(), counts)]
    return course.row(found, evidence)


def test_a_two_sample_verdict_uses_their_number_of_games():
    # Report 003's fixed rule: their 82.5% of 200 against our 76% of 200 is a sampling miss.
    row = played(figure(0.825, 0.0, 0.175, 200), (152, 0, 48), (152, 0, 48))
    assert row["verdict"] == "consistent" and row["test"]["kind"] == course.TWO_SAMPLE
    assert row["test"]["p"]["win"] == pytest.approx(course.newcombe_p(0.76, 200, 0.825, 200))
    # The same gap over 10,000 games of theirs and ours is a difference.
    row = played(figure(0.825, 0.0, 0.175, 10000), (7600, 0, 2400), (7600, 0, 2400))
    assert row["verdict"] == "differs" and row["test"]["differs"] == ["win", "loss"]


def test_a_figure_without_their_games_tests_ours_against_their_rates_as_points():
    found = figure(1.0, 0.0, 0.0, None)
    row = played(found, (199, 1, 0), (200, 0, 0))
    assert row["verdict"] == "differs" and row["test"]["kind"] == course.OURS_POINT
    assert row["test"]["differs"] == ["win", "draw"]
    assert "not comparable" not in row["why"] and "consistent as their text names them" in row["why"]
    half = played(figure(0.5, 0.0, 0.5, None), (108, 0, 92), (108, 0, 92))
    assert half["verdict"] == "consistent"  # 54% of 200 against a point of 50%: p = 0.26


def test_a_published_range_is_consistent_when_some_rate_in_it_is():
    ours = (150, 0, 50)  # 75%
    inside = played(figure((0.70, 0.80), 0.0, (0.20, 0.30), 100), ours, ours)
    assert inside["verdict"] == "consistent" and inside["test"]["p"]["win"] == 1.0
    assert inside["theirs"]["win"] == [0.70, 0.80]
    # Tested at the range's nearest rate (0.90): as far off as a point of 0.90 would be.
    far = played(figure((0.90, 0.95), 0.0, (0.05, 0.10), 1000), ours, ours)
    assert far["verdict"] == "differs"
    assert far["test"]["p"]["win"] == pytest.approx(course.newcombe_p(0.75, 200, 0.90, 1000))
    assert "90.0%–95.0%" in course.table([far])[1][0][6]


def test_an_agent_never_printed_makes_its_row_not_comparable_naming_it():
    mcts = AgentRef("MCTS (a colleague's)", "mcts", unprinted="a colleague's MCTS, not printed")
    row = played(figure(0.95, None, 0.05, None, agent=AgentRef("adaptive", "minimax"), opponent=mcts), (2, 0, 398))
    assert row["verdict"] == "not comparable"
    assert "their MCTS (a colleague's) was never printed" in row["why"] and "a colleague's MCTS" in row["why"]
    assert "our stand-in's (minimax vs mcts)" in row["why"]
    assert row["ours"]["win"] == 2 / 400 and row["evidence"][0]["ours"]["games"] == 400


def test_a_cause_is_named_only_where_another_version_played_beside_it_is_consistent():
    found = figure(0.80, 0.0, 0.20, 100)
    text_holds = played(found, (100, 0, 100), (160, 0, 40))
    assert text_holds["verdict"] == "differs"
    assert "but is consistent as their text names them (rules:rule=largest-min vs random:preset=000)" in \
        text_holds["why"]
    code_holds = played(found, (160, 0, 40), (100, 0, 100))
    assert code_holds["verdict"] == "consistent"
    assert code_holds["why"].startswith("Consistent as their code played them, and not as their text names them")
    both = played(found, (160, 0, 40), (158, 0, 42))
    assert both["why"] is None
    neither = played(figure(0.80, 0.0, 0.20, 100, notes=("its optimal_strategy is not printed; here ours",)),
                     (100, 0, 100), (90, 0, 110))
    assert neither["why"].startswith("Unexplained: differs as their code played them (their win 80.0% vs ours 50.0%")
    assert "Tried: as their code played them (rules:preset=000,rule=fixed vs random:preset=000): 50.0% / 0.0% / " \
           "50.0% over 200 games" in neither["why"]
    assert "as their text names them (rules:rule=largest-min vs random:preset=000): 45.0%" in neither["why"]
    assert "rebuilt by us (our rebuild may be what differs): its optimal_strategy is not printed" in neither["why"]
    for text in (text_holds["why"], code_holds["why"], neither["why"]):
        assert "differ from what their text says" not in text and "matches their text, not their code" not in text


def test_evidence_holds_every_version_with_its_rates_intervals_and_test():
    row = played(figure(0.80, 0.0, 0.20, 100), (160, 0, 40), (100, 0, 100))
    assert [entry["version"] for entry in row["evidence"]] == [course.AS_CODE, course.AS_TEXT]
    text = row["evidence"][1]
    assert text["agent"] == "rules:rule=largest-min" and text["ours"]["games"] == 200
    assert text["ours"]["win_ci95"] == pytest.approx(wilson(100, 200, 1.959964), abs=1e-6)
    assert text["consistent"] is False and text["test"]["differs"] == ["win", "loss"]
    head, cells = course.evidence_table(row)
    assert len(cells) == 2 and cells[1][-1] == "no" and cells[0][-1] == "yes"
    # A figure whose text names no agent otherwise has one version, as the report gives it.
    plain = figure(0.80, 0.0, 0.20, 100, agent=AgentRef("theirs", "rules", (("rule", "fixed"),)))
    assert [label for label, *_ in plain.versions()] == [course.AS_GIVEN]


def test_exact_rates_test_their_sample_and_check_ours():
    # The exact value under the printed code is 74.0%: their 70% of 100 is consistent with it.
    exact = {"win": 0.74, "draw": 0.0, "loss": 0.26}
    row = played(figure(0.70, 0.0, 0.30, 100), (147, 0, 53), (147, 0, 53), exact=exact)
    assert row["verdict"] == "consistent" and row["test"]["kind"] == course.THEIRS_EXACT
    assert row["exact"] == exact and row["test"]["p"]["win"] == pytest.approx(course.score_p(0.70, 100, 0.74))
    assert row["evidence"][0]["our_check"]["differs"] == []
    # Our games far from the exact rates are a fault of ours, and the row says so.
    wrong = played(figure(0.70, 0.0, 0.30, 100), (100, 0, 100), (100, 0, 100), exact=exact)
    assert wrong["verdict"] == "consistent"
    assert wrong["why"] == ("Our games as their code played them are off the exact rates (win 50.0% vs exactly 74.0%, "
                            "p 1e-14, loss 50.0% vs exactly 26.0%, p 1e-14; Holm at 0.05): the check of our play "
                            "fails here. Our games as their text names them are off the exact rates (win 50.0% vs "
                            "exactly 74.0%, p 1e-14, loss 50.0% vs exactly 26.0%, p 1e-14; Holm at 0.05): the "
                            "check of our play fails here.")


def test_the_summary_counts_each_verdict_and_the_figures_not_played():
    rows = [{"verdict": "consistent"}, {"verdict": "not run"}, {"verdict": "differs"}, {"verdict": "consistent"}]
    assert course.summary(rows, [{}]) == ("4 published figures played: 2 consistent, 1 differs, 0 not comparable, "
                                          "1 not run; 1 not played by any match (listed with why)")


def test_an_outcome_neither_side_shows_leaves_the_family_and_complements_are_one_comparison():
    """Nim has no draws: their 0% and ours cannot differ, and win and loss, each the other's
    complement, are one comparison at 0.05 (not three at 0.05/3); a draw the report leaves out
    leaves win and loss two comparisons (the draw unknown, neither is the other's complement)."""
    p = course.newcombe_p(136 / 200, 200, 1.0, 10)
    assert 0.05 / 2 < p < 0.05
    row = played(figure(1.0, 0.0, 0.0, 10), (136, 0, 64), (136, 0, 64))
    assert row["verdict"] == "differs" and row["test"]["differs"] == ["win", "loss"]
    assert played(figure(1.0, None, 0.0, 10), (136, 0, 64), (136, 0, 64))["verdict"] == "consistent"
    # A draw one side shows stays in the family: three comparisons, Holm from 0.05/3.
    assert played(figure(1.0, 0.0, 0.0, 10), (136, 1, 63), (136, 1, 63))["verdict"] == "consistent"
