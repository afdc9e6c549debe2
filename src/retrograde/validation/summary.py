"""What a validation report opens with: the game's value from its start, the agents ranked, and a
few findings, all generated from the report's numbers; and the short names (`ga`, `minimax-d2`)
agents go by on the page.

Findings are sentences built from the measured figures, never written by hand: the best
imperfect agent, the biggest weakness (the lowest share of wins or draws an agent keeps), where
the agents blunder most (the tier group with the lowest value kept), and how each trained agent
fares against the baselines. Random is left out of the best/weakest choices when other imperfect
agents exist: it is there as the floor, not as a finding.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from retrograde.agents import ResolvedAgent
from retrograde.agents.match import by_reason

#: Positions a tier group needs in the move-quality sample before a finding names it.
MIN_GROUP_POSITIONS = 30
#: An option value this long, or not plain, stays out of a short name (nested specs, lists).
SHORT_VALUE = re.compile(r"^[A-Za-z0-9.+-]{1,12}$")


def short_names(agents: Sequence[ResolvedAgent]) -> dict[str, str]:
    """A short name for each agent's spec, unique among `agents`: a user's agent's own name (its
    label's, without keywords or digest), else the agent's name and its plain
    options as written, `-{first letter}{value}` (`minimax:depth=2` -> `minimax-d2`); the files
    it reads join by their stem only where two agents would otherwise share a name, and a number
    after that."""
    files = {agent.spec: [path for path, _ in agent.files] for agent in agents}
    names = {}
    for agent in agents:
        if agent.label is not None:  # a user's agent: its own name (its class's, its engine's id)
            names[agent.spec] = agent.label.split("@")[0].split("(")[0].replace(" ", "-")
            continue
        artifacts = {str(path) for path in files[agent.spec]}
        parts = [agent.name] + [f"{key[0]}{value}" for key, value in agent.written.options
                                if value not in artifacts and SHORT_VALUE.match(str(value))]
        names[agent.spec] = "-".join(parts)
    shared = [spec for spec, name in names.items() if list(names.values()).count(name) > 1]
    for spec in shared:
        names[spec] = "-".join([names[spec], *(path.stem for path in files.get(spec, ()))])
    counted = dict(names)
    seen: dict[str, int] = {}
    for spec, name in counted.items():
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            names[spec] = f"{name}-{seen[name]}"
    return names


def start_value(value: str | None, remoteness: int | None, why_unknown: str | None) -> str:
    """The game's value from the start as a sentence."""
    if value is None:
        return f"The value of the start position is unknown here: {why_unknown}."
    if value == "draw":
        return "A draw with perfect play."
    plies = "1 ply" if remoteness == 1 else f"{remoteness} plies"
    return f"The first player {'wins' if value == 'win' else 'loses'} in {plies} with perfect play."


def percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def signed(elo: float) -> str:
    """An Elo figure with its sign, rounded (never "-0")."""
    return f"{round(elo):+d}"


def elo_interval(elo: float, ci95: Sequence[float]) -> str:
    """"+120 [+6, +269]"."""
    return f"{signed(elo)} [{signed(ci95[0])}, {signed(ci95[1])}]"


def _elo(entry: dict[str, Any]) -> str:
    return elo_interval(entry["elo"], entry["ci95"])


def ranking(report: dict[str, Any], short: dict[str, str]) -> list[dict[str, Any]]:
    """Agents by value kept (the exact audit), then by rating."""
    rated = report["ratings"]["agents"]
    rows = [{"agent": spec, "short": short[spec], "value_kept": entry["move_quality"]["value_kept"],
             "elo": rated[spec]["elo"], "elo_ci95": rated[spec]["ci95"]} for spec, entry in report["agents"].items()]
    return sorted(rows, key=lambda row: (-(row["value_kept"] if row["value_kept"] is not None else -1), -row["elo"]))


