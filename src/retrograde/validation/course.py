"""The course reports' published match figures set against ours: one row a published table line
(one agent, opponent and seat), the versions of the match we played (`evidence`), each with its
rates and 95% Wilson intervals, and a verdict (`retrograde run seeds`, which plays the matches and
writes the rows; docs/validation.md states the rule).

The verdict tests the difference between their rates and ours across win, draw and loss together:
each outcome the report gives is tested, and the three tests are held to a family-wise level of
`ALPHA` by Holm's correction. Which test depends on what is known:

- their number of games given: a two-sample test of their rate against ours, Newcombe's hybrid
  score interval of the difference (its p-value: the least level whose interval excludes 0);
- their number of games not given: their sampling error is unknown, so our sample is tested
  against their rate as a point (the score test that Wilson's interval inverts);
- the exact rate known (`exact`, a pairing whose randomness can be enumerated) and their number of
  games given: their sample is tested against the exact rate, and ours against it as a check of
  our play.

An outcome neither side shows (Nim's draws) leaves the family; where win and loss are left of the
three, they are one comparison (each the other's complement).

A published range (low, high) is a range: the test uses the rate in it nearest the other side's,
so a range is consistent when some rate in it is. A verdict is `consistent`, `differs`,
`not comparable` (an agent or opponent of theirs was never printed and cannot be rebuilt: the
rates shown are our stand-in's) or `not run` (a store this machine cannot solve, an artifact not
trained yet). A row that differs names a cause only where another version played side by side is
consistent; otherwise its why is "unexplained", with what was tried and what of theirs was not
printed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from retrograde.games.capabilities import AgentRef, Figure, Rate, Unplayed
from retrograde.spec import AgentSpec
from retrograde.validation.rating import wilson

#: Games a seat where a report gives no count (and the least we play where it gives fewer).
GAMES_A_SEAT = 200
OUTCOMES = ("win", "draw", "loss")
#: The family-wise level of a row's test (its outcomes together, Holm's correction).
ALPHA = 0.05
CONSISTENT, DIFFERS, NOT_COMPARABLE, NOT_RUN = "consistent", "differs", "not comparable", "not run"
VERDICTS = (CONSISTENT, DIFFERS, NOT_COMPARABLE, NOT_RUN)
#: The tests, by what is known (`test`).
TWO_SAMPLE = "theirs against ours, two-sample (Newcombe's hybrid score interval of the difference)"
THEIRS_EXACT = "their sample against the exact rates (score test)"
OURS_POINT = "our sample against their rates as points: their games not given (score test)"
#: The versions of a match a row plays (`evidence`): the agents as the report's code played them
#: (our rebuild where its code is printed), and as its text names them where that differs.
AS_CODE, AS_GIVEN, AS_TEXT = "as their code played them", "as the report gives them", "as their text names them"
#: The words in a figure's notes that mark a part of theirs we rebuilt because it was not printed.
UNPRINTED_MARK = "not printed"


def spec_of(ref: AgentRef) -> str:
    """Our spec of a report's agent."""
    return str(AgentSpec(ref.name, ref.options))


@dataclass(frozen=True)
class ReportFigure:
    """A published figure with where it is printed: the report's file and the place in it."""

    game: str
    figure: Figure

    @property
    def seed(self) -> str:
        return self.figure.source.partition(",")[0].strip()

    @property
    def where(self) -> str:
        return self.figure.source.partition(",")[2].strip()

    @property
    def agent(self) -> str:
        return spec_of(self.figure.agent)

    @property
    def opponent(self) -> str:
        return spec_of(self.figure.opponent)

    @property
    def games(self) -> int:
        """Games we play: at least the report's, at least `GAMES_A_SEAT` a seat (both seats'
        together where the report drew who started); over many instances, one a seat each."""
        if self.figure.instances:
            return 2 * len(self.figure.instances)
        least = GAMES_A_SEAT * (2 if self.figure.seat == "either" else 1)
        return max(self.figure.games or 0, least)

    def versions(self, agent: Any = None, opponent: Any = None) -> list[tuple[str, Any, Any]]:
        """(label, agent, opponent) of each version of the match to play: the agents as the
        report's code played them (`agent`, `opponent`: what plays each, by default our spec of
        it; a trained agent's artifact in `run seeds`), then, where its text names either
        otherwise, as its text names them."""
        refs = self.figure.agent, self.figure.opponent
        code = (self.agent if agent is None else agent, self.opponent if opponent is None else opponent)
        if not any(ref.text for ref in refs):
            return [(AS_GIVEN, *code)]
        return [(AS_CODE, *code), (AS_TEXT, *(ref.text or spec for ref, spec in zip(refs, code)))]

    @property
    def unprinted(self) -> list[str]:
        """Why each of the report's agents that was never printed cannot be compared."""
        return [f"their {ref.label} was never printed and cannot be rebuilt ({ref.unprinted})"
                for ref in (self.figure.agent, self.figure.opponent) if ref.unprinted]

    def theirs(self) -> dict[str, Any]:
        figure = self.figure
        return {"win": _json_rate(figure.win), "draw": _json_rate(figure.draw), "loss": _json_rate(figure.loss),
                "games": figure.games}


