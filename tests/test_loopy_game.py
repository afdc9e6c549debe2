"""The worked loopy example of docs/GAMES.md (`loopy_game.Ring`, registered for the whole suite by
conftest.py) solves to the values of an independent retrograde analysis written here, on rings
where moves meet (a ring of 3: three moves onto one cell) and where they do not."""

from __future__ import annotations

import json

import pytest

from conftest import solve_in_process
from loopy_game import Ring


def values_by_levels(cells: int) -> list[tuple[str, int | None]]:
    """(value, remoteness) of every cell, settled level by level from the end: a cell with a
    move onto a loss at level r-1 is a win at r; a cell whose every move leads to a win, the
    slowest at level r-1, is a loss at r; what is never settled is a draw."""
    steps = (1, 4, -2)
    children = {cell: [(cell + step) % cells for step in steps] for cell in range(1, cells)}
    settled: dict[int, tuple[str, int]] = {0: ("loss", 0)}
    level = 0
    while True:
        level += 1
        new = {}
        for cell, moves in children.items():
            if cell in settled:
                continue
            if any(settled.get(child) == ("loss", level - 1) for child in moves):
                new[cell] = ("win", level)
            elif all(child in settled and settled[child][0] == "win" for child in moves) and \
                    max(settled[child][1] for child in moves) == level - 1:
                new[cell] = ("loss", level)
        if not new:  # nothing at this level: no later level can settle anything
            break
        settled.update(new)
    return [settled.get(cell, ("draw", None)) for cell in range(cells)]


@pytest.mark.parametrize("cells", [3, 4, 5, 10, 17, 40])
def test_a_solved_ring_holds_the_values_of_the_levels(tmp_path, cli, cells):
    path = solve_in_process("ring", {"cells": cells}, tmp_path / "ring.zarr")
    code, out, _ = cli("probe", "--store", str(path), "--json", *map(str, range(1, cells)))
    assert code == 0
    got = [(answer["value"], answer.get("remoteness")) for answer in map(json.loads, out.splitlines())]
    expected = values_by_levels(cells)[1:]
    assert [(value, remoteness if value != "draw" else None) for value, remoteness in got] == expected
    code, out, _ = cli("verify", "--store", str(path), "--json")
    assert code == 0 and json.loads(out)["wrong"] == 0


def test_the_levels_hold_every_kind_of_value_on_a_ring_of_10():
    """The example is worth its name: wins, losses beyond the end and draws (endless play)."""
    values = values_by_levels(10)
    assert values == [("loss", 0), ("draw", None), ("win", 1), ("draw", None), ("win", 3), ("draw", None),
                      ("win", 1), ("win", 3), ("loss", 2), ("win", 1)]


def test_a_drawn_line_stops_at_a_repetition(tmp_path, cli):
    path = solve_in_process("ring", {"cells": 10}, tmp_path / "ring.zarr")
    code, out, _ = cli("probe", "--line", "--store", str(path), "5")
    assert code == 0 and out.splitlines()[-1] == "a position repeats: the line goes on forever"


def test_the_parents_weigh_moves_that_meet():
    game = Ring(cells=3)
    tier = game.tier("ring")
    refs, weights = game.loopy.parents(tier, [1, 2], {"ring": 0})
    assert refs[0].tolist()[0] == -1  # every move onto 1 comes from 0, where the game is over
    assert refs[1].tolist()[:2] == [1, -1] and weights[1].tolist()[0] == 3  # 1 -> 2 by each of the three steps
