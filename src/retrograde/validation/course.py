"""The course reports' published match figures set against ours: one row a published table line
(one agent, opponent and seat), our rates with 95% Wilson intervals, and a verdict
(`retrograde run seeds`, which plays the matches and writes the rows).

A figure is reproduced when each rate it gives (win, draw, loss) lies inside our 95% Wilson
interval for that outcome. A row that is not says why, from the numbers: where the report gives
its number of games, whether its own interval overlaps ours (a small sample can explain the
gap) or not (the agents, opponents or rules differ from what its text says). Where the report's
code plays an agent otherwise than its text names it, the same games are played again with the
agents as named (`as_text`), and the row says which of the two gives the report's figure. A row
is "not run" only where it needs what cannot be had here (a store this machine cannot solve, a
trained agent of the report's that no artifact holds yet), and says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from retrograde.games.capabilities import AgentRef, Figure
from retrograde.spec import AgentSpec
from retrograde.validation.rating import wilson

#: Games a seat where a report gives no count (and the least we play where it gives fewer).
GAMES_A_SEAT = 200
OUTCOMES = ("win", "draw", "loss")
REPRODUCED, NOT_REPRODUCED, NOT_RUN = "reproduced", "not reproduced", "not run"


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

    def theirs(self) -> dict[str, Any]:
        figure = self.figure
        return {"win": figure.win, "draw": figure.draw, "loss": figure.loss, "games": figure.games}


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


def verdict(theirs: dict[str, Any], our: dict[str, Any]) -> tuple[str, str | None]:
    """(verdict, why) of a row we ran."""
    outside = [outcome for outcome in OUTCOMES if theirs[outcome] is not None
               and not our[f"{outcome}_ci95"][0] <= theirs[outcome] <= our[f"{outcome}_ci95"][1]]
    if not outside:
        return REPRODUCED, None
    reasons = []
    for outcome in outside:
        low, high = our[f"{outcome}_ci95"]
        reason = (f"their {outcome} rate {theirs[outcome]:.1%} lies outside our 95% interval "
                  f"[{low:.1%}, {high:.1%}] over {our['games']:,} games")
        if theirs["games"]:
            their_low, their_high = wilson(round(theirs[outcome] * theirs["games"]), theirs["games"])
            overlaps = their_low <= high and low <= their_high
            reason += (f"; their own interval over {theirs['games']:,} games, [{their_low:.1%}, {their_high:.1%}], "
                       + ("overlaps ours: their sample was small" if overlaps else
                          "does not overlap ours: their agents, opponents or rules differ from what their text says"))
        reasons.append(reason)
    return NOT_REPRODUCED, "; ".join(reasons) + "."


def text_sentence(theirs: dict[str, Any], as_text: dict[str, Any], reproduced: bool) -> str:
    """What the same games gave with the agents as the report's text names them."""
    text = as_text["ours"]
    holds = verdict(theirs, text)[0] == REPRODUCED
    return (f"As their text names the agents ({as_text['agent']} vs {as_text['opponent']}), our games give "
            f"{_rates(text)} over {text['games']:,}, which " +
            ("reproduces their figure too." if holds and reproduced else
             "does not: their code, not their text, made their figure." if reproduced else
             "reproduces it: their figure matches their text, not their code." if holds else
             "does not reproduce it either."))


def row(figure: ReportFigure, our: dict[str, Any] | None, why_not_run: str | None = None,
        as_text: dict[str, Any] | None = None) -> dict[str, Any]:
    """A report.json row (`our` None: not run, `why_not_run` says why); `as_text`: the same games
    with the agents as the report's text names them, which the row keeps and its why weighs."""
    theirs = figure.theirs()
    if our is None:
        found, why = NOT_RUN, why_not_run
    else:
        found, why = verdict(theirs, our)
    result = {"seed": figure.seed, "where": figure.where, "game": figure.game, "params": figure.figure.params,
              "agent": figure.agent, "opponent": figure.opponent, "seat": figure.figure.seat,
              "their_agents": f"{figure.figure.agent.label} vs {figure.figure.opponent.label}",
              "theirs": theirs, "ours": our, "verdict": found, "why": why, "notes": list(figure.figure.notes)}
    if as_text is not None:
        sentence = text_sentence(theirs, as_text, found == REPRODUCED)
        result["as_text"] = as_text
        if found == NOT_REPRODUCED:
            result["why"] = f"{why} {sentence}"
        else:
            result["notes"].append(sentence)
    return result


def _rates(rates: dict[str, Any] | None) -> str:
    if rates is None:
        return "-"
    return " / ".join("?" if rates[outcome] is None else f"{rates[outcome]:.1%}" for outcome in OUTCOMES)


#: The column saying why a row's verdict is what it is.
WHY = "why"


def table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """The rows as a table: head and cells."""
    head = ["seed", "where", "game", "agent", "opponent", "seat", "theirs W/D/L", "their games", "ours W/D/L",
            "our games", "as their text names them W/D/L", "value kept", "verdict", WHY]
    cells = []
    for found in rows:
        our = found["ours"]
        kept = our["value_kept"] if our else None
        cells.append([found["seed"][:3], found["where"], found["game"], found["agent"], found["opponent"],
                      found["seat"], _rates(found["theirs"]), str(found["theirs"]["games"] or "not given"), _rates(our),
                      str(our["games"]) if our else "-",
                      _rates(found["as_text"]["ours"]) if found.get("as_text") else "-",
                      "-" if kept is None else f"{kept:.1%}",
                      found["verdict"], found["why"] or ""])
    return head, cells


def summary(rows: list[dict[str, Any]]) -> str:
    """How many rows each verdict has."""
    counts = {name: sum(found["verdict"] == name for found in rows) for name in (REPRODUCED, NOT_REPRODUCED, NOT_RUN)}
    return f"{len(rows)} published figures: " + ", ".join(f"{count} {name}" for name, count in counts.items())


INTRO = ("Every match figure the course reports published for a game, rerun with the agents as the reports' "
         "code played them (`AGENT:preset=NUMBER` where ours differ), and again as their text names them where "
         "their code plays otherwise. A figure is reproduced when each rate "
         "it gives lies inside our 95% Wilson interval for that outcome; value kept is our exact audit of the "
         "report's agent on a sample of the solved store's positions, where there is a store.")