def _json_rate(rate: Rate) -> float | list[float] | None:
    return list(rate) if isinstance(rate, tuple) else rate


def ours(wins: int, draws: int, losses: int, value_kept: float | None) -> dict[str, Any]:
    """Our rates from the seed agent's view, with their 95% Wilson intervals."""
    games = wins + draws + losses
    counts = {"win": wins, "draw": draws, "loss": losses}
    result: dict[str, Any] = {outcome: counts[outcome] / games for outcome in OUTCOMES}
    result["games"] = games
    for outcome in OUTCOMES:
        result[f"{outcome}_ci95"] = list(wilson(counts[outcome], games))
    result["value_kept"] = value_kept
    return result


def _nearest(rate: float | list[float], to: float) -> float:
    """A published rate as the point a test uses: a range's rate nearest `to`."""
    if isinstance(rate, list):
        return min(max(to, rate[0]), rate[1])
    return rate


def score_p(rate: float, games: float, null: float) -> float:
    """Two-sided p-value of the score test of a sample's `rate` over `games` against the
    proportion `null` (the test Wilson's interval inverts); a null of 0 or 1 allows no other rate."""
    if null in (0.0, 1.0) or games <= 0:
        return 1.0 if rate == null or games <= 0 else 0.0
    z = abs(rate - null) / math.sqrt(null * (1 - null) / games)
    return math.erfc(z / math.sqrt(2))


def newcombe_p(rate: float, games: float, other: float, other_games: float) -> float:
    """Two-sided p-value of the difference of two independent proportions by Newcombe's hybrid
    score interval (his method 10: the two Wilson intervals combined): the least level at which
    the interval of `rate - other` excludes 0, found by bisection on the normal quantile (the
    interval widens as the quantile grows)."""
    if rate == other:
        return 1.0

    def holds(z: float) -> bool:
        low1, high1 = wilson(rate * games, games, z)
        low2, high2 = wilson(other * other_games, other_games, z)
        difference = rate - other
        return (difference - math.hypot(rate - low1, high2 - other) <= 0
                <= difference + math.hypot(high1 - rate, other - low2))

    low, high = 0.0, 40.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if holds(middle) else (middle, high)
    return math.erfc(high / math.sqrt(2))


def holm(p: dict[str, float], alpha: float = ALPHA) -> list[str]:
    """The outcomes Holm's step-down procedure finds different at family-wise level `alpha`."""
    rejected = []
    for rank, (outcome, value) in enumerate(sorted(p.items(), key=lambda item: (item[1], OUTCOMES.index(item[0])))):
        if value > alpha / (len(p) - rank):
            break
        rejected.append(outcome)
    return [outcome for outcome in OUTCOMES if outcome in rejected]


def test(theirs: dict[str, Any], our: dict[str, Any], exact: dict[str, float] | None = None) -> dict[str, Any]:
    """The test of one version of a row: {"kind", "alpha", "p": {outcome: p-value}, "differs": the
    outcomes Holm's correction finds different}, over the outcomes the report gives. `theirs` as
    `ReportFigure.theirs`, `our` as `ours`, `exact` the pairing's exact rates where known."""
    given = [outcome for outcome in OUTCOMES if theirs[outcome] is not None]
    games = our["games"]
    if exact is not None and theirs["games"]:
        kind = THEIRS_EXACT
        pairs = {o: (_nearest(theirs[o], exact[o]), exact[o]) for o in given}
        p = {o: score_p(rate, theirs["games"], null) for o, (rate, null) in pairs.items()}
    else:
        kind = TWO_SAMPLE if theirs["games"] else OURS_POINT
        pairs = {o: (_nearest(theirs[o], our[o]), our[o]) for o in given}
        p = {o: newcombe_p(our[o], games, rate, theirs["games"]) if theirs["games"] else score_p(our[o], games, rate)
             for o, (rate, _) in pairs.items()}
    # An outcome neither side shows (Nim's draws) cannot differ: left out of the family (Tarone).
    # Where win and loss are left of three given, each is the other's complement: one comparison.
    family = [o for o in given if pairs[o] != (0.0, 0.0)]
    if len(family) == 2 and len(given) == 3:
        differs = family if holm({family[0]: p[family[0]]}) else []
    else:
        differs = holm({o: p[o] for o in family})
    return {"kind": kind, "alpha": ALPHA, "p": p, "differs": differs}