def _imperfect(report: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Agents that give some value away, random left out where others remain (`names`: each
    spec's agent name)."""
    flawed = [spec for spec, entry in report["agents"].items() if (entry["move_quality"]["value_kept"] or 0) < 1]
    others = [spec for spec in flawed if names[spec] != "random"]
    return others or flawed


def _best(report: dict[str, Any], short: dict[str, str], names: dict[str, str]) -> str | None:
    quality = {spec: report["agents"][spec]["move_quality"] for spec in report["agents"]}
    flawed = _imperfect(report, names)
    if not flawed:
        perfect = [short[s] for s, q in quality.items() if q["value_kept"] == 1]
        return f"Every agent keeps every value ({', '.join(perfect)})." if perfect else None
    best = max(flawed, key=lambda spec: (quality[spec]["value_kept"] or 0, report["ratings"]["agents"][spec]["elo"]))
    return (f"Best imperfect agent: {short[best]} keeps the value in {percent(quality[best]['value_kept'])} of positions; "
            f"rated {_elo(report['ratings']['agents'][best])}.")


def _weakness(report: dict[str, Any], short: dict[str, str], names: dict[str, str]) -> str | None:
    """The lowest share of wins or draws any imperfect agent keeps."""
    found = []
    for spec in _imperfect(report, names):
        q = report["agents"][spec]["move_quality"]
        if q.get("win_kept") is not None:
            found.append((q["win_kept"], spec, "wins",
                          f"{q['win_to_draw']:,} to draws, {q['win_to_loss']:,} to losses"))
        if q.get("draw_kept") is not None:
            found.append((q["draw_kept"], spec, "draws", f"{q['draw_to_loss']:,} to losses"))
    if not found:
        return None
    kept, spec, what, detail = min(found, key=lambda item: item[0])
    return (f"Biggest weakness: {short[spec]} keeps only {percent(kept)} of the {what} it is given "
            f"(it gives away {detail} in the sample).")


def tier_groups(report: dict[str, Any]) -> tuple[str, list[str], dict[str, str]]:
    """The tier groups the page shows: (what they count, the groups in order, {tier: group}), the
    game's grouping (`Game.tier_group`) of the report's tiers, or each tier alone."""
    grouping = report.get("tier_groups")
    if grouping:
        of = {tier: str(group) for tier, group in grouping["of"].items() if tier in report["tiers"]}
        return grouping["label"], sorted(set(of.values()), key=int), of
    return "tier", list(report["tiers"]), {tier: tier for tier in report["tiers"]}


def group_quality(report: dict[str, Any], spec: str) -> dict[str, dict[str, float]]:
    """{group: {"positions", "value_kept"}} of one agent: its tiers' figures weighted by their positions."""
    _, _, group_of = tier_groups(report)
    sums: dict[str, list[float]] = {}
    for tier, figures in report["agents"][spec]["by_tier"].items():
        if figures.get("value_kept") is None or not figures.get("positions"):
            continue
        total = sums.setdefault(group_of.get(tier, tier), [0.0, 0.0])
        total[0] += figures["positions"]
        total[1] += figures["positions"] * figures["value_kept"]
    return {group: {"positions": int(n), "value_kept": kept / n} for group, (n, kept) in sums.items()}


def _where(report: dict[str, Any], names: dict[str, str]) -> str | None:
    """The tier group where the imperfect agents together keep the value least often."""
    label, _, _ = tier_groups(report)
    totals: dict[str, list[float]] = {}
    for spec in _imperfect(report, names):
        for group, figures in group_quality(report, spec).items():
            total = totals.setdefault(group, [0.0, 0.0])
            total[0] += figures["positions"]
            total[1] += figures["positions"] * figures["value_kept"]
    enough = {group: kept / n for group, (n, kept) in totals.items() if n >= MIN_GROUP_POSITIONS}
    if len(enough) < 2:
        return None
    worst = min(enough, key=enough.get)
    overall = sum(kept for n, kept in totals.values()) / sum(n for n, _ in totals.values())
    named = f"{worst} {label}" if label != "tier" else f"tier {worst}"
    return (f"Agents blunder most {'with' if label != 'tier' else 'in'} {named}: together they keep the value in {percent(enough[worst])} of those "
            f"positions, against {percent(overall)} overall.")


def _trained(report: dict[str, Any], short: dict[str, str], names: dict[str, str]) -> str | None:
    """The trained agents against the best untrained imperfect baseline (and random, the floor)."""
    trained = [spec for spec in report["agents"] if spec in report.get("training", {})]
    baselines = [spec for spec in report["agents"] if spec not in trained
                 and (report["agents"][spec]["move_quality"]["value_kept"] or 0) < 1]
    if not trained or not baselines:
        return None
    quality = {spec: report["agents"][spec]["move_quality"]["value_kept"] or 0 for spec in report["agents"]}
    rated = report["ratings"]["agents"]

    def figures(spec: str) -> str:
        return f"{short[spec]} {percent(quality[spec])}, {signed(rated[spec]['elo'])}"

    named = [names[spec] for spec in baselines]
    best = max((spec for spec, name in zip(baselines, named) if name != "random"), key=quality.get, default=None)
    floor = baselines[named.index("random")] if "random" in named else None
    above = [spec for spec in trained if best is None or quality[spec] > quality[best]]
    verdict = ("all above the best baseline" if len(above) == len(trained) else
               "none above the best baseline" if not above else
               f"{', '.join(short[spec] for spec in above)} above the best baseline")
    against = "; ".join(f"{what} {figures(spec)}" for what, spec in (("best baseline", best), ("floor", floor))
                        if spec)
    return (f"Trained agents (value kept, rating): {'; '.join(figures(spec) for spec in trained)}: {verdict} "
            f"({against}).")


def counts(by_reason: dict[str, int]) -> str:
    """Forfeits by reason as text: "timeout 3, exception 1" ("" for none)."""
    return ", ".join(f"{reason} {n:,}" for reason, n in by_reason.items())


def game_forfeits(report: dict[str, Any], spec: str) -> dict[str, int]:
    """The games `spec` forfeited by reason, over both seats and every pairing (reasons in
    `Forfeit.REASONS` order, those never given left out)."""
    counted: Counter[str] = Counter()
    for t in report["tournaments"]:
        for seat in ("first", "second"):
            if t[seat] == spec:
                counted.update(t.get("forfeits", {}).get(seat, {}))
    return by_reason(counted)


def _forfeits(report: dict[str, Any], short: dict[str, str]) -> str | None:
    """The agents that gave up moves (a user's agent's errors: the first thing its author needs to see)."""
    found = []
    for spec, entry in report["agents"].items():
        moves, games = entry["move_quality"].get("forfeits", {}), game_forfeits(report, spec)
        if moves or games:
            found.append(f"{short[spec]} {sum(moves.values()):,} of its {entry['move_quality']['positions']:,} "
                         f"measured moves ({counts(moves) or 'none'}) and {sum(games.values()):,} games "
                         f"({counts(games) or 'none'})")
    return f"Forfeits: {'; '.join(found)}; each counts as lost." if found else None


def findings(report: dict[str, Any], short: dict[str, str], names: dict[str, str]) -> list[str]:
    """3-5 sentences the numbers support (fewer when there is too little to say), forfeits
    first where an agent gave up moves; `short` and `names`: each spec's short name and agent name."""
    found = [_forfeits(report, short), _best(report, short, names), _weakness(report, short, names),
             _where(report, names), _trained(report, short, names)]
    capped = sum(entry.get("capped", 0) for entry in report["tournaments"])
    games = sum(entry["games"] for entry in report["tournaments"])
    if capped:
        found.append(f"{capped:,} of {games:,} tournament games reached the {report['max_plies']}-ply cap: the "
                     "tables show them apart, and the ratings count them as draws.")
    return [line for line in found if line][:5]


def summary(report: dict[str, Any], short: dict[str, str], names: dict[str, str], value: str | None,
            remoteness: int | None, why_unknown: str | None) -> dict[str, Any]:
    """report.json's "summary": the start's value and remoteness (null, with "why", when the store
    does not hold it), the ranking and the findings."""
    return {"value": value, "remoteness": remoteness, "answer": start_value(value, remoteness, why_unknown),
            **({"why_unknown": why_unknown} if value is None else {}),
            "ranking": ranking(report, short), "findings": findings(report, short, names)}
