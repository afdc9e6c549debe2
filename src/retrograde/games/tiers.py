"""Tiers and the tier graph: what a game's positions are split into, and in what order the
tiers are solved.

A tier is a numbered range of indices 0..size-1 whose moves lead into its declared child
tiers. The child-tier graph splits into steps: a single loop-free tier, or a loopy group of
tiers whose positions lead into each other (a strongly connected component), solved together.
A step's wave is one more than the latest wave it reads from, so the steps of one wave can be
solved side by side.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    """A class of positions solved as one unit.

    `children` names the tiers that this tier's moves lead into, in the order the
    expand kernel refers to them; a loopy tier lists itself (and its partners).
    `key` is what the game's kernel needs to identify the tier (plain integers).
    """

    name: str
    size: int
    children: tuple[str, ...]
    key: tuple[int, ...]


@dataclass(frozen=True)
class Step:
    """Tiers solved as one unit: a single loop-free tier (chunk by chunk), or a loopy
    group whose positions lead into each other (solved together). Steps of one wave
    depend only on earlier waves, so they run in parallel."""

    tiers: tuple[str, ...]
    loopy: bool
    wave: int


def solve_steps(tiers: tuple[Tier, ...]) -> tuple[Step, ...]:
    """Group tiers into steps (strongly connected components of the child-tier graph) and
    number the waves: a step's wave is one more than the latest wave it reads from.

    Children outside the instance (e.g. below a part of a game a store holds) must not be
    read: every child must be a listed tier.

    :raises ValueError: a tier reads a tier that is not listed.
    """
    names = [t.name for t in tiers]
    order = {name: i for i, name in enumerate(names)}
    children = {t.name: list(t.children) for t in tiers}
    missing = sorted({c for cs in children.values() for c in cs} - set(names))
    if missing:
        raise ValueError(f"tiers read by the plan but not in it: {missing[:5]}")
    # Tarjan's algorithm, iterative; components come out children first.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in names:
        if root in index:
            continue
        work = [(root, iter(children[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for child in successors:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(children[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component, key=order.__getitem__))
    wave_of: dict[str, int] = {}
    steps = []
    for component in components:
        members = set(component)
        outside = [c for t in component for c in children[t] if c not in members]
        wave = 1 + max((wave_of[c] for c in outside), default=-1)
        loopy = len(component) > 1 or component[0] in children[component[0]]
        for t in component:
            wave_of[t] = wave
        steps.append(Step(tuple(component), loopy, wave))
    return tuple(sorted(steps, key=lambda s: (s.wave, order[s.tiers[0]])))