def version(label: str, agent: str, opponent: str, counts: Sequence[int], theirs: dict[str, Any],
            value_kept: float | None = None, exact: dict[str, float] | None = None) -> dict[str, Any]:
    """One version of a row's match as the row's evidence holds it: what played, our rates with
    their intervals, the exact rates where known, the test against their figure, and whether it
    is consistent with it; with exact rates, whether our games agree with them (`our_check`, a
    check of our play)."""
    our = ours(*counts, value_kept)
    found = test(theirs, our, exact)
    result = {"version": label, "agent": agent, "opponent": opponent, "ours": our, "exact": exact, "test": found,
              "consistent": not found["differs"]}
    if exact is not None:
        check = {o: score_p(our[o], our["games"], exact[o]) for o in OUTCOMES}
        result["our_check"] = {"p": check, "differs": holm(check)}
    return result


def _rate(rate: float | list[float] | None) -> str:
    if rate is None:
        return "?"
    if isinstance(rate, list):
        return f"{rate[0]:.1%}–{rate[1]:.1%}"
    return f"{rate:.1%}"


def _rates(rates: dict[str, Any] | None) -> str:
    if rates is None:
        return "-"
    return " / ".join(_rate(rates[outcome]) for outcome in OUTCOMES)


def _least_p(found: dict[str, Any]) -> str:
    """The test's least p-value and its outcome: "0.003 (win)"."""
    outcome, value = min(found["p"].items(), key=lambda item: item[1])
    return f"{value:.2g} ({outcome})"


def _tried(entry: dict[str, Any]) -> str:
    """A version in a sentence: what played and what it gave."""
    return (f"{entry['version']} ({entry['agent']} vs {entry['opponent']}): {_rates(entry['ours'])} over "
            f"{entry['ours']['games']:,} games" + (f", exactly {_rates(entry['exact'])}" if entry["exact"] else "")
            + (f", least p {_least_p(entry['test'])}" if entry["test"]["p"] else ""))


def _gap(theirs: dict[str, Any], entry: dict[str, Any]) -> str:
    """Which outcomes of a version differ from their figure, and by which test."""
    found, our = entry["test"], entry["ours"]
    shown = entry["exact"] if found["kind"] == THEIRS_EXACT else our
    parts = [f"their {o} {_rate(theirs[o])} vs {'exactly' if shown is entry['exact'] else 'ours'} {shown[o]:.1%} "
             f"(p {found['p'][o]:.2g})" for o in found["differs"]]
    return f"{', '.join(parts)}; {found['kind']}, Holm at {found['alpha']:g}"


def why(figure: ReportFigure, evidence: list[dict[str, Any]]) -> str | None:
    """Why a played row's verdict is what it is, from the evidence alone: a cause only where one
    version is consistent with their figure and another is not; else "unexplained", with what
    was tried and what of theirs we rebuilt because it was not printed."""
    theirs, (main, *others) = figure.theirs(), evidence
    checks = [f"Our games {entry['version']} are off the exact rates ("
              + ", ".join(f"{o} {entry['ours'][o]:.1%} vs exactly {entry['exact'][o]:.1%}, p "
                          f"{entry['our_check']['p'][o]:.2g}" for o in entry["our_check"]["differs"])
              + f"; Holm at {ALPHA:g}): the check of our play fails here." for entry in evidence
              if entry.get("our_check", {}).get("differs")]
    held = [entry for entry in others if entry["consistent"]]
    if main["consistent"]:
        missed = [entry for entry in others if not entry["consistent"]]
        found = ([f"Consistent {main['version']}, and not {entry['version']} ({entry['agent']} vs "
                  f"{entry['opponent']}: {_gap(theirs, entry)}): that difference matters to their figure."
                  for entry in missed])
        return " ".join([*found, *checks]) or None
    if held:
        found = [f"Differs {main['version']} ({_gap(theirs, main)}), but is consistent {entry['version']} "
                 f"({entry['agent']} vs {entry['opponent']}): their figure comes from that version." for entry in held]
    else:
        rebuilt = [note for note in figure.figure.notes if UNPRINTED_MARK in note]
        found = [f"Unexplained: differs {main['version']} ({_gap(theirs, main)}). Tried: "
                 + "; ".join(_tried(entry) for entry in evidence) + "."
                 + (f" Not printed, so rebuilt by us (our rebuild may be what differs): {'; '.join(rebuilt)}."
                    if rebuilt else "")]
    return " ".join([*found, *checks])


