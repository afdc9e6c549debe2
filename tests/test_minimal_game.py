"""A game of the required part alone (`minimal_game.Treblecross`, registered for the whole suite by
conftest.py) works with every command: solve, verify, probe, probe --line, play, analyze,
validate with the generic agents that can play it, and the explorer's /api/probe; the self-tests
pass it; and what needs a capability it lacks says which, in one line."""

from __future__ import annotations

import io
import json
import sys

import pytest

from minimal_game import Treblecross, reachable, three_in_a_row
from retrograde.games.check import check_capabilities, check_game

GAME = ("treblecross", "--cells", "7")


def test_the_self_tests_pass_the_required_part_alone():
    game = Treblecross(cells=7)
    assert check_game(game, samples=200) == [] and check_capabilities(game) == []
    assert all(getattr(game, name) is None for name in ("loopy", "symmetry", "one_ply", "display", "costs", "search",
                                                        "playouts", "policies", "genome", "features",
                                                        "network_input", "sampling", "course"))


def _values_by_hand(cells: int) -> dict[int, tuple[str, int]]:
    """Every reachable row's (value, remoteness), by plain negamax over the rules written here."""
    memo: dict[int, tuple[str, int]] = {}

    def solve(mask: int) -> tuple[str, int]:
        if mask not in memo:
            if three_in_a_row(mask):
                memo[mask] = ("loss", 0)
            else:
                children = [solve(mask | 1 << c) for c in range(cells) if not mask >> c & 1]
                wins = [r for value, r in children if value == "loss"]
                memo[mask] = ("win", min(wins) + 1) if wins else ("loss", max(r for _, r in children) + 1)
        return memo[mask]

    solve(0)
    return memo


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from retrograde.cli import main

    path = tmp_path_factory.mktemp("treblecross") / "t.zarr"
    with pytest.raises(SystemExit) as exit_:
        main(["solve", *GAME, "--store", str(path), "--quiet"])
    assert exit_.value.code == 0
    return path


def test_solve_verify_and_probe_give_the_values_of_the_rules(store, cli):
    code, out, _ = cli("verify", "--store", str(store), "--json")
    assert code == 0 and json.loads(out)["wrong"] == 0
    expected = _values_by_hand(7)
    rows = sorted(expected)[:40]
    game = Treblecross(cells=7)
    code, out, _ = cli("probe", "--store", str(store), "--json", *(game.format(mask) for mask in rows))
    assert code == 0
    for mask, line in zip(rows, out.splitlines()):
        answer = json.loads(line)
        assert (answer["value"], answer["remoteness"]) == expected[mask], game.format(mask)
    assert all(reachable(mask) for mask in expected)


def test_probe_line_plays_perfectly_to_the_end(store, cli):
    code, out, _ = cli("probe", "--line", "--store", str(store), ".......")
    assert code == 0 and "the game is over" in out
    assert out.splitlines()[0] == ".......: win in 5"


def test_play_shows_the_notation_as_the_board_and_says_why_a_move_is_illegal(store, cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("4\n9\nmoves\n1\n2\n3\n5\n6\n7\n"))
    code, out, _ = cli("play", "--store", str(store))
    assert code == 0
    assert "...x..." in out and "'9' is not a legal move here (notation:" in out and "Game over" in out


def test_analyze_and_validate_with_the_generic_agents(store, cli, tmp_path):
    code, out, _ = cli("analyze", "--store", str(store), "--json")
    assert code == 0 and json.loads(out)
    code, out, err = cli("validate", "--store", str(store), "--out", str(tmp_path / "report"), "--games", "4",
                         "--quiet")
    assert code == 0, err
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    agents = list(report["agents"])
    assert agents[:2] == ["lookup", "random"] and "mcts" in agents  # mcts on the generic playout rules
    assert not any(name.startswith(("greedy", "minimax")) for name in agents)  # no search to play them


def test_the_explorer_offers_the_agents_that_can_play_and_answers_a_probe(store):
    from retrograde.data.store import Store
    from retrograde.explorer.app import Explorer, create_app

    with Store.open(store) as opened:
        explorer = Explorer(opened, None)
        assert list(explorer.agents) == ["lookup", "random"]
        answer = create_app(explorer).test_client().get("/api/probe?position=x..x...").get_json()
    assert (answer["value"], answer["remoteness"]) == ("win", 3)
    assert answer["board"]["caption"] == "x..x..."  # no display: the notation is the board


@pytest.mark.parametrize("args,capability", [
    (("minimax", "random"), "search"),
    (("greedy", "random"), "search"),
    (("dqn", "random"), "network"),
])
def test_an_agent_that_needs_a_capability_names_it_in_one_line(cli, args, capability):
    code, _, err = cli("match", *args, "--game", "treblecross --cells 7", "--games", "1")
    assert code != 0 and len(err.strip().splitlines()) == 1 and capability in err, err
