"""Every game in the registry keeps the game interface's contracts (games/base.py `REQUIRED` and
`CAPABILITIES`): its required part is there, `check_game` finds its rules, ranking, notation
and kernels in agreement on each example instance, and `check_capabilities` finds its
capabilities keeping theirs; and what the layers above read of a game (agents, baselines,
presets) names things that exist."""

from __future__ import annotations

import numpy as np
import pytest

from retrograde.agents import AgentSpec, agent_names, build_agent, parse_spec, reads_store
from retrograde.games import GAMES, make_game
from retrograde.games.base import Game
from retrograde.games.capabilities import course_of
from retrograde.games.check import check_capabilities, check_game
from retrograde.training.resumable import learner_for

EXAMPLES = [(name, params) for name, cls in GAMES.items() for params in cls.examples]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_registered_game_gives_the_required_part(name):
    cls = GAMES[name]
    assert cls.name == name and issubclass(cls, Game)
    assert not getattr(cls, "__abstractmethods__", None), sorted(cls.__abstractmethods__)
    assert cls.examples, f"{name} names no example instance"
    for params in cls.examples:
        game = make_game(name, params)
        assert make_game(name, game.params).params == game.params


@pytest.mark.parametrize("name,params", EXAMPLES, ids=lambda x: str(x))
def test_the_rules_and_the_kernels_agree(name, params):
    game = make_game(name, params)
    assert check_game(game, samples=60) == []


@pytest.mark.parametrize("name,params", EXAMPLES, ids=lambda x: str(x))
def test_the_capabilities_keep_their_contracts(name, params):
    assert check_capabilities(make_game(name, params), samples=25) == []


@pytest.mark.parametrize("name,params", EXAMPLES, ids=lambda x: str(x))
def test_what_a_game_presets_names_exists(name, params):
    """Its workflows' agents and learners, its figures' agents and its sampling baselines are
    agents of the game; its workflows' instances are instances of it."""
    game = make_game(name, params)
    names = set(agent_names())
    course = course_of(game)
    for figure in course.figures:
        assert {figure.agent.name, figure.opponent.name} <= names
        for ref in (figure.agent, figure.opponent):  # with its options, a preset's included
            if ref.learner:  # a trained agent: its learner preset builds for the figure's instance
                instance = game if figure.instances else make_game(name, figure.params)
                assert learner_for(ref.learner, instance).name == ref.name
            elif not reads_store(ref.name):
                build_agent(AgentSpec(ref.name, ref.options), game, seed=0)
            if ref.text and not reads_store(parse_spec(ref.text).name):  # as the report's text names it
                build_agent(ref.text, game, seed=0)
    for learner, report in course.learner_presets:  # every preset's options are the learner's
        assert learner_for(f"{learner}:preset={report}", game).settings["preset"] == report
    for workflow in course.workflows:
        make_game(name, workflow.params)
        assert {spec.split(":")[0] for spec in workflow.agents} <= names
        assert {spec.split(":")[0] for spec, _ in workflow.train} <= {"ga", "rl", "dqn"}
    sampling = game.sampling
    for spec in sampling.baselines if sampling else ():
        build_agent(spec, game, seed=0)


class Broken(GAMES["tictactoe"]):
    """A game whose kernel gives a wrong child and whose search ignores wins in one."""

    def expand(self, tier, start, stop, child_offsets, *, group=(), out=None):
        result = super().expand(tier, start, stop, child_offsets, group=group, out=out)
        result.children[result.children > 0] -= 1
        return result


def test_the_self_tests_fail_a_game_that_breaks_a_contract():
    broken = Broken()
    assert any("kernel gives" in problem for problem in check_game(broken, samples=20))
    lacking = type("Lacking", (GAMES["tictactoe"],), {"summary": "", "examples": ()})()
    problems = check_capabilities(lacking, samples=5)
    assert any("summary" in problem for problem in problems) and any("examples" in problem for problem in problems)
    search = broken.search
    search.evals = ("lines",)  # no zero evaluation
    zero_less = type("ZeroLess", (Broken,), {"search": search})()
    assert any("evals must include zero" in problem for problem in check_capabilities(zero_less, samples=5))


def test_features_values_lie_in_zero_one_and_ending_moves_are_exact():
    game = make_game("quixo", {"size": 3})
    features = game.features
    position = game.parse("xx./oo./... x")
    moves, values, exact = features(position, np.random.default_rng(0))
    assert ((values >= 0) & (values <= 1)).all() and len(moves) == len(exact)
    assert 1.0 in exact.tolist()