def row(figure: ReportFigure, evidence: list[dict[str, Any]] | None, why_not_run: str | None = None
        ) -> dict[str, Any]:
    """A report.json row: `evidence` the versions played (`version`, the first as the report's code
    or account plays them), None where the row is not run (`why_not_run` says why). The row's
    rates, exact rates and test are its first version's; its agent and opponent are the specs
    that played that version."""
    theirs = figure.theirs()
    main = evidence[0] if evidence else None
    if main is None:
        found, reason = NOT_RUN, why_not_run
    elif figure.unprinted:
        found = NOT_COMPARABLE
        reason = "; ".join(figure.unprinted) + f". The rates shown are our stand-in's ({main['agent']} vs " \
                                               f"{main['opponent']})."
    else:
        found, reason = (CONSISTENT if main["consistent"] else DIFFERS), why(figure, evidence)
    return {"seed": figure.seed, "where": figure.where, "game": figure.game, "params": figure.figure.params,
            "agent": main["agent"] if main else figure.agent, "opponent": main["opponent"] if main else figure.opponent,
            "seat": figure.figure.seat, "their_agents": f"{figure.figure.agent.label} vs {figure.figure.opponent.label}",
            "theirs": theirs, "ours": main["ours"] if main else None, "exact": main["exact"] if main else None,
            "test": main["test"] if main else None, "verdict": found, "why": reason,
            "notes": list(figure.figure.notes), "evidence": evidence or []}


#: The column saying why a row's verdict is what it is.
WHY = "why"


def table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The rows as a table: head and cells."""
    head = ["seed", "where", "game", "agent", "opponent", "seat", "theirs W/D/L", "their games", "ours W/D/L",
            "our games", "exact W/D/L", "least p", "value kept", "verdict", WHY]
    cells = []
    for found in rows:
        our = found["ours"]
        kept = our["value_kept"] if our else None
        cells.append([found["seed"][:3], found["where"], found["game"], found["agent"], found["opponent"],
                      found["seat"], _rates(found["theirs"]), str(found["theirs"]["games"] or "not given"), _rates(our),
                      str(our["games"]) if our else "-", _rates(found.get("exact")),
                      _least_p(found["test"]) if found.get("test") and found["test"]["p"] else "-",
                      "-" if kept is None else f"{kept:.1%}", found["verdict"], found["why"] or ""])
    return head, cells


def evidence_table(found: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """A row's evidence as a table: each version played, with its rates, intervals and test."""
    head = ["version", "agent", "opponent", "ours W/D/L", "95% intervals", "games", "exact W/D/L", "test",
            "least p", "consistent"]
    return head, [[entry["version"], entry["agent"], entry["opponent"], _rates(entry["ours"]),
                   " / ".join(f"[{entry['ours'][f'{o}_ci95'][0]:.1%}, {entry['ours'][f'{o}_ci95'][1]:.1%}]"
                              for o in OUTCOMES),
                   str(entry["ours"]["games"]), _rates(entry["exact"]), entry["test"]["kind"],
                   _least_p(entry["test"]) if entry["test"]["p"] else "-", "yes" if entry["consistent"] else "no"]
                  for entry in found["evidence"]]


def unplayed_rows(game: str, unplayed: Sequence[Unplayed]) -> list[dict[str, Any]]:
    """report.json's entries of the figures no match plays: where each is printed, what it says, why."""
    return [{"seed": entry.source.partition(",")[0].strip(), "where": entry.source.partition(",")[2].strip(),
             "game": game, "figure": entry.figure, "why": entry.why} for entry in unplayed]


def unplayed_table(entries: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The figures no match plays, as a table."""
    return (["seed", "where", "game", "figure", "why not played"],
            [[entry["seed"][:3], entry["where"], entry["game"], entry["figure"], entry["why"]] for entry in entries])


def summary(rows: list[dict[str, Any]], unplayed: Sequence[Any] = ()) -> str:
    """How many rows each verdict has, and how many figures no match plays."""
    counts = {name: sum(found["verdict"] == name for found in rows) for name in VERDICTS}
    return (f"{len(rows)} published figures played: " + ", ".join(f"{count} {name}" for name, count in counts.items())
            + f"; {len(unplayed)} not played by any match (listed with why)")


INTRO = ("Every match figure the course reports published for a game, rerun with the agents as the reports' "
         "code played them (`AGENT:preset=NUMBER` where ours differ), and again as their text names them where "
         "their code plays otherwise: each version is the row's evidence. The verdict tests their rates against "
         f"ours across win, draw and loss together at a family-wise {ALPHA:g} (Holm): two-sample (Newcombe) where "
         "they give their number of games, our sample against their rates as points where they do not, their "
         "sample against the exact rates where a pairing's randomness can be enumerated; a published range is "
         "consistent when some rate in it is (docs/validation.md). A row differs only as its first version "
         "(their code); a cause is named only where another version played beside it is consistent. Value "
         "kept is our exact audit of the report's agent on a sample of the solved store's positions, where there "
         "is a store.")
